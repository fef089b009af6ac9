"""Holes hostile input found (issue 12): each one is refused cleanly, never a crash or a hang."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hippo_git.dream.evidence import NoteText, PassInput, TurnRef
from hippo_git.dream.protocol import parse_propose_reply
from hippo_git.dream.records import Proposal
from hippo_git.dream.run import DreamOptions, dream
from hippo_git.dream.validate import NAME_MAX, check, path_problems
from hippo_git.index.lock import is_held
from hippo_git.transcripts.jsonl import read_bytes
from hippo_git.transcripts.regular import NotRegularFileError, open_regular, read_head, read_regular
from tests.conftest import git, make_repo
from tests.index_support import claude_lines, hippo_home, set_roots, write_jsonl
from tests.scripted_model import add_sessions, make_workspace, scripted_argv, write_script

UNTIL = datetime(2026, 1, 6, tzinfo=UTC)
NOTE = "# Build\n\nRun the tests with `make test`.\n"
LONG = "notes/" + "a" * 300 + ".md"


def _shown() -> PassInput:
    return PassInput(
        notes=(NoteText("notes/build.md", NOTE, "0" * 40, ("s1",)),),
        turns=(TurnRef("s1", 0, "prompt", "Always run the tests with -x."),),
        reverted={},
    )


def test_a_path_component_longer_than_the_file_name_limit_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    reasons = path_problems(LONG, tmp_path, "notes")
    assert reasons and f"longer than {NAME_MAX} bytes" in reasons[0]
    # multi-byte names count in bytes: 100 x "é" is 200 bytes (fine), 150 x "é" is 300 (refused)
    assert path_problems("notes/" + "é" * 100 + ".md", tmp_path, "notes") == []
    assert path_problems("notes/" + "é" * 150 + ".md", tmp_path, "notes")
    assert path_problems("notes/" + "b" * (NAME_MAX - 3) + ".md", tmp_path, "notes") == []


def test_an_append_that_carries_old_text_is_refused(tmp_path: Path) -> None:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "build.md").write_text(NOTE)
    for old in ("Run the tests", ""):
        bad = Proposal(op="append", path="notes/build.md", old=old, new="- x\n", evidence=("s1#0",))
        assert "an append carries text to replace" in check(bad, _shown(), root=tmp_path, notes_dir="notes")
    good = Proposal(op="append", path="notes/build.md", new="- x\n", evidence=("s1#0",))
    assert check(good, _shown(), root=tmp_path, notes_dir="notes") == []
    # the reply parser keeps `old` on appends, so validation sees it
    reply = '{"proposals": [{"op": "append", "path": "notes/build.md", "old": "Run", "new": "x", "evidence": ["s1#0"]}]}'
    (parsed,) = parse_propose_reply(reply, "core/facts").proposals
    assert parsed.old == "Run"


def _prop(path: str, **kw: Any) -> dict[str, Any]:
    return {
        "op": "append",
        "path": path,
        "new": "- Run the tests with -x.\n",
        "evidence": ["s-alpha#0"],
        **kw,
    }


def test_a_dream_refuses_both_and_finishes(tmp_path: Path) -> None:
    steps = [
        {
            "task": "propose",
            "pass": "core/facts",
            "json": {"proposals": [_prop(LONG), _prop("notes/build.md", old="Run the tests")]},
        }
    ]
    script = write_script(tmp_path / "script.json", steps)
    cfg = make_workspace(tmp_path / "repo", {"notes/build.md": NOTE}, scripted_argv(script))
    sessions = [
        ("s-alpha", "2026-01-05", [("user", "Always run the tests with -x."), ("read", "notes/build.md")])
    ]
    add_sessions(cfg, tmp_path / "transcripts", sessions)
    before = git(cfg.root, "rev-parse", "main")

    report = dream(
        cfg, DreamOptions(until=UNTIL, packs=("core",)), env=dict(os.environ), now=UNTIL, run_id="run-a"
    )
    assert report.status == "complete"  # the run finishes (and so moves its window on), no OSError
    items = [e for c in report.chunks for p in c.passes for e in p.proposals]
    by_path = {e.path: e for e in items}
    assert not by_path[LONG].valid and "longer than" in by_path[LONG].reasons[0]
    assert not by_path["notes/build.md"].valid
    assert "an append carries text to replace" in by_path["notes/build.md"].reasons
    assert not any(e.commit for e in items)
    assert git(cfg.root, "rev-parse", "main") == before


def test_open_regular_refuses_a_fifo_without_waiting(tmp_path: Path) -> None:
    fifo = tmp_path / "s.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError):
        open_regular(fifo)  # a plain open() would wait here for a writer, forever
    with pytest.raises(OSError):
        read_bytes(fifo)
    (tmp_path / "ok.jsonl").write_bytes(b"{}\n")
    assert read_regular(tmp_path / "ok.jsonl") == b"{}\n"


def test_read_head_refuses_a_fifo_and_reads_at_most_what_is_asked(tmp_path: Path) -> None:
    fifo = tmp_path / "s.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(NotRegularFileError):
        read_head(fifo, 4096)  # the head hash of every source is read with it
    ok = tmp_path / "ok.jsonl"
    ok.write_bytes(b"0123456789")
    assert read_head(ok, 4) == b"0123"
    assert read_head(ok, 4096) == b"0123456789"
    assert read_head(ok, 0) == b""


def test_a_fifo_named_like_a_transcript_neither_blocks_ingest_nor_holds_the_lock(tmp_path: Path) -> None:
    """A real `git hippo ingest` process, with a deadline so a regression fails instead of hanging."""
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude" / "proj"
    write_jsonl(folder / "good.jsonl", claude_lines("s-good", "/work/x", [("user", "fine")]))
    os.mkfifo(folder / "trap.jsonl")
    set_roots(hippo_home(), {"claude-code": [tmp_path / "claude"]})
    for _ in range(2):  # and the next ingest is not stalled by a lock left held
        proc = subprocess.run(
            [sys.executable, "-m", "hippo_git", "ingest", "--json"],
            cwd=repo,
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert proc.returncode == 0, proc.stderr
        failed = json.loads(proc.stdout)["files"]["failed"]
        assert [f["path"] for f in failed] == [str(folder / "trap.jsonl")]
        assert "not a regular file" in failed[0]["reason"]
    assert not is_held(hippo_home() / "index.sqlite")


def test_a_file_swapped_for_a_fifo_after_discovery_is_not_read(tmp_path: Path) -> None:
    """The race the discovery check cannot close: the adapter's own open refuses the FIFO."""
    from hippo_git.transcripts.claude_code import ADAPTER
    from hippo_git.transcripts.model import Cursor

    fifo = tmp_path / "late.jsonl"
    os.mkfifo(fifo)
    with pytest.raises(OSError):
        ADAPTER.parse(fifo, Cursor())
