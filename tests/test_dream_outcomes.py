"""How a dream ends and what it says: unreadable models fail it, new sessions are never skipped."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hippo_git.dream.state import load_state
from tests.scripted_model import add_sessions, make_workspace, scripted_argv, write_script

NOTES = {"notes/build.md": "# Build\n\nRun the tests with `make test`.\n"}
RULE = "Always run the tests with -x, it saves minutes."


def _session(name: str, day: str, rule: str = RULE) -> tuple[str, str, list[tuple[Any, ...]]]:
    return (name, day, [("read", "notes/build.md"), ("user", rule), ("assistant", "Noted.")])


def test_a_model_whose_every_reply_is_unreadable_fails_the_run(tmp_path: Path, hippo: Any) -> None:
    script = tmp_path / "script.json"
    write_script(script, [{"task": "propose", "reply": "Sure! Here are my thoughts."}])
    cfg = make_workspace(tmp_path / "repo", dict(NOTES), scripted_argv(script))
    add_sessions(cfg, tmp_path / "t", [_session("s1", "2026-01-05")])
    result = hippo(["dream", "--until", "2026-01-08"], cwd=cfg.root)
    assert result.exit_code == 1
    assert "failed: no model reply could be read (4 of 4 unreadable" in result.output
    assert "docs/model-protocol.md" in result.output
    assert load_state(cfg.hippo_dir).windows == {}  # the sessions stay to be dreamt over
    proposing = {"task": "propose", "pass": "core/decisions"}
    append = {"op": "append", "path": "notes/build.md", "new": f'- "{RULE}" (s1#2)\n', "evidence": ["s1#2"]}
    write_script(script, [{**proposing, "json": {"proposals": [{**append, "rationale": "said"}]}}])
    again = hippo(["dream", "--until", "2026-01-08", "--json"], cwd=cfg.root)
    assert again.exit_code == 0, again.output
    report = json.loads(again.stdout)
    assert report["status"] == "complete" and report["totals"]["applied"] == 1


def test_a_session_ingested_after_a_dream_is_dreamt_over_whatever_its_time(tmp_path: Path) -> None:
    from datetime import UTC, datetime

    from hippo_git.dream.run import DreamOptions, dream
    from hippo_git.dream.runner import heuristic_argv

    cfg = make_workspace(tmp_path / "repo", dict(NOTES), list(heuristic_argv()))
    add_sessions(cfg, tmp_path / "t", [_session("s1", "2026-01-05")])
    first_until = datetime(2026, 1, 8, tzinfo=UTC)
    first = dream(cfg, DreamOptions(until=first_until), env={}, now=first_until)
    assert first.totals()["applied"] == 1
    # a teammate's laptop syncs late: a session of the same day arrives after the dream
    later = "Never merge without a second review, even for typos."
    add_sessions(cfg, tmp_path / "t", [_session("s2", "2026-01-05", later)])
    until = datetime(2026, 1, 9, tzinfo=UTC)
    second = dream(cfg, DreamOptions(until=until), env={}, now=until)
    assert second.since == "2026-01-05T10:00:00Z"
    assert second.totals()["applied"] == 1 and later in (cfg.root / "notes/build.md").read_text()
    (day,) = [c for c in second.chunks if not c.skipped]
    assert day.sessions == 1  # s1, dreamt over already, is not shown again
    assert load_state(cfg.hippo_dir).marks["core"] > 0
    third = dream(cfg, DreamOptions(until=until), env={}, now=until)
    assert third.stopped == "nothing new since the last run" and third.totals()["model_calls"] == 0
    again = dream(cfg, DreamOptions(since=datetime(2026, 1, 5, tzinfo=UTC), until=until), env={}, now=until)
    assert [c.sessions for c in again.chunks if not c.skipped] == [2]  # --since shows everything


def test_a_first_dream_with_no_note_cited_writes_first_notes_for_recurring_topics(
    tmp_path: Path, hippo: Any
) -> None:
    from hippo_git.dream.runner import heuristic_argv
    from tests.conftest import git

    cfg = make_workspace(tmp_path / "repo", {"notes/index.md": "# Index\n"}, list(heuristic_argv()))
    chat: list[tuple[Any, ...]] = [
        ("user", "Always build the docker image with --pull, the base image moves."),
        ("assistant", "Building the docker image now."),
        ("user", "No, the docker cache is stale here. Use --no-cache for release builds."),
        ("assistant", "Understood."),
    ]
    add_sessions(cfg, tmp_path / "t", [("s1", "2026-01-05", chat)])
    result = hippo(["dream", "--until", "2026-01-08", "--json"], cwd=cfg.root)
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    (topics,) = [p for c in report["chunks"] for p in c["passes"] if p["name"] == "core/topics"]
    (made,) = topics["proposals"]
    assert made["path"] == "notes/docker.md" and made["verdict"] == "confirm" and made["applied"]
    note = (cfg.root / "notes/docker.md").read_text()
    assert note.startswith(
        '# Docker\n\n- Rule: "Always build the docker image with --pull, the base image moves."'
    )
    assert (
        '- Correction: "No, the docker cache is stale here. Use --no-cache for release builds." (s1#2)'
        in note
    )
    assert git(cfg.root, "log", "-1", "--format=%s", "main") == "hippo: append notes/docker.md (core/topics)"
    assert git(cfg.root, "status", "--porcelain") == ""


def test_a_dream_that_proposes_nothing_says_why_on_screen(tmp_path: Path, hippo: Any) -> None:
    from hippo_git.dream.runner import heuristic_argv

    cfg = make_workspace(tmp_path / "repo", dict(NOTES), list(heuristic_argv()))
    add_sessions(cfg, tmp_path / "t", [("s1", "2026-01-05", [("user", "hello there"), ("assistant", "Hi.")])])
    result = hippo(["dream", "--until", "2026-01-08"], cwd=cfg.root)
    assert result.exit_code == 0, result.output
    assert "0 proposals" in result.output
    assert "skipped 2 chunk(s): no sessions with turns in this period" in result.output
    assert "skipped 1 pass run(s): core/topics no recurring topic without a note" in result.output
    assert "hint: dreams update the notes sessions read or cite" in result.output
