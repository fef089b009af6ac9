"""The writer's batched path (`index.writer` with held-back full-text rows, `ingest._write_all`):
turn counts written with the rows, a session shared by sources, full-text rows copied by id
range, and a batch undone and written again source by source."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from hippo_git.index.db import connect
from hippo_git.index.ingest import IngestSummary, _write_all
from hippo_git.index.prepare import Prepared, PreparedSession
from hippo_git.index.scrub import Scrubber
from hippo_git.index.sources import Source
from hippo_git.index.writer import FtsRanges, Signature, WriteStats, flush_fts, write_source
from hippo_git.transcripts.model import ANSWER, PROMPT
from hippo_git.transcripts.registry import get_adapter

# Every column the writer sets from what it is given (not the write times).
TABLES = {
    "sources": "SELECT id, path, harness, size, mtime_ns, head_hash, offset, state_json, turns FROM sources",
    "sessions": "SELECT id, harness, cwd, title, started, ended, parent_id, model, git_branch, turns, "
    "source_id FROM sessions",
    "turns": "SELECT * FROM turns",
    "session_paths": "SELECT * FROM session_paths",
    "session_mentions": "SELECT * FROM session_mentions",
}


def session(
    sid: str, seqs: range | list[int], *, harness: str = "claude-code", append: bool = False
) -> PreparedSession:
    """A prepared session whose turns each hold a word of their own and name a path."""
    rows = []
    for seq in seqs:
        kind = PROMPT if seq % 2 == 0 else ANSWER
        text = f"turn {seq} of {sid} {harness[:5]}{sid}w{seq} see notes/{sid}.md"
        ts = f"2026-01-05T10:{seq % 60:02d}:00Z"
        rows.append((seq, kind, text, ts, None, 0, f'["src/{sid}.py"]', seq % 2))
    return PreparedSession(
        sid=sid,
        harness=harness,
        meta=(
            "/repo",
            f"title {sid}",
            rows[0][3] if rows else None,
            rows[-1][3] if rows else None,
            None,
            None,
            None,
        ),
        append=append,
        rows=rows,
        paths={f"src/{sid}.py": 1 if len(rows) > 1 else 0} if rows else {},
        mentions={(f"notes/{sid}.md", "path")},
    )


def source(*sessions: PreparedSession, reset: bool = False) -> Prepared:
    return Prepared(offset=100, state_json='{"k": 1}', head_hash="4:abc", reset=reset, sessions=sessions)


def write(
    conn: sqlite3.Connection, key: str, prep: Prepared, pending: FtsRanges | None, *, new: bool = True
) -> WriteStats:
    return write_source(
        conn, key=key, harness="claude-code", sig=Signature(10, 1), prepared=prep, new=new, pending=pending
    )


def counts(conn: sqlite3.Connection) -> tuple[dict[str, int], dict[str, int]]:
    """(sources.turns by path, sessions.turns by id), after checking that each one is the number of
    turns the index holds for it and that the full-text index holds exactly the turns."""
    sources = dict(conn.execute("SELECT path, turns FROM sources").fetchall())
    for path, n in sources.items():
        held = conn.execute(
            "SELECT count(*) FROM turns JOIN sources s ON s.id = turns.source_id WHERE s.path = ?", (path,)
        ).fetchone()[0]
        assert n == held, path
    sessions = dict(conn.execute("SELECT id, turns FROM sessions").fetchall())
    for sid, n in sessions.items():
        assert n == conn.execute("SELECT count(*) FROM turns WHERE session_id = ?", (sid,)).fetchone()[0], sid
    # With rank 1 the check compares the full-text index with the turns it is built from.
    conn.execute("INSERT INTO turns_fts(turns_fts, rank) VALUES ('integrity-check', 1)")
    for turn_id, text in conn.execute("SELECT id, text FROM turns"):
        word = text.split()[4]
        assert conn.execute("SELECT rowid FROM turns_fts WHERE turns_fts MATCH ?", (word,)).fetchall() == [
            (turn_id,)
        ]
    return sources, sessions


def dump(conn: sqlite3.Connection) -> dict[str, list[Any]]:
    return {name: conn.execute(query + " ORDER BY 1, 2, 3").fetchall() for name, query in TABLES.items()}


@pytest.fixture
def conn(tmp_path: Path) -> Iterator[sqlite3.Connection]:
    c = connect(tmp_path / "index.sqlite")
    yield c
    c.close()


def test_a_new_source_with_two_sessions_counts_each(conn: sqlite3.Connection) -> None:
    pending: FtsRanges = []
    conn.execute("BEGIN IMMEDIATE")
    a = write(conn, "a.jsonl", source(session("s1", range(3)), session("s2", range(5, 7))), pending)
    b = write(conn, "b.jsonl", source(session("s3", range(4)), session("empty", [])), pending)
    assert pending == [[1, 9]]  # one range for the batch: copied in one statement
    flush_fts(conn, pending)
    conn.execute("COMMIT")
    assert (a.turns_added, b.turns_added) == (5, 4)
    assert counts(conn) == ({"a.jsonl": 5, "b.jsonl": 4}, {"s1": 3, "s2": 2, "s3": 4, "empty": 0})


def test_a_session_shared_by_new_sources_is_recounted(conn: sqlite3.Connection) -> None:
    """The second source to name a session finds it in the index (not fresh): its turns are added
    to the session's count, and the full-text rows held back before that are written first."""
    pending: FtsRanges = []
    conn.execute("BEGIN IMMEDIATE")
    write(conn, "a.jsonl", source(session("s", range(3)), session("t", range(2))), pending)
    write(conn, "b.jsonl", source(session("s", range(3, 5), append=True), session("u", range(1))), pending)
    write(conn, "c.jsonl", source(session("s", range(10, 12))), pending)  # a whole part: its own seqs
    write(conn, "d.json", source(session("s", range(2), harness="codex")), pending)  # another harness
    flush_fts(conn, pending)
    conn.execute("COMMIT")
    srcs, sessions = counts(conn)
    assert srcs == {"a.jsonl": 5, "b.jsonl": 3, "c.jsonl": 2, "d.json": 2}
    assert sessions == {"s": 7, "t": 2, "u": 1, "codex:s": 2}
    assert conn.execute("SELECT started, ended FROM sessions WHERE id = 's'").fetchone() == (
        "2026-01-05T10:10:00Z",
        "2026-01-05T10:11:00Z",
    )


