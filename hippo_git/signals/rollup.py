"""`$HIPPO_HOME/rollup.sqlite`: per-session facts computed from the index by `rules*.py`, no model.

A cache. Its `format_version` (meta table) names the rules that filled it: when the code's
`FORMAT_VERSION` differs, the file is deleted and rebuilt. Each session row keeps a signature of
the index's turns for it (count, last seq, sum of row ids) and of the transcript they came from (size,
mtime: a file re-read whole can give its turns the same row ids again), so an update recomputes only
sessions whose turns changed, their parents (a delegated session's runs are evidence for the
parent's claims), and then the cross-session incidents on the paths those sessions edit.

The facts are computed by `rollup_compute` (a large build shares that with a worker process, see
`rollup_pool`) and written here, a batch of sessions per statement and table.
"""

from __future__ import annotations

import fcntl
import hashlib
import os
import sqlite3
import time
from collections.abc import Callable, Collection, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hippo_git.config import Config
from hippo_git.errors import HippoError
from hippo_git.index import db
from hippo_git.signals import rollup_cross, rollup_pool
from hippo_git.signals.rollup_compute import FACT_TABLES, SessionRows

FORMAT_VERSION = "4"
ROLLUP_FILE = "rollup.sqlite"
BATCH_SECONDS = 2.0
BATCH_SESSIONS = 500  # rows of this many sessions are written together

SCHEMA = (
    "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE sessions(
        id TEXT PRIMARY KEY, harness TEXT NOT NULL, cwd TEXT, title TEXT, started TEXT, ended TEXT,
        parent_id TEXT, signature TEXT NOT NULL, turns INTEGER NOT NULL,
        work_seconds REAL NOT NULL, wall_seconds REAL NOT NULL, wait_seconds REAL NOT NULL,
        user_waits INTEGER NOT NULL, task TEXT, outcome TEXT)""",
    "CREATE INDEX sessions_cwd ON sessions(cwd)",
    "CREATE INDEX sessions_started ON sessions(started)",
    # `at`: `ts` as an epoch, and `name`: the path's base name, for the cross-session rules.
    """CREATE TABLE edits(session_id TEXT NOT NULL, seq INTEGER, ts TEXT, path TEXT, added INTEGER, removed INTEGER,
        digest TEXT, at REAL, name TEXT)""",
    "CREATE INDEX edits_session ON edits(session_id)",
    "CREATE INDEX edits_path ON edits(path)",
    "CREATE INDEX edits_name ON edits(name) WHERE digest != ''",
    """CREATE TABLE commands(session_id TEXT NOT NULL, seq INTEGER, out_seq INTEGER, ts TEXT, command TEXT,
        categories TEXT, exit INTEGER)""",
    "CREATE INDEX commands_session ON commands(session_id)",
    "CREATE TABLE waits(session_id TEXT NOT NULL, seq INTEGER, ts TEXT, seconds REAL, for_user INTEGER)",
    "CREATE INDEX waits_session ON waits(session_id)",
    "CREATE TABLE prs(session_id TEXT NOT NULL, seq INTEGER, ts TEXT, action TEXT, url TEXT)",
    "CREATE INDEX prs_session ON prs(session_id)",
    """CREATE TABLE claims(session_id TEXT NOT NULL, seq INTEGER, ts TEXT, kind TEXT, text TEXT, status TEXT,
        ev_session TEXT, ev_seq INTEGER, ev_out_seq INTEGER, ev_command TEXT, ev_exit INTEGER)""",
    "CREATE INDEX claims_session ON claims(session_id)",
    """CREATE TABLE incidents(session_id TEXT NOT NULL, seq INTEGER, cause INTEGER, ts TEXT, kind TEXT, rule TEXT,
        summary TEXT, excerpt TEXT, path TEXT, other_session TEXT, cross_session INTEGER NOT NULL DEFAULT 0)""",
    "CREATE INDEX incidents_session ON incidents(session_id)",
    "CREATE INDEX incidents_other ON incidents(other_session)",
    "CREATE INDEX incidents_cross ON incidents(path) WHERE cross_session = 1",
)

Progress = Callable[[int, int], None]  # (sessions done, sessions to do)


@dataclass
class RollupSummary:
    """What a rollup refresh did: sessions recomputed or removed, whether the file was rebuilt, time taken."""

    sessions: int = 0  # sessions the index holds
    recomputed: int = 0
    removed: int = 0
    rebuilt: bool = False  # the file was (re)created: new, older format, or unreadable
    cross_incidents: int = 0
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "sessions": self.sessions,
            "recomputed": self.recomputed,
            "removed": self.removed,
            "rebuilt": self.rebuilt,
            "cross_session_incidents": self.cross_incidents,
            "seconds": round(self.seconds, 3),
        }


def rollup_path(cfg: Config) -> Path:
    return cfg.home / ROLLUP_FILE


def _open(path: Path) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=db.BUSY_TIMEOUT_MS / 1000)
    conn.execute(f"PRAGMA busy_timeout = {db.BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    return conn


def _current(conn: sqlite3.Connection) -> bool:
    try:
        row = conn.execute("SELECT value FROM meta WHERE key = 'format_version'").fetchone()
    except sqlite3.DatabaseError:
        return False
    return row is not None and row[0] == FORMAT_VERSION


def open_rollup(path: Path) -> tuple[sqlite3.Connection, bool]:
    """The rollup for writing, and whether it was (re)created: a file of another format version,
    or one SQLite cannot read, is deleted and made afresh (it is a cache)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    existed = path.exists()
    if existed:
        try:
            conn = _open(path)
            if _current(conn):
                return conn, False
            conn.close()
        except sqlite3.DatabaseError:
            pass
        db.remove_database(path)
    conn = _open(path)
    conn.execute("BEGIN IMMEDIATE")
    for statement in SCHEMA:
        conn.execute(statement)
    conn.execute("INSERT INTO meta(key, value) VALUES ('format_version', ?)", (FORMAT_VERSION,))
    conn.execute("COMMIT")
    return conn, True


