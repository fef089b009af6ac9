"""Lessons end to end on small transcripts: ingest → scan (heuristic model) → inbox → keep (a
proposal with a receipt, applied) → revert; dismiss → a rescan does not draft it again."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import Config, load_config, workspace_template
from hippo_git.dream import heuristic
from hippo_git.dream.lessons import ScanReport, scan
from hippo_git.dream.lessons_inbox import list_lessons, scanned
from hippo_git.dream.receipts import receipts_for
from hippo_git.dream.runner import InProcessModel, heuristic_argv
from hippo_git.signals.refresh import ingest
from tests.conftest import git, make_repo
from tests.dream_git_support import NOTES
from tests.index_support import set_roots, write_jsonl
from tests.rules_support import claude_session

NOW = datetime(2026, 3, 5, tzinfo=UTC)
CORRECTION = "No, always run the linter before you commit anything."


def _heuristic() -> InProcessModel:
    return InProcessModel(heuristic_argv(), lambda prompt: heuristic.answer(prompt)[1])


def _repo(tmp_path: Path, *, records: bool = False) -> tuple[Config, Path]:
    repo = make_repo(tmp_path / "repo", files=dict(NOTES))
    if records:  # set up for dreaming: ingest then keeps the session records a dream reads
        (repo / ".hippo").mkdir()
        (repo / ".hippo" / "hippo.toml").write_text(workspace_template("main"))
    folder = tmp_path / "claude" / "proj"
    set_roots(Path(os.environ["HIPPO_HOME"]), {"claude-code": [tmp_path / "claude"]})
    write_jsonl(
        folder / "les1.jsonl",
        claude_session(
            "les1",
            str(repo),
            [
                ("user", "add a release script"),
                ("bash", "make deploy", "Exit code 2\nmake: *** No rule to make target 'deploy'.", "error"),
                ("assistant", "I committed the release script without running the linter."),
                ("user", CORRECTION),
                ("assistant", "Understood, I will run it first from now on."),
            ],
        ),
    )
    write_jsonl(
        folder / "les2.jsonl",
        claude_session(
            "les2",
            str(repo),
            [
                ("user", "ship it"),
                ("bash", "make deploy", "Exit code 2\nmake: *** No rule to make target 'deploy'.", "error"),
            ],
            day="2026-03-03",
        ),
    )
    cfg = load_config(repo)
    ingest(cfg)
    return cfg, folder


def test_scan_keep_revert_round_trip(tmp_path: Path, hippo: Any) -> None:
    cfg, _ = _repo(tmp_path)
    report = scan(cfg, env=os.environ, now=NOW, model=_heuristic())
    assert (report.candidates, report.drafted, len(report.inbox), report.no_rule) == (2, 2, 1, 1)
    assert report.heuristic and report.rejected == 0 and not report.refused
    inbox = json.loads(hippo(["lessons", "inbox", "--json"], cwd=cfg.root).stdout)
    assert len(inbox) == 1
    lesson = inbox[0]
    assert lesson["kind"] == "correction" and lesson["rule"] == f'"{CORRECTION}"'
    assert lesson["evidence"] == ["les1#4"] and lesson["review"]["reviewer"]["persona"] == "lessons/reviewer"

    kept = hippo(["lessons", "keep", lesson["id"][:6], "--json"], cwd=cfg.root)
    assert kept.exit_code == 0, kept.output
    result = json.loads(kept.stdout)
    note = (cfg.root / "notes" / "lessons.md").read_text()
    assert note.startswith("# Lessons") and f'- Lesson: "{CORRECTION}" (les1#4)' in note
    assert (
        git(cfg.root, "rev-parse", "main") == result["commit"]
        and git(cfg.root, "status", "--porcelain", "notes") == ""
    )
    receipts = receipts_for(cfg.root, commit=result["commit"], proposal_id=result["proposal"])
    assert [(r.kind, r.verdict, r.reviewer.persona, r.reviewer.heuristic) for r in receipts] == [
        ("review", "confirm", "lessons/reviewer", True)
    ]
    assert (
        git(cfg.root, "log", "-1", "--format=%s", "main")
        == "hippo: append notes/lessons.md (lessons/corrections)"
    )
    assert [item.status for item in list_lessons(cfg)] == ["kept"]

    undone = hippo(["revert", result["proposal"][:12]], cwd=cfg.root)
    assert undone.exit_code == 0, undone.output
    assert not (cfg.root / "notes" / "lessons.md").exists()
    again = scan(cfg, env=os.environ, now=NOW, model=_heuristic())
    assert (again.already_drafted, again.drafted) == (2, 0)  # kept and no-rule values are remembered


def test_dismissed_lessons_are_not_drafted_again(tmp_path: Path, hippo: Any) -> None:
    cfg, folder = _repo(tmp_path)
    scan(cfg, env=os.environ, now=NOW, model=_heuristic())
    (lesson,) = list_lessons(cfg, pending_only=True)
    dismissed = hippo(["lessons", "dismiss", lesson.id], cwd=cfg.root)
    assert dismissed.exit_code == 0, dismissed.output
    assert list_lessons(cfg, pending_only=True) == []
    # The same correction in a new session has the same value: not drafted again.
    write_jsonl(
        folder / "les3.jsonl",
        claude_session(
            "les3",
            str(cfg.root),
            [("user", "tag it"), ("assistant", "Tagged."), ("user", CORRECTION)],
            day="2026-03-04",
        ),
    )
    ingest(cfg)
    calls: list[str] = []

    def answer(prompt: str) -> str:
        calls.append(prompt)
        return heuristic.answer(prompt)[1]

    model = InProcessModel(heuristic_argv(), answer)
    again = scan(cfg, env=os.environ, now=NOW, model=model)
    assert again.drafted == 0 and calls == [] and again.already_drafted == again.candidates == 2
    assert hippo(["lessons", "keep", lesson.id], cwd=cfg.root).exit_code == 1  # already dismissed


def test_a_rejected_draft_stays_out_of_the_inbox_and_is_remembered(tmp_path: Path) -> None:
    cfg, _ = _repo(tmp_path)

    def answer(prompt: str) -> str:
        if '"task": "review"' in prompt.split("\n", 1)[0]:
            return json.dumps({"verdict": "reject", "reason": "a one-off"})
        return heuristic.answer(prompt)[1]

    report = scan(cfg, env=os.environ, now=NOW, model=InProcessModel(("scripted",), answer))
    assert report.rejected == 1 and report.inbox == []
    assert sorted(v["outcome"] for v in scanned(cfg).values()) == ["no_rule", "rejected"]


def test_a_draft_citing_turns_it_was_not_shown_is_dropped(tmp_path: Path) -> None:
    cfg, _ = _repo(tmp_path)
    reply = json.dumps(
        {"lessons": [{"rule": "Always lint.", "evidence": ["other#1"], "rationale": "made up"}]}
    )
    report = scan(cfg, env=os.environ, now=NOW, model=InProcessModel(("scripted",), lambda prompt: reply))
    assert report.inbox == [] and report.no_rule == 2


def test_keep_into_a_named_note_and_refuse_paths_outside_the_notes(tmp_path: Path, hippo: Any) -> None:
    cfg, _ = _repo(tmp_path)
    scan(cfg, env=os.environ, now=NOW, model=_heuristic())
    (lesson,) = list_lessons(cfg, pending_only=True)
    bad = hippo(["lessons", "keep", lesson.id, "--note", "../outside"], cwd=cfg.root)
    assert bad.exit_code == 2 and "--note" in bad.output
    good = hippo(["lessons", "keep", lesson.id, "--note", "build"], cwd=cfg.root)
    assert good.exit_code == 0, good.output
    build = (cfg.root / "notes" / "build.md").read_text()
    assert build.startswith(NOTES["notes/build.md"]) and build.endswith(
        f'- Lesson: "{CORRECTION}" (les1#4)\n'
    )


def _path_without_claude() -> str:
    return os.pathsep.join(
        d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not shutil.which("claude", path=d)
    )


def test_lessons_scan_cli_runs_the_model_command_in_isolation(
    tmp_path: Path, hippo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PATH", _path_without_claude())
    cfg, _ = _repo(tmp_path)
    result = hippo(["lessons", "scan", "--json"], cwd=cfg.root)
    assert result.exit_code == 0, result.output
    report = ScanReport(**json.loads(result.stdout))
    assert report.heuristic and report.model[-2:] == ["model", "heuristic"] and len(report.inbox) == 1
    assert not (cfg.home / "model-runs").exists() or not any((cfg.home / "model-runs").iterdir())


def test_the_offline_model_quotes_any_correction_the_rules_found(tmp_path: Path) -> None:
    cfg, folder = _repo(tmp_path)
    said = "the stop hook is not correct, it fires at the end of every turn."
    write_jsonl(
        folder / "les4.jsonl",
        claude_session(
            "les4",
            str(cfg.root),
            [("user", "add a hook"), ("assistant", "I used the stop hook."), ("user", said)],
            day="2026-03-04",
        ),
    )
    ingest(cfg)
    report = scan(cfg, env=os.environ, now=NOW, model=_heuristic())
    rules = {item.rule for item in list_lessons(cfg, pending_only=True)}
    assert len(report.inbox) == 2 and f'"{said}"' in rules


def test_a_finished_dream_scans_for_lessons_with_its_model(tmp_path: Path) -> None:
    from hippo_git.dream.run import DreamOptions, dream

    cfg, _ = _repo(tmp_path, records=True)
    report = dream(cfg, DreamOptions(), env=os.environ, now=NOW, model=_heuristic())
    assert report.status == "complete"
    assert [(item.kind, item.drafted_by[-2:]) for item in list_lessons(cfg)] == [
        ("correction", ["model", "heuristic"])
    ]


def test_a_no_rule_answer_holds_for_its_model_only(tmp_path: Path) -> None:
    cfg, _ = _repo(tmp_path)
    first = scan(cfg, env=os.environ, now=NOW, model=_heuristic())
    assert first.no_rule == 1  # the offline model drafts no rule for the repeated failure
    same = scan(cfg, env=os.environ, now=NOW, model=_heuristic())
    assert (same.already_drafted, same.drafted) == (2, 0)
    asked: list[str] = []

    def better(prompt: str) -> str:
        asked.append(prompt)
        return heuristic.answer(prompt)[1]

    other = scan(cfg, env=os.environ, now=NOW, model=InProcessModel(("better-model",), better))
    assert (other.already_drafted, other.drafted, other.no_rule) == (1, 1, 1)
    assert len(asked) == 1 and '"kind": "repeated_failure"' in asked[0].split("\n", 1)[0]
    again = scan(cfg, env=os.environ, now=NOW, model=InProcessModel(("better-model",), better))
    assert again.drafted == 0 and len(asked) == 1
