"""Writing one parsed source into the index, inside the caller's transaction.

The source row (size, mtime, head hash, cursor) is written in the same transaction as the
source's turns, so a killed ingest leaves either both or neither. What is written comes from
`index.prepare`, already redacted (invariant 2). Plain tuples and `executemany` keep the inner
loop cheap.

The full-text rows may be held back in a `pending` list and written with `flush_fts` just before
the transaction commits: FTS5 writes its pending terms out as a new segment at every savepoint,
and the next source's `INSERT … RETURNING` upsert does the same, so writing them per session
made a small segment per source, then merged (a third of the write time). Held-back rows are
written before any turn is deleted, since the delete trigger removes a turn's terms from the
full-text index. They are held as ranges of turn ids and copied from `turns` by SQLite: no Python
row per turn, and the texts are not bound a second time.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from hippo_git.index.prepare import Prepared, PreparedSession
from hippo_git.index.scrub import Scrubber

FtsRanges = list[list[int]]  # [first, last] turn ids whose `turns_fts` rows are held back
Row = tuple[Any, ...]


@dataclass(frozen=True)
class Signature:
    """What identifies a source's content without reading it."""

    size: int
    mtime_ns: int


@dataclass
class WriteStats:
    """What writing sources into the index did: turns added and removed, sessions written."""

    turns_added: int = 0
    turns_removed: int = 0
    sessions: set[str] = field(default_factory=set)


# `turns` is the final count for a new source; for another it is recounted once its turns are in.
_UPSERT_SOURCE = """
INSERT INTO sources(path, harness, size, mtime_ns, head_hash, offset, state_json, turns, ingested_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
ON CONFLICT(path) DO UPDATE SET
    harness = excluded.harness, size = excluded.size, mtime_ns = excluded.mtime_ns,
    head_hash = excluded.head_hash, offset = excluded.offset, state_json = excluded.state_json,
    turns = excluded.turns, ingested_at = excluded.ingested_at
RETURNING id
"""

# A whole re-read states the session afresh; an appended part widens its time span. `turns` is
# the count of a session the index did not hold (an insert); one it held is recounted after.
_UPSERT_SESSION_REPLACE = """
INSERT INTO sessions(id, harness, cwd, title, started, ended, parent_id, model, git_branch, source_id,
                     turns, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
ON CONFLICT(id) DO UPDATE SET
    harness = excluded.harness, cwd = coalesce(excluded.cwd, cwd), title = coalesce(excluded.title, title),
    started = coalesce(excluded.started, started), ended = coalesce(excluded.ended, ended),
    parent_id = coalesce(excluded.parent_id, parent_id), model = coalesce(excluded.model, model),
    git_branch = coalesce(excluded.git_branch, git_branch), source_id = excluded.source_id,
    updated_at = excluded.updated_at
"""
_UPSERT_SESSION_APPEND = """
INSERT INTO sessions(id, harness, cwd, title, started, ended, parent_id, model, git_branch, source_id,
                     turns, updated_at)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))
ON CONFLICT(id) DO UPDATE SET
    cwd = coalesce(excluded.cwd, cwd), title = coalesce(excluded.title, title),
    started = coalesce(min(started, excluded.started), started, excluded.started),
    ended = coalesce(max(ended, excluded.ended), ended, excluded.ended),
    parent_id = coalesce(excluded.parent_id, parent_id), model = coalesce(excluded.model, model),
    git_branch = coalesce(excluded.git_branch, git_branch), source_id = excluded.source_id,
    updated_at = excluded.updated_at
"""
_INSERT_TURN = """
INSERT INTO turns(id, session_id, source_id, seq, kind, text, ts, tool, is_error, paths_json, edited)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
"""
_COPY_FTS = "INSERT INTO turns_fts(rowid, text) SELECT id, text FROM turns WHERE id BETWEEN ? AND ?"
_UPSERT_PATH = """
INSERT INTO session_paths(session_id, path, edited) VALUES (?, ?, ?)
ON CONFLICT(session_id, path) DO UPDATE SET edited = max(edited, excluded.edited)
"""
_INSERT_MENTION = "INSERT OR IGNORE INTO session_mentions(session_id, target, kind) VALUES (?, ?, ?)"