def open_rollup_readonly(path: Path) -> sqlite3.Connection | None:
    """The rollup for reading, or None when it is absent or of another format (not built yet)."""
    if not path.exists():
        return None
    from urllib.parse import quote

    try:
        conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, isolation_level=None, timeout=5)
        conn.execute(f"PRAGMA busy_timeout = {db.BUSY_TIMEOUT_MS}")
    except sqlite3.DatabaseError:
        return None
    if not _current(conn):
        conn.close()
        return None
    return conn


@contextmanager
def _locked(path: Path) -> Iterator[None]:
    """One updater at a time; a second one waits, then finds (almost) nothing left to do."""
    lock = path.with_name(path.name + ".lock")
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)


# Correlated subqueries, not a join with turns grouped by session: that grouped every turn of the
# index even to look up one session.
_INDEX_SESSIONS = """
SELECT s.id, s.harness, s.cwd, s.title, s.started, s.ended, s.parent_id,
       (SELECT count(*) FROM turns t WHERE t.session_id = s.id),
       coalesce((SELECT max(seq) FROM turns t WHERE t.session_id = s.id), -1),
       coalesce((SELECT sum(id) FROM turns t WHERE t.session_id = s.id), 0), src.size, src.mtime_ns
FROM sessions s LEFT JOIN sources src ON src.id = s.source_id
"""


def _signature(row: tuple[Any, ...]) -> str:
    text = "\x1f".join("" if v is None else str(v) for v in (FORMAT_VERSION, *row[1:]))
    return hashlib.sha256(text.encode("utf-8", "surrogateescape")).hexdigest()[:32]


def update_rollup(
    cfg: Config, changed_session_ids: Collection[str] | None = None, *, progress: Progress | None = None
) -> RollupSummary:
    """Bring the rollup up to date with the index. `changed_session_ids`: only these sessions can
    have changed (ingest knows); None checks every session's signature (cheap: one scan of turns)."""
    started = time.monotonic()
    summary = RollupSummary()
    path = rollup_path(cfg)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        index = db.connect(cfg.index_path, readonly=True)
    except db.IndexMissingError:
        index = None
    with _locked(path):
        conn, summary.rebuilt = open_rollup(path)
        try:
            if index is not None:
                # A new or rebuilt rollup knows nothing yet: every session is to compute.
                changed = None if summary.rebuilt else changed_session_ids
                _update(index, cfg, conn, changed, summary, progress)
        finally:
            conn.close()
            if index is not None:
                index.close()
    summary.seconds = time.monotonic() - started
    return summary