def test_turns_deleted_before_their_full_text_rows_are_written(conn: sqlite3.Connection) -> None:
    """Sources written again in the transaction that first wrote them (re-read whole, then a part
    that replaces a turn): their held-back full-text rows go in before their turns are deleted (the
    delete trigger takes those terms out), and the sources and sessions are recounted."""
    pending: FtsRanges = []
    conn.execute("BEGIN IMMEDIATE")
    write(conn, "a.jsonl", source(session("s", range(6)), session("gone", range(2))), pending)
    stats = write(conn, "a.jsonl", source(session("s", range(3)), reset=True), pending, new=False)
    write(conn, "b.jsonl", source(session("u", range(2))), pending)
    write(conn, "b.jsonl", source(session("u", range(1, 3), append=True)), pending, new=False)
    write(conn, "c.jsonl", source(session("s", range(3, 5), append=True)), pending)
    flush_fts(conn, pending)
    conn.execute("COMMIT")
    assert stats.turns_removed == 8
    assert counts(conn) == ({"a.jsonl": 3, "b.jsonl": 3, "c.jsonl": 2}, {"s": 5, "u": 3})


def ingest_batch(path: Path, preps: list[tuple[str, Prepared]]) -> tuple[dict[str, list[Any]], IngestSummary]:
    """What `_write_all` leaves in a fresh index given these prepared sources, all new."""
    adapter = get_adapter("claude-code")
    todo = [(Source("claude-code", adapter, f"/t/{name}", 10, 1, False), name, False) for name, _ in preps]
    summary = IngestSummary()
    c = connect(path)
    try:
        _write_all(c, Scrubber(), todo, iter(p for _, p in preps), summary, 10 * len(todo), None)
        counts(c)
        return dump(c), summary
    finally:
        c.close()


