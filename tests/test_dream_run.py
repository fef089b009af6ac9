"""`git hippo dream` with a scripted model: every step, the git shapes it leaves, windows and guards."""

from __future__ import annotations

import json
import os
import re
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import load_config
from hippo_git.dream.apply import apply_run
from hippo_git.dream.receipts import list_receipts
from hippo_git.dream.run import DreamOptions, dream
from hippo_git.dream.state import DreamLock, load_state
from hippo_git.errors import LockedError
from tests.conftest import git
from tests.scripted_model import add_sessions, calls, make_workspace, scripted_argv, write_script

NOTES = {
    "notes/index.md": "# Index\n\nSee [[build]].\n",
    "notes/build.md": "# Build\n\nRun the tests with `make test`.\nInstall with pip.\n",
}
SESSIONS = [
    (
        "s-alpha",
        "2026-01-05",
        [
            ("user", "Always run the tests with -x, it saves minutes."),
            ("read", "notes/build.md"),
            ("assistant", "Noted, using -x from now on."),
        ],
    ),
    (
        "s-beta",
        "2026-01-07",
        [
            ("user", "We moved to uv. Install with uv sync."),
            ("read", "notes/build.md"),
            ("assistant", "Done."),
        ],
    ),
]
APPEND = {
    "op": "append",
    "path": "notes/build.md",
    "new": '- Rule: "Always run the tests with -x, it saves minutes." (s-alpha#0)\n',
    "evidence": ["s-alpha#0"],
    "rationale": "A person set this rule.",
}
REPLACE = {
    "op": "replace",
    "path": "notes/build.md",
    "old": "Install with pip.",
    "new": 'Install with "uv sync" (the team moved to uv).',
    "evidence": ["s-beta#0"],
    "rationale": "The session shows the move to uv.",
}
UNTIL = datetime(2026, 1, 8, tzinfo=UTC)


def workspace(
    tmp_path: Path, steps: list[dict[str, Any]], *, review: dict[str, Any] | None = None, settings: str = ""
) -> tuple[Any, Path]:
    script = write_script(tmp_path / "script.json", steps, review=review)
    cfg = make_workspace(tmp_path / "repo", dict(NOTES), scripted_argv(script), settings=settings)
    add_sessions(cfg, tmp_path / "transcripts", SESSIONS)
    return cfg, script


def default_steps() -> list[dict[str, Any]]:
    return [
        {"task": "propose", "pass": "core/decisions", "json": {"proposals": [APPEND]}},
        {"task": "propose", "pass": "core/stale", "json": {"proposals": [REPLACE]}},
    ]


def run(cfg: Any, **kw: Any) -> Any:
    opts = DreamOptions(
        since=kw.pop("since", None),
        until=kw.pop("until", UNTIL),
        **{k: kw.pop(k) for k in list(kw) if k in ("dry_run", "no_apply", "packs")},
    )
    return dream(cfg, opts, env=dict(os.environ), now=UNTIL, **kw)


def normalise(text: str, tmp_path: Path) -> str:
    text = text.replace(str(tmp_path), "<tmp>").replace(sys.executable, "<python>")
    return re.sub(r'"persona_sha256":"[0-9a-f]{64}"', '"persona_sha256":"<sha>"', text)


SNAPSHOT = """\
hippo: replace notes/build.md (core/stale)
Rationale from the model (untrusted text):
> The session shows the move to uv.

Hippo-Proposal: <id2>
Hippo-Pass: core/stale
Hippo-Evidence: s-beta#0
Hippo-Before: <blob2>
Hippo-Run: run-1

[notes]
{"after":"<blob3>","before":"<blob2>","commit":"<c2>","kind":"review","patch_id":"<p2>","path":"notes/build.md","proposal":"<id2>","reason":"scripted confirm","reviewer":{"argv":["<python>","<script>","<tmp>/script.json"],"heuristic":false,"persona":"core/reviewer","persona_sha256":"<sha>"},"run":"run-1","time":"2026-01-02T03:04:05Z","verdict":"confirm","version":1}
---
hippo: append notes/build.md (core/decisions)
Rationale from the model (untrusted text):
> A person set this rule.

Hippo-Proposal: <id1>
Hippo-Pass: core/decisions
Hippo-Evidence: s-alpha#0
Hippo-Before: <blob1>
Hippo-Run: run-1

[notes]
{"after":"<blob2>","before":"<blob1>","commit":"<c1>","kind":"review","patch_id":"<p1>","path":"notes/build.md","proposal":"<id1>","reason":"scripted confirm","reviewer":{"argv":["<python>","<script>","<tmp>/script.json"],"heuristic":false,"persona":"core/reviewer","persona_sha256":"<sha>"},"run":"run-1","time":"2026-01-02T03:04:05Z","verdict":"confirm","version":1}
---
initial

[notes]
---"""