def _update(
    index: sqlite3.Connection,
    cfg: Config,
    conn: sqlite3.Connection,
    changed: Collection[str] | None,
    summary: RollupSummary,
    progress: Progress | None,
) -> None:
    sql, params = _INDEX_SESSIONS, []
    if changed is not None and len(changed) > 500:
        changed = None  # checking every signature is as cheap as a long IN list
    if changed is not None:
        ids = sorted(set(changed))
        sql += f" WHERE s.id IN ({','.join('?' * len(ids))})" if ids else " WHERE 0"
        params = ids
    rows = {r[0]: r for r in index.execute(sql, params)}
    summary.sessions = index.execute("SELECT count(*) FROM sessions").fetchone()[0]
    known = dict(conn.execute("SELECT id, signature FROM sessions").fetchall())
    todo = {sid for sid, row in rows.items() if known.get(sid) != _signature(row)}
    scope = set(known) if changed is None else set(changed)
    gone = {sid for sid in scope if sid in known and sid not in rows}
    # A delegated session's runs are evidence for its parent's claims: recompute the parent too.
    parents = {rows[sid][6] for sid in todo if rows[sid][6]}
    parents |= {
        r[0]
        for sid in gone
        for r in conn.execute("SELECT parent_id FROM sessions WHERE id = ?", (sid,))
        if r[0]
    }
    for parent in parents - todo:
        row = rows.get(parent) or index.execute(_INDEX_SESSIONS + " WHERE s.id = ?", (parent,)).fetchone()
        if row is not None:
            rows[parent] = row
            todo.add(parent)
    if not todo and not gone:
        return
    # The cross-session rules need redoing only on the paths these sessions edit, before and after.
    touched: set[str] | None = None if summary.rebuilt else set()
    out = _Writer(conn, fresh=summary.rebuilt)
    batch_start = time.monotonic()
    conn.execute("BEGIN IMMEDIATE")
    try:
        for sid in gone:
            touched = rollup_cross.touch(conn, touched, sid)
            _delete(conn, sid)
        summary.removed = len(gone)
        cwds = {sid: rows[sid][2] for sid in todo}
        for n, computed in enumerate(
            rollup_pool.computed_rows(index, cfg.index_path, cwds, summary.sessions, cfg.ingest_workers), 1
        ):
            touched = rollup_cross.touch(conn, touched, computed.sid)  # before `out` replaces its edits
            out.add(rows[computed.sid], computed)
            if touched is not None:
                touched.update(computed.edited)
            summary.recomputed += 1
            if time.monotonic() - batch_start >= BATCH_SECONDS:
                out.flush()
                conn.execute("COMMIT")
                conn.execute("BEGIN IMMEDIATE")
                batch_start = time.monotonic()
            elif len(out.sessions) >= BATCH_SESSIONS:
                out.flush()
            if progress is not None:
                progress(n, len(todo))
        out.flush()
        rollup_cross.update(conn, touched)
        summary.cross_incidents = conn.execute(
            "SELECT count(*) FROM incidents WHERE cross_session = 1"
        ).fetchone()[0]
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise


def _delete(conn: sqlite3.Connection, sid: str) -> None:
    for table in FACT_TABLES:
        conn.execute(f"DELETE FROM {table} WHERE session_id = ?", (sid,))
    conn.execute("DELETE FROM sessions WHERE id = ?", (sid,))


_INSERT = {
    "edits": "INSERT INTO edits VALUES (?,?,?,?,?,?,?,?,?)",
    "commands": "INSERT INTO commands VALUES (?,?,?,?,?,?,?)",
    "waits": "INSERT INTO waits VALUES (?,?,?,?,?)",
    "prs": "INSERT INTO prs VALUES (?,?,?,?,?)",
    "claims": "INSERT INTO claims VALUES (?,?,?,?,?,?,?,?,?,?,?)",
    "incidents": "INSERT INTO incidents VALUES (?,?,?,?,?,?,?,?,?,?,0)",
}


class _Writer:
    """Sessions' rows gathered a batch at a time, then written one statement per table (an
    INSERT per session and table cost more than computing the facts of most sessions)."""

    def __init__(self, conn: sqlite3.Connection, *, fresh: bool) -> None:
        self.conn = conn
        self.fresh = fresh  # a new rollup holds nothing to replace
        self.sessions: list[tuple[Any, ...]] = []
        self.tables: tuple[list[tuple[Any, ...]], ...] = tuple([] for _ in FACT_TABLES)

    def add(self, row: tuple[Any, ...], computed: SessionRows) -> None:
        """`row`: the session's row of `_INDEX_SESSIONS`."""
        self.sessions.append((*row[:7], _signature(row), int(row[7]), *computed.values))
        for rows, more in zip(self.tables, computed.tables, strict=True):
            rows += more

    def flush(self) -> None:
        if not self.fresh:
            for row in self.sessions:
                _delete(self.conn, row[0])
        self.conn.executemany("INSERT INTO sessions VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)", self.sessions)
        self.sessions.clear()
        for table, rows in zip(FACT_TABLES, self.tables, strict=True):
            if rows:
                self.conn.executemany(_INSERT[table], rows)
                rows.clear()


def ensure_rollup(cfg: Config, progress: Progress | None = None) -> sqlite3.Connection:
    """The rollup, brought up to date first, opened read-only for a view."""
    try:
        update_rollup(cfg, progress=progress)
    except sqlite3.DatabaseError as exc:
        raise HippoError(
            f"the rollup {rollup_path(cfg)} cannot be updated: {exc}",
            hint="delete it; the next command rebuilds it",
        ) from None
    conn = open_rollup_readonly(rollup_path(cfg))
    if conn is None:
        raise HippoError(f"the rollup {rollup_path(cfg)} could not be built", hint="run `git hippo ingest`")
    return conn
