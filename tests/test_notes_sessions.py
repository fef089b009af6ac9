"""Declared sessions: `git hippo session start|end` and the functions the agent hooks call."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.errors import HippoError, UsageError
from hippo_git.index import records
from hippo_git.notes.declared import end_session, open_declared, start_session
from tests.conftest import make_repo, run_cli

NOTES = {
    "notes/index.md": "# Index\n[[release-process]]\n",
    "notes/release-process.md": "---\ntitle: Releasing\n---\nTag it.\n",
}


def _repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", files=NOTES)


def test_start_prints_id_and_end_records_handoff(tmp_path: Path, hippo) -> None:
    repo = _repo(tmp_path)
    started = hippo(["session", "start", "--task", "cut release 1.2", "--harness", "codex"], cwd=repo)
    assert started.exit_code == 0, started.output
    session_id = started.stdout.strip()
    assert session_id.startswith("hippo-")
    record = json.loads(records.record_path(repo, session_id).read_text())
    assert (
        record["kind"] == "declared" and record["task"] == "cut release 1.2" and record["harness"] == "codex"
    )
    assert record["ended"] is None and record["version"] == 1 and record["started"].endswith("Z")
    ended = hippo(
        [
            "session",
            "end",
            "--handoff",
            "Tagged; [[Releasing]] needs the new step, [[no such note]] too.",
            "--json",
        ],
        cwd=repo,
    )
    assert ended.exit_code == 0, ended.output
    done = json.loads(ended.stdout)
    assert done["id"] == session_id and done["ended"] and done["handoff"].startswith("Tagged;")
    assert done["notes_touched"] == ["notes/release-process.md", "no such note"]
    assert json.loads(records.record_path(repo, session_id).read_text()) == done
    records.validate_record(done)  # the contract's pydantic model accepts it


def test_end_picks_the_newest_open_session_or_says_there_is_none(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    cfg = load_config(repo)
    with pytest.raises(HippoError, match="no open declared session"):
        end_session(cfg)
    first = start_session(cfg, "one", session_id="a-1")
    second = start_session(cfg, "two", session_id="a-2", context_bytes=4321)
    assert second["context_bytes"] == 4321
    # Same started second: the newest start wins by record order, so make it explicit.
    rec = dict(first, started="2020-01-01T00:00:00Z")
    records.write_record_dict(repo, rec)
    assert end_session(cfg)["id"] == "a-2"
    assert [r["id"] for r in open_declared(repo)] == ["a-1"]
    assert end_session(cfg, "a-1", handoff="[[index]]")["notes_touched"] == ["notes/index.md"]
    with pytest.raises(HippoError, match="no session record 'nope'"):
        end_session(cfg, "nope")
    proc = run_cli(["session", "end"], cwd=repo)
    assert proc.returncode == 1 and "no open declared session" in proc.stderr


def test_start_is_idempotent_and_takes_over_a_derived_record(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    cfg = load_config(repo)
    derived = {
        "version": 1,
        "kind": "derived",
        "id": "claude-code/abc",
        "harness": "claude-code",
        "started": "2026-01-01T10:00:00Z",
        "ended": "2026-01-01T11:00:00Z",
        "cwd": str(repo),
        "title": "t",
        "task": "derived task",
        "notes_touched": [],
        "files_edited": ["src/a.py"],
        "handoff": None,
        "turns": 12,
        "context_bytes": None,
        "prompts": [],
    }
    records.write_record_dict(repo, derived)
    record = start_session(cfg, None, session_id="claude-code/abc", context_bytes=900)
    assert records.record_path(repo, "claude-code/abc").name == "claude-code~abc.json"
    assert record["kind"] == "declared" and record["ended"] is None
    assert (record["turns"], record["files_edited"], record["task"], record["started"]) == (
        12,
        ["src/a.py"],
        "derived task",
        "2026-01-01T10:00:00Z",
    )
    again = start_session(cfg, "new task", session_id="claude-code/abc")
    assert again["task"] == "new task" and again["context_bytes"] == 900
    for bad in ("../escape", ".hidden", ""):
        with pytest.raises(UsageError):
            start_session(cfg, "x", session_id=bad or " ")


def test_handoff_from_stdin(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    session_id = run_cli(["session", "start", "--id", "s-9"], cwd=repo).stdout.strip()
    assert session_id == "s-9"
    proc = run_cli(["session", "end", "--handoff", "-"], cwd=repo, input="From stdin: [[index]]\n")
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "s-9" and "notes touched: notes/index.md" in proc.stderr
    assert records.read_record(repo, "s-9")["handoff"] == "From stdin: [[index]]"


def test_task_and_handoff_are_redacted_and_the_task_cut(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    cfg = load_config(repo)
    record = start_session(cfg, "deploy with key AKIAIOSFODNN7EXAMPLE " + "x" * 400, session_id="r-1")
    assert "AKIAIOSFODNN7EXAMPLE" not in record["task"] and "[redacted:" in record["task"]
    assert len(record["task"]) <= records.TASK_CHARS
    done = end_session(cfg, "r-1", handoff="used AKIAIOSFODNN7EXAMPLE; see [[index]]")
    assert "AKIAIOSFODNN7EXAMPLE" not in done["handoff"] and done["notes_touched"] == ["notes/index.md"]
    assert "AKIAIOSFODNN7EXAMPLE" not in records.record_path(repo, "r-1").read_text()