def source_key(scrub: Scrubber, path: str) -> str:
    """The `sources.path` of a transcript: its redacted path (with a digest when redaction changed it,
    so two paths that differ only in a secret stay distinct)."""
    key = scrub.small(path)
    if key != path:
        import hashlib

        key += "#" + hashlib.sha256(path.encode("utf-8", "surrogateescape")).hexdigest()[:16]
    return key


def stored(scrub: Scrubber, known: Mapping[str, Row], path: str) -> tuple[str, Row | None]:
    """A transcript's `sources.path` and its row in `known` (rows keyed by that column), if any.
    A stored path equal to the real one is one that redaction left as it was: it is not redacted
    again (re-ingest looks up every source on the machine)."""
    row = known.get(path)
    if row is not None:
        return path, row
    key = source_key(scrub, path)
    return key, known.get(key)


def write_source(
    conn: sqlite3.Connection,
    *,
    key: str,
    harness: str,
    sig: Signature,
    prepared: Prepared,
    new: bool = False,
    pending: FtsRanges | None = None,
) -> WriteStats:
    """Store one prepared source. `prepared.reset`: the source was re-read whole, so its old turns
    go first. `new`: the index has never seen this source (nothing of it to replace or recount).
    `pending`: hold the full-text rows back there (see the module note) instead of writing them now."""
    stats = WriteStats()
    sessions = prepared.sessions
    count = sum(len(parsed.rows) for parsed in sessions) if new else 0
    row = (key, harness, sig.size, sig.mtime_ns, prepared.head_hash, prepared.offset, prepared.state_json)
    (source_id,) = conn.execute(_UPSERT_SOURCE, (*row, count)).fetchone()
    orphans: set[str] = set()
    if prepared.reset:
        flush_fts(conn, pending)
        orphans = {
            r[0]
            for r in conn.execute("SELECT DISTINCT session_id FROM turns WHERE source_id = ?", (source_id,))
        }
        stats.turns_removed += conn.execute("DELETE FROM turns WHERE source_id = ?", (source_id,)).rowcount
        orphans |= {r[0] for r in conn.execute("SELECT id FROM sessions WHERE source_id = ?", (source_id,))}
    # Ids are handed out here (one writer holds the ingest lock) so each session's full-text rows
    # are known by their id range.
    ids = _Ids(conn.execute("SELECT coalesce(max(id), 0) FROM turns").fetchone()[0])
    for parsed in sessions:
        sid = _write_session(conn, source_id, parsed, stats, ids, pending)
        orphans.discard(sid)
    for sid in orphans:
        # Sessions this source no longer holds: dropped unless another source still has turns for them.
        left = conn.execute("SELECT count(*) FROM turns WHERE session_id = ?", (sid,)).fetchone()[0]
        if left == 0:
            # Ingest writes with foreign keys off (each turn's insert would look its session up),
            # so what `ON DELETE CASCADE` would take with the session goes here.
            conn.execute("DELETE FROM session_paths WHERE session_id = ?", (sid,))
            conn.execute("DELETE FROM session_mentions WHERE session_id = ?", (sid,))
            conn.execute("DELETE FROM sessions WHERE id = ?", (sid,))
        else:
            conn.execute("UPDATE sessions SET turns = ? WHERE id = ?", (left, sid))
    if not new:
        count = conn.execute("SELECT count(*) FROM turns WHERE source_id = ?", (source_id,)).fetchone()[0]
        conn.execute("UPDATE sources SET turns = ? WHERE id = ?", (count, source_id))
    return stats


def flush_fts(conn: sqlite3.Connection, pending: FtsRanges | None) -> None:
    """Write the held-back full-text rows (and forget them)."""
    if pending:
        conn.executemany(_COPY_FTS, pending)
        pending.clear()