NOTE_AFTER = """\
# Build

Run the tests with `make test`.
Install with "uv sync" (the team moved to uv).
- Rule: "Always run the tests with -x, it saves minutes." (s-alpha#0)
"""


def snapshot(repo: Path, tmp_path: Path) -> str:
    """`git log` of main with the receipts notes; ids, blobs and paths named by their order."""
    log = git(repo, "log", "--format=%s%n%b%n[notes]%n%N---", "--notes=hippo/receipts", "main")
    text = normalise(log, tmp_path).replace(str(Path(__file__).parent / "scripted_model.py"), "<script>")
    commits = git(repo, "rev-list", "--reverse", "main").split()
    by_commit = {e.receipt.commit: e.receipt for e in list_receipts(repo)}
    names: dict[str, str] = {}
    for commit in commits:
        r = by_commit.get(commit)
        if r is None:
            continue
        for value, kind in (
            (r.proposal, "id"),
            (commit, "c"),
            (r.before, "blob"),
            (r.after, "blob"),
            (r.patch_id, "p"),
        ):
            names.setdefault(value, f"<{kind}{sum(v.startswith('<' + kind) for v in names.values()) + 1}>")
    for value, name in sorted(names.items(), key=lambda kv: -len(kv[0])):
        text = text.replace(value, name)
    return text


def test_propose_commit_review_receipt_apply_snapshot(tmp_path: Path) -> None:
    cfg, script = workspace(tmp_path, default_steps())
    report = run(cfg, run_id="run-1")
    t = report.totals()
    # the replace is refused on the first day (its evidence is from a later day), taken on the third
    assert report.status == "complete"
    assert (t["proposals"], t["invalid"], t["committed"], t["confirmed"], t["applied"]) == (3, 1, 2, 2, 2)
    repo = cfg.root
    assert (repo / "notes" / "build.md").read_text() == NOTE_AFTER
    assert git(repo, "show", "main:notes/build.md") + "\n" == NOTE_AFTER
    assert git(repo, "status", "--porcelain") == ""
    assert git(repo, "rev-parse", "main") == git(repo, "rev-parse", "hippo/proposals/run-1")  # fast-forwarded
    assert snapshot(repo, tmp_path) == SNAPSHOT
    assert len(calls(script)) == t["model_calls"]


def test_only_chunks_with_evidence_cost_a_model_call(tmp_path: Path) -> None:
    cfg, script = workspace(tmp_path, default_steps())
    report = run(cfg, since=datetime(2026, 1, 1, tzinfo=UTC), run_id="run-w")
    skipped = [c for c in report.chunks if c.skipped]
    assert len(report.chunks) == 7 and len(skipped) == 5
    assert {c.skipped for c in skipped} == {"no sessions with turns in this period"}
    reviews = report.totals()["committed"]
    assert report.totals()["model_calls"] == 2 * 4 + reviews == len(calls(script))
    state = load_state(cfg.hippo_dir)
    assert state.windows == {"core": "2026-01-08T00:00:00Z"} and state.current is None
    again = run(cfg, until=datetime(2026, 1, 9, tzinfo=UTC), run_id="run-x")
    assert again.since == "2026-01-08T00:00:00Z" and again.totals()["model_calls"] == 0
    assert len(calls(script)) == 2 * 4 + reviews


def test_each_pass_sees_only_the_touched_notes_and_the_chunks_turns(tmp_path: Path) -> None:
    cfg, script = workspace(tmp_path, default_steps())
    run(cfg, until=datetime(2026, 1, 6, tzinfo=UTC), run_id="run-t")
    from hippo_git.dream.prompt import parse_request

    proposing = [c for c in calls(script) if c["task"] == "propose"]
    assert {c["header"]["pass"] for c in proposing} == {
        "core/facts",
        "core/decisions",
        "core/fixes",
        "core/stale",
    }
    for c in proposing:
        req = parse_request(c["prompt"])
        assert [b.meta["path"] for b in req.of_type("note")] == ["notes/build.md"]  # index.md was not touched
        assert {b.meta["session"] for b in req.of_type("turn")} == {"s-alpha"}