def test_a_batch_undone_and_written_again_loses_nothing(tmp_path: Path) -> None:
    """A source that fails midway (a repeated seq, after its first session is in) undoes the batch;
    it is written again source by source (full-text rows copied at once), the failing one dropped,
    and the next batch holds its rows back again: the index is the one the good sources make."""
    good_a = source(session("s", range(3)), session("t", range(4)))
    bad = source(session("v", range(2)), session("w", [0, 1, 1]))
    good_c = source(session("s", range(3, 6), append=True), session("x", range(2)))
    good_d = source(session("y", range(5)))
    got, summary = ingest_batch(
        tmp_path / "got.sqlite", [("a", good_a), ("bad", bad), ("c", good_c), ("d", good_d)]
    )
    want, _ = ingest_batch(tmp_path / "want.sqlite", [("a", good_a), ("c", good_c), ("d", good_d)])
    assert [f.path for f in summary.failed] == ["/t/bad"] and "cannot store" in summary.failed[0].reason
    assert got == want
    assert [r[-2] for r in got["sessions"]] == [6, 4, 2, 5]  # s, t, x, y
    assert summary.turns_added == 3 + 4 + 3 + 2 + 5


def test_a_session_a_source_no_longer_holds_leaves_no_rows_behind(tmp_path: Path) -> None:
    """Ingest writes with foreign keys off (`_write_all`): the writer itself removes a dropped
    session's paths and mentions, which `ON DELETE CASCADE` took before."""
    c = connect(tmp_path / "index.sqlite")
    try:
        c.execute("PRAGMA foreign_keys = OFF")
        c.execute("BEGIN IMMEDIATE")
        write(c, "a.jsonl", source(session("s", range(3)), session("gone", range(2))), None)
        write(c, "a.jsonl", source(session("s", range(3)), reset=True), None, new=False)
        c.execute("COMMIT")
        assert counts(c) == ({"a.jsonl": 3}, {"s": 3})
        for table in ("session_paths", "session_mentions"):
            assert c.execute(f"SELECT DISTINCT session_id FROM {table}").fetchall() == [("s",)]
        assert c.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        c.close()


def test_write_all_turns_foreign_keys_off_and_back_on(tmp_path: Path) -> None:
    seen: list[int] = []
    path = tmp_path / "index.sqlite"

    def preps() -> Iterator[Prepared]:
        seen.append(c.execute("PRAGMA foreign_keys").fetchone()[0])
        yield source(session("s", range(2)))

    adapter = get_adapter("claude-code")
    c = connect(path)
    try:
        todo = [(Source("claude-code", adapter, "/t/a.jsonl", 10, 1, False), "a.jsonl", False)]
        _write_all(c, Scrubber(), todo, preps(), IngestSummary(), 10, None)
        assert seen == [0]  # off while writing
        assert c.execute("PRAGMA foreign_keys").fetchone()[0] == 1  # on again for whatever follows
        assert c.execute("PRAGMA foreign_key_check").fetchall() == []
    finally:
        c.close()


def test_the_batch_is_committed_when_the_tail_begins(tmp_path: Path) -> None:
    """Everything written before the last `TAIL_BYTES` of transcript is committed on reaching them,
    so the full-text rows written once all is prepared are only those of the short last stretch."""
    from hippo_git.index.ingest import TAIL_BYTES

    path = tmp_path / "index.sqlite"
    adapter = get_adapter("claude-code")
    size = TAIL_BYTES * 3 // 4  # three sources: the tail begins within the third
    names = ["a.jsonl", "b.jsonl", "c.jsonl"]
    todo = [(Source("claude-code", adapter, f"/t/{name}", size, 1, False), name, False) for name in names]
    preps = [source(session(f"s{n}", range(2))) for n in range(3)]
    seen: list[int] = []

    def progress(files: int, done: int, total: int) -> None:
        reader = sqlite3.connect(path)  # sees only what was committed
        seen.append(reader.execute("SELECT count(*) FROM sessions").fetchone()[0])
        reader.close()

    c = connect(path)
    try:
        _write_all(c, Scrubber(), todo, iter(preps), IngestSummary(), size * 3, progress)
    finally:
        c.close()
    assert seen == [0, 2, 2]  # committed once 2 × 0.75 × TAIL_BYTES were written, not before