@dataclass
class _Ids:
    """The last turn id handed out while writing, so each session's rows get a known id range."""

    last: int


def _write_session(
    conn: sqlite3.Connection,
    source_id: int,
    parsed: PreparedSession,
    stats: WriteStats,
    ids: _Ids,
    pending: FtsRanges | None,
) -> str:
    sid, harness = parsed.sid, parsed.harness
    owner = conn.execute("SELECT harness FROM sessions WHERE id = ?", (sid,)).fetchone()
    if owner is not None and owner[0] != harness:
        # Another harness already uses this id (fixtures reuse ids): qualify ours, never merge them.
        sid = f"{harness}:{sid}"
        owner = conn.execute("SELECT harness FROM sessions WHERE id = ?", (sid,)).fetchone()
    fresh = owner is None  # a session the index does not hold yet: nothing to replace or recount
    append = parsed.append
    rows = parsed.rows
    conn.execute(
        _UPSERT_SESSION_APPEND if append else _UPSERT_SESSION_REPLACE,
        (sid, harness, *parsed.meta, source_id, len(rows) if fresh else 0),
    )
    if not fresh:
        flush_fts(conn, pending)
        _clear(conn, sid, source_id, [r[0] for r in rows], append, stats)
    if rows:
        first = ids.last + 1
        ids.last += len(rows)
        conn.executemany(_INSERT_TURN, [(n, sid, source_id, *row) for n, row in enumerate(rows, first)])
        if pending is None:
            conn.execute(_COPY_FTS, (first, ids.last))
        elif pending and pending[-1][1] + 1 == first:
            pending[-1][1] = ids.last
        else:
            pending.append([first, ids.last])
        stats.turns_added += len(rows)
    paths = parsed.paths
    if not fresh and not append:
        paths = _paths_of_session(conn, sid)
    if paths:
        conn.executemany(_UPSERT_PATH, [(sid, p, e) for p, e in paths.items()])
    if parsed.mentions:
        conn.executemany(_INSERT_MENTION, [(sid, t, k) for t, k in parsed.mentions])
    if not fresh:
        conn.execute(
            "UPDATE sessions SET turns = (SELECT count(*) FROM turns WHERE session_id = ?1) WHERE id = ?1",
            (sid,),
        )
    stats.sessions.add(sid)
    return sid


def _clear(
    conn: sqlite3.Connection, sid: str, source_id: int, seqs: list[int], append: bool, stats: WriteStats
) -> None:
    """Make room for a session's new turns: an appended part replaces whatever sits at or after
    its first seq; a whole session replaces this source's turns of it (and any at the same seqs)."""
    if seqs:
        first, last = min(seqs), max(seqs)
        if append:
            stats.turns_removed += conn.execute(
                "DELETE FROM turns WHERE session_id = ? AND seq >= ?", (sid, first)
            ).rowcount
        else:
            stats.turns_removed += conn.execute(
                "DELETE FROM turns WHERE session_id = ? AND (source_id = ? OR seq BETWEEN ? AND ?)",
                (sid, source_id, first, last),
            ).rowcount
    elif not append:
        stats.turns_removed += conn.execute(
            "DELETE FROM turns WHERE session_id = ? AND source_id = ?", (sid, source_id)
        ).rowcount
    if not append:
        conn.execute("DELETE FROM session_paths WHERE session_id = ?", (sid,))
        conn.execute("DELETE FROM session_mentions WHERE session_id = ?", (sid,))


def _paths_of_session(conn: sqlite3.Connection, sid: str) -> dict[str, int]:
    """Every path the session's turns name (all sources), with whether any turn edited it."""
    paths: dict[str, int] = {}
    for paths_json, edited in conn.execute(
        "SELECT paths_json, edited FROM turns WHERE session_id = ? AND paths_json IS NOT NULL", (sid,)
    ):
        for p in json.loads(paths_json):
            if paths.get(p, 0) < edited or p not in paths:
                paths[p] = edited
    return paths