def test_dry_run_writes_no_commits_receipts_or_state(tmp_path: Path) -> None:
    cfg, _ = workspace(tmp_path, default_steps())
    report = run(cfg, dry_run=True, run_id="run-d")
    assert report.apply_mode == "dry-run"
    assert (report.totals()["proposals"], report.totals()["invalid"], report.totals()["committed"]) == (
        3,
        1,
        0,
    )
    assert git(cfg.root, "branch", "--list", "hippo/*") == "" and list_receipts(cfg.root) == []
    assert not (cfg.hippo_dir / "dream-state.json").exists()
    assert (cfg.hippo_dir / "reports" / "run-d.md").exists()


@pytest.mark.parametrize("how", ["no-apply", "pull-request"])
def test_no_apply_and_pull_request_leave_the_target_alone(tmp_path: Path, how: str) -> None:
    settings = '[dream]\napply = "pull-request"\n' if how == "pull-request" else ""
    cfg, _ = workspace(tmp_path, default_steps(), settings=settings)
    before = git(cfg.root, "rev-parse", "main")
    report = run(cfg, no_apply=how == "no-apply", run_id="run-n")
    assert report.apply_mode == how and report.totals()["confirmed"] == 2 and report.totals()["applied"] == 0
    assert git(cfg.root, "rev-parse", "main") == before
    assert ("hippo sync --proposals run-n" if how == "pull-request" else "hippo apply run-n") in str(
        report.hint
    )
    result = apply_run(cfg.root, load_config(cfg.root, env=dict(os.environ)), "run-n")
    assert len(result.applied) == 2 and "uv sync" in (cfg.root / "notes" / "build.md").read_text()


@pytest.mark.parametrize(
    "answer", [{"reply": "yes"}, {"reply": "CONFIRM!"}, {"reply": ""}, {"reply": '{"verdict": "Confirm"}'}]
)
def test_a_reviewer_saying_anything_but_the_verdict_rejects(tmp_path: Path, answer: dict[str, Any]) -> None:
    cfg, _ = workspace(tmp_path, default_steps(), review=answer)
    before = git(cfg.root, "rev-parse", "main")
    report = run(cfg, run_id="run-r")
    assert report.totals()["rejected"] == 2 and report.totals()["applied"] == 0
    assert git(cfg.root, "rev-parse", "main") == before
    assert {e.receipt.verdict for e in list_receipts(cfg.root)} == {"reject"}


def test_a_second_dream_refuses_and_a_dead_ones_lock_is_taken_over(tmp_path: Path) -> None:
    cfg, _ = workspace(tmp_path, default_steps())
    with DreamLock(cfg.hippo_dir), pytest.raises(LockedError, match="another dream is running"):
        run(cfg, run_id="run-l")
    (cfg.hippo_dir / "dream.lock").write_text("pid 999999 on elsewhere\n")  # left by a killed dream
    assert run(cfg, run_id="run-l").status == "complete"


def test_cost_guards_stop_the_run_and_keep_the_window(tmp_path: Path) -> None:
    cfg, script = workspace(tmp_path, default_steps(), settings="[dream]\nmax_model_calls = 3\n")
    report = run(cfg, run_id="run-g")
    assert report.status == "stopped" and "max_model_calls = 3" in str(report.guard_hit)
    assert len(calls(script)) == 3 and "fresh budget" in str(report.hint)
    assert load_state(cfg.hippo_dir).windows == {}  # the chunk did not finish
    assert "guard reached" in (cfg.hippo_dir / "reports" / "run-g.md").read_text()
    cfg2, _ = workspace(tmp_path / "b", default_steps(), settings="[dream]\nmax_bytes = 2000\n")
    small = run(cfg2, run_id="run-b")
    assert (
        small.status == "stopped"
        and "max_bytes" in str(small.guard_hit)
        and small.totals()["model_calls"] == 0
    )


