"""The transcript index: one SQLite file, opened in WAL mode, with named migrations.

Writers (ingest) migrate on open; readers (search, context, MCP) open read-only and never write,
so they keep working while an ingest holds the write lock. This module is on the agent-hook
path: it imports only the standard library.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from urllib.parse import quote

from hippo_git.errors import HippoError

BUSY_TIMEOUT_MS = 5000


class IndexMissingError(HippoError):
    """There is no index file yet (nothing was ingested on this machine)."""


# Named migrations, applied in order, each once. A shipped migration is never edited: a schema
# change is a new entry. `turns.id` is an explicit INTEGER PRIMARY KEY because the FTS table is an
# external-content index keyed by it, and VACUUM may renumber implicit rowids. Deletes and updates
# keep the FTS index in step through triggers; inserts are written to it by `index.writer`
# directly (one executemany per source: a per-row trigger made bulk ingest three times slower).
MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "0001-initial",
        (
            """CREATE TABLE sources(
                id INTEGER PRIMARY KEY,
                path TEXT NOT NULL UNIQUE,
                harness TEXT NOT NULL,
                size INTEGER NOT NULL DEFAULT 0,
                mtime_ns INTEGER NOT NULL DEFAULT 0,
                head_hash TEXT,
                offset INTEGER NOT NULL DEFAULT 0,
                state_json TEXT NOT NULL DEFAULT '{}',
                turns INTEGER NOT NULL DEFAULT 0,
                ingested_at TEXT,
                error TEXT
            )""",
            """CREATE TABLE sessions(
                id TEXT PRIMARY KEY,
                harness TEXT NOT NULL,
                cwd TEXT,
                title TEXT,
                started TEXT,
                ended TEXT,
                parent_id TEXT,
                model TEXT,
                git_branch TEXT,
                turns INTEGER NOT NULL DEFAULT 0,
                source_id INTEGER,
                updated_at TEXT
            )""",
            "CREATE INDEX sessions_started ON sessions(started)",
            "CREATE INDEX sessions_cwd ON sessions(cwd)",
            "CREATE INDEX sessions_source ON sessions(source_id)",
            """CREATE TABLE turns(
                id INTEGER PRIMARY KEY,
                session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                seq INTEGER NOT NULL,
                kind TEXT NOT NULL,
                text TEXT NOT NULL,
                ts TEXT,
                tool TEXT,
                is_error INTEGER NOT NULL DEFAULT 0,
                source_id INTEGER,
                paths_json TEXT,
                edited INTEGER NOT NULL DEFAULT 0,
                UNIQUE(session_id, seq)
            )""",
            "CREATE INDEX turns_source ON turns(source_id)",
            """CREATE VIRTUAL TABLE turns_fts USING fts5(
                text, content='turns', content_rowid='id',
                tokenize='porter unicode61 remove_diacritics 2'
            )""",
            """CREATE TRIGGER turns_fts_delete AFTER DELETE ON turns BEGIN
                INSERT INTO turns_fts(turns_fts, rowid, text) VALUES ('delete', old.id, old.text);
            END""",
            """CREATE TRIGGER turns_fts_update AFTER UPDATE OF text ON turns BEGIN
                INSERT INTO turns_fts(turns_fts, rowid, text) VALUES ('delete', old.id, old.text);
                INSERT INTO turns_fts(rowid, text) VALUES (new.id, new.text);
            END""",
            # Which files a session read or edited (from tool inputs), for notes_touched/files_edited.
            """CREATE TABLE session_paths(
                session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                path TEXT NOT NULL,
                edited INTEGER NOT NULL DEFAULT 0,
                PRIMARY KEY(session_id, path)
            ) WITHOUT ROWID""",
            "CREATE INDEX session_paths_path ON session_paths(path)",
            # Notes a session cited in its text: `[[link]]` targets (kind 'link') and `*.md` paths ('path').
            """CREATE TABLE session_mentions(
                session_id TEXT NOT NULL REFERENCES sessions(id) ON DELETE CASCADE,
                target TEXT NOT NULL,
                kind TEXT NOT NULL,
                PRIMARY KEY(session_id, target, kind)
            ) WITHOUT ROWID""",
            "CREATE INDEX session_mentions_target ON session_mentions(target)",
        ),
    ),
    # A session's subagents and forks, looked up per session by the rollup (a scan of every
    # session each time made the rollup quadratic in the number of sessions).
    ("0002-sessions-parent", ("CREATE INDEX sessions_parent ON sessions(parent_id)",)),
    # Every ingest reads the signature of every known source; their rows also hold the cursor
    # state (most of a row), so a covering index makes that read a tenth of the pages.
    ("0003-sources-signature", ("CREATE INDEX sources_signature ON sources(path, size, mtime_ns)",)),
)
MIGRATION_NAMES = tuple(name for name, _ in MIGRATIONS)
# Indexes only ingest reads through: a reader (search, an agent hook) of an index the last ingest
# wrote before they existed works as well without them, so it does not ask for an ingest first.
WRITER_ONLY = frozenset({"0003-sources-signature"})


def connect(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """Open the index. A write open creates and migrates it; a read-only open never writes.

    Connections are in autocommit mode (`isolation_level=None`): callers open their own
    transactions (`BEGIN IMMEDIATE` for writes) so a file's turns and its cursor commit together.
    """
    if readonly:
        return _connect_readonly(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
        conn.execute("PRAGMA foreign_keys = ON")
        conn.execute("PRAGMA temp_store = MEMORY")
        conn.execute("PRAGMA cache_size = -32768")
        migrate(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise HippoError(
            f"the index {path} cannot be opened: {exc}",
            hint="rebuild it with `git hippo ingest --full`",
        ) from None
    return conn


def _connect_readonly(path: Path) -> sqlite3.Connection:
    if not path.exists():
        raise IndexMissingError(
            f"no transcript index yet at {path}", hint="run `git hippo ingest` to build it"
        )
    uri = f"file:{quote(str(path))}?mode=ro"
    conn = sqlite3.connect(uri, uri=True, isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    try:
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        conn.execute("PRAGMA query_only = ON")
        missing = set(MIGRATION_NAMES) - WRITER_ONLY - applied_migrations(conn)
    except sqlite3.DatabaseError as exc:
        conn.close()
        raise HippoError(
            f"the index {path} cannot be read: {exc}",
            hint="rebuild it with `git hippo ingest --full`",
        ) from None
    if missing:
        conn.close()
        raise HippoError(
            f"the index {path} has an older schema (missing {', '.join(sorted(missing))})",
            hint="run `git hippo ingest` to upgrade it",
        )
    return conn


def applied_migrations(conn: sqlite3.Connection) -> set[str]:
    exists = conn.execute(
        "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'migrations'"
    ).fetchone()
    if not exists:
        return set()
    return {row[0] for row in conn.execute("SELECT name FROM migrations")}


Migrations = Sequence[tuple[str, Sequence[str]]]


def migrate(conn: sqlite3.Connection, migrations: Migrations = MIGRATIONS) -> list[str]:
    """Apply the named migrations this database lacks (the index's by default; the other SQLite
    caches pass their own), each in its own write transaction; returns their names. `conn` must be
    in autocommit mode (isolation_level None)."""
    conn.execute("CREATE TABLE IF NOT EXISTS migrations(name TEXT PRIMARY KEY, applied TEXT NOT NULL)")
    done: list[str] = []
    for name, statements in migrations:
        if name in applied_migrations(conn):
            continue
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Re-checked inside the transaction: another writer may have migrated meanwhile.
            if conn.execute("SELECT 1 FROM migrations WHERE name = ?", (name,)).fetchone() is None:
                for statement in statements:
                    conn.execute(statement)
                conn.execute(
                    "INSERT INTO migrations(name, applied) VALUES (?, strftime('%Y-%m-%dT%H:%M:%SZ', 'now'))",
                    (name,),
                )
                done.append(name)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
    return done


def schema_is_current(conn: sqlite3.Connection) -> bool:
    """True when every known migration is applied (for `doctor`)."""
    return set(MIGRATION_NAMES) <= applied_migrations(conn)


def remove_database(path: Path | str) -> None:
    """Delete a SQLite file with its WAL, shared-memory and journal files (those not there are
    skipped): a stray `-wal` or hot `-journal` left beside a new file would be replayed onto it."""
    for suffix in ("", "-wal", "-shm", "-journal"):
        with contextlib.suppress(FileNotFoundError):
            os.unlink(f"{path}{suffix}")
