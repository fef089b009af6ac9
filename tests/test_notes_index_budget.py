"""The agent hooks never wait for a notes index to be built (issue 21): `init` builds it, a
post-merge into a never-built index builds it all, and a hook past its budget answers with what it
has and leaves the rest to a detached process."""

from __future__ import annotations

import json
import os
import sqlite3
import time
from pathlib import Path

import pytest

from hippo_git.agents import hooks
from hippo_git.config import load_config
from hippo_git.notes import notes_index
from hippo_git.notes.context import build_context
from hippo_git.notes.notes_index import get_meta, index_file, open_notes_index, refresh, refresh_notes_index
from tests.conftest import make_repo, run_cli

OLD = 1_600_000_000
NOTES = 40


def _workspace(tmp_path: Path, *, init: bool) -> Path:
    repo = make_repo(tmp_path / "repo")
    if init:
        assert run_cli(["init", "--no-hooks"], cwd=repo).returncode == 0
    else:
        (repo / ".hippo").mkdir()
        (repo / ".hippo" / "hippo.toml").write_text('notes_dir = "notes"\n')
        (repo / "notes").mkdir()
        (repo / "notes" / "index.md").write_text("# Index\nStart at [[topic-000]].\n")
        os.utime(repo / "notes" / "index.md", (OLD, OLD))
    for i in range(NOTES):
        path = repo / "notes" / f"topic-{i:03d}.md"
        path.write_text(f"# Topic {i}\nThe rollout of canary {i} uses argo and helm.\n")
        os.utime(path, (OLD, OLD))
    return repo


def _count(cfg: object) -> int:
    conn = sqlite3.connect(index_file(cfg))  # type: ignore[arg-type]
    try:
        return int(conn.execute("SELECT count(*) FROM notes").fetchone()[0])
    finally:
        conn.close()


def test_a_passed_deadline_stores_what_it_read_and_says_it_is_not_complete(tmp_path: Path) -> None:
    cfg = load_config(_workspace(tmp_path, init=False))
    conn = open_notes_index(cfg)
    try:
        cut = refresh(conn, cfg, deadline=time.monotonic() - 1)
        assert not cut.complete and cut.updated == ()
        assert get_meta(conn, "manifest") is None  # never claims notes it did not read
        rest = refresh(conn, cfg)
        assert rest.complete and rest.total == NOTES + 1
        again = refresh(conn, cfg, deadline=time.monotonic() - 1)  # nothing to do: complete
        assert again.complete and not again.changed
    finally:
        conn.close()


def test_a_busy_writer_is_not_waited_for_past_the_deadline(tmp_path: Path) -> None:
    cfg = load_config(_workspace(tmp_path, init=False))
    holder = open_notes_index(cfg)
    holder.execute("BEGIN IMMEDIATE")  # a background refresh writing
    try:
        conn = open_notes_index(cfg)
        try:
            got = refresh(conn, cfg, deadline=time.monotonic() + 0.05)
            assert not got.complete and got.total == 0
            # the context still has the entry note, read directly; no lint part from half an index
            block = build_context(cfg, deadline=time.monotonic() + 0.05)
            assert not block.index_complete and '<note path="notes/index.md" role="entry">' in block.text
            assert "Notes health" not in block.text
        finally:
            conn.close()
    finally:
        holder.execute("ROLLBACK")
        holder.close()


def test_init_builds_the_notes_index(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    for i in range(5):
        (repo / "notes").mkdir(exist_ok=True)
        (repo / "notes" / f"n{i}.md").write_text(f"# N{i}\n")
    proc = run_cli(["init", "--no-hooks", "--json"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["notes_indexed"] == 6  # five notes and the entry note init wrote
    assert _count(load_config(repo)) == 6


def test_a_post_merge_refresh_of_a_never_built_index_builds_all_of_it(tmp_path: Path) -> None:
    cfg = load_config(_workspace(tmp_path, init=False))
    result = refresh_notes_index(cfg, ["notes/topic-001.md"])
    assert result.total == NOTES + 1 and _count(cfg) == NOTES + 1
    # once built, a post-merge re-reads only the notes that arrived
    path = cfg.root / "notes" / "topic-002.md"
    path.write_text("# Topic 2\nchanged\n")
    os.utime(path, (OLD + 9, OLD + 9))
    assert refresh_notes_index(cfg, ["notes/topic-002.md"]).updated == ("notes/topic-002.md",)


def test_a_session_start_past_its_budget_answers_and_finishes_in_the_background(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = _workspace(tmp_path, init=False)
    monkeypatch.setattr(hooks, "NOTES_BUDGET_S", -1.0)  # a budget already spent: as with 50,000 notes
    payload = {"session_id": "s-1", "cwd": str(repo), "hook_event_name": "SessionStart"}
    code, out, err = hooks.handle("session-start", json.dumps(payload), repo)
    assert (code, err) == (0, "")
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert '<note path="notes/index.md" role="entry">' in text
    cfg = load_config(repo)
    deadline = time.monotonic() + 60  # a detached process: wait for it, not for a time figure
    while _count(cfg) < NOTES + 1 and time.monotonic() < deadline:
        time.sleep(0.1)
    assert _count(cfg) == NOTES + 1
    conn = open_notes_index(cfg)
    try:
        assert notes_index.refresh(conn, cfg).complete
    finally:
        conn.close()


def test_a_hook_never_lints_thousands_of_notes_itself(tmp_path: Path) -> None:
    """After notes changed, the lint counts are not at hand: the hook leaves them out and the
    detached process computes them for the next session."""
    repo = _workspace(tmp_path, init=False)
    cfg = load_config(repo)
    refresh_notes_index(cfg)
    path = repo / "notes" / "topic-003.md"
    path.write_text("# Topic 3\nNow links to [[nowhere]].\n")
    os.utime(path, (OLD + 7, OLD + 7))
    payload = {"session_id": "s-2", "cwd": str(repo), "hook_event_name": "SessionStart"}
    _, out, _ = hooks.handle("session-start", json.dumps(payload), repo)
    assert "Notes health" not in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    key = notes_index.lint_cache_key(cfg)
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        conn = open_notes_index(cfg)
        try:
            cached = get_meta(conn, key)
        finally:
            conn.close()
        if cached is not None:
            break
        time.sleep(0.1)
    assert cached is not None and json.loads(cached)["broken_link"] == 1
    _, out, _ = hooks.handle("session-start", json.dumps({**payload, "session_id": "s-3"}), repo)
    assert "Notes health" in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert "Notes health" in build_context(cfg).text  # the command line computes them when missing