def test_a_failing_model_stops_the_run_and_the_rerun_resumes_it(tmp_path: Path) -> None:
    steps = [
        {"task": "propose", "pass": "core/decisions", "exit": 1, "stderr": "rate limited", "times": 1},
        *default_steps(),
    ]
    cfg, _ = workspace(tmp_path, steps)
    first = run(cfg)
    assert first.status == "stopped" and "rate limited" in str(first.stopped)
    second = run(cfg)
    assert second.run == first.run and second.status == "complete" and second.totals()["applied"] == 2


def test_a_dirty_note_stops_the_apply_and_names_it(tmp_path: Path) -> None:
    cfg, _ = workspace(tmp_path, default_steps())
    (cfg.root / "notes" / "build.md").write_text("# Build\nlocal edits\n")
    report = run(cfg, run_id="run-dirty")
    assert report.status == "stopped" and "notes/build.md" in str(report.stopped)
    assert (cfg.root / "notes" / "build.md").read_text() == "# Build\nlocal edits\n"
    git(cfg.root, "checkout", "--", "notes/build.md")
    again = run(cfg)
    assert (
        again.run == "run-dirty"
        and again.status == "complete"
        and "uv sync" in (cfg.root / "notes" / "build.md").read_text()
    )


def test_cli_dream_json(tmp_path: Path, hippo: Any) -> None:
    cfg, _ = workspace(tmp_path, default_steps())
    out = hippo(["dream", "--since", "2026-01-04", "--until", "2026-01-08", "--json"], cwd=cfg.root)
    assert out.exit_code == 0, out.output
    data = json.loads(out.output[out.output.index("{") :])
    assert data["status"] == "complete" and data["totals"]["applied"] == 2
    assert data["chunks"][0]["skipped"] == "no sessions with turns in this period"
    assert [p["name"] for p in data["chunks"][1]["passes"]] == [
        "core/facts",
        "core/decisions",
        "core/fixes",
        "core/stale",
    ]


def test_reverted_text_is_shown_as_human_confirmed_and_never_proposed_again(tmp_path: Path) -> None:
    from hippo_git.dream.prompt import parse_request
    from hippo_git.dream.revert import revert

    cfg, script = workspace(
        tmp_path, [{"task": "propose", "pass": "core/decisions", "json": {"proposals": [APPEND]}}]
    )
    first = run(cfg, run_id="run-1")
    assert first.totals()["applied"] == 1
    proposal = next(e.receipt.proposal for e in list_receipts(cfg.root) if e.receipt.kind == "review")
    revert(cfg.root, proposal)
    assert "Always run the tests with -x" not in (cfg.root / "notes" / "build.md").read_text()
    reworded = {**APPEND, "new": '- Rule: "Always run the tests with -x, it saves minutes." (again)\n'}
    (tmp_path / "script.json.state.json").unlink(missing_ok=True)
    write_script(
        tmp_path / "script.json",
        [{"task": "propose", "pass": "core/decisions", "json": {"proposals": [APPEND, reworded]}}],
    )
    second = run(cfg, since=datetime(2026, 1, 5, tzinfo=UTC), run_id="run-2")
    items = [e for c in second.chunks for p in c.passes for e in p.proposals]
    assert items and all(
        not e.valid and any("brings back text a human reverted" in r for r in e.reasons) for e in items
    )
    assert second.totals()["committed"] == 0
    last = [c for c in calls(script) if c["task"] == "propose" and c["header"]["pass"] == "core/decisions"][
        -1
    ]
    reverted = parse_request(last["prompt"]).of_type("reverted")
    assert reverted and "Always run the tests with -x" in reverted[0].text


def test_a_repository_without_hippo_is_refused_and_nothing_is_written(tmp_path: Path, hippo: Any) -> None:
    from tests.conftest import make_repo

    repo = make_repo(tmp_path / "plain")
    out = hippo(["dream"], cwd=repo)
    assert out.exit_code == 1 and "git hippo init" in out.output
    assert not (repo / ".hippo").exists()


def test_last_success_and_the_model_in_use(tmp_path: Path) -> None:
    from hippo_git.dream.runner import resolve_model_command
    from hippo_git.dream.state import last_success

    cfg, script = workspace(tmp_path, default_steps())
    assert last_success(cfg) is None
    run(cfg, run_id="run-s")
    assert last_success(cfg) == UNTIL
    argv, label = resolve_model_command(cfg)
    assert argv == tuple(scripted_argv(script)) and label.startswith("model_command")
