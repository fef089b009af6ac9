"""The notes index's SQLite file: where it lives, its schema (named migrations), opening it.

Lives in `$HIPPO_HOME/notes/<hash of the worktree root>.sqlite`: a cache, never the truth (the
notes are), so a corrupt file is thrown away and rebuilt, and an unwritable home falls back to
an in-memory index.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from pathlib import Path

from hippo_git.config import Config

# meta key set while the lint facts (lint_facts.py) hold every note's, but for those in lint_dirty.
LINT_FACTS_KEY = "lint_facts"

# A migration is a script of statements split at ';', or (holding triggers) a tuple of statements.
MIGRATIONS: tuple[tuple[str, str | tuple[str, ...]], ...] = (
    (
        "0001_notes",
        """
        CREATE TABLE notes(
            id INTEGER PRIMARY KEY,
            path TEXT NOT NULL UNIQUE,
            name TEXT NOT NULL,
            title TEXT NOT NULL,
            size INTEGER NOT NULL,
            mtime_ns INTEGER NOT NULL,
            front TEXT NOT NULL,
            front_error TEXT,
            links TEXT NOT NULL
        );
        CREATE VIRTUAL TABLE notes_fts USING fts5(title, names, body, tokenize='porter unicode61');
        CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
        CREATE TABLE link_keys(tbl TEXT NOT NULL, key TEXT NOT NULL, path TEXT NOT NULL);
        CREATE INDEX link_keys_lookup ON link_keys(tbl, key);
        CREATE INDEX link_keys_path ON link_keys(path);
        """,
    ),
    (
        # Imported memories carry `origin` and `seq`: recall looks up a memory's neighbours by them.
        "0002_front_origin_seq",
        """
        CREATE INDEX notes_origin_seq ON notes(json_extract(front, '$.origin'), json_extract(front, '$.seq'));
        """,
    ),
    (
        # What the last complete look saw, folder by folder (notes_scan.py): a later look compares
        # stats with it instead of listing folders and building a manifest of every note.
        "0003_scan",
        """
        CREATE TABLE scan(
            folder TEXT PRIMARY KEY,
            mtime_ns INTEGER NOT NULL,
            names TEXT NOT NULL,
            stats BLOB NOT NULL
        );
        """,
    ),
    (
        # Each note's own share of the lint counts (lint_facts.py), kept up to date note by note
        # while no note's link keys change: ten edited notes cost ten notes' links, not 5,000.
        # Triggers keep them honest whoever writes the notes rows: a note added or removed, or
        # its path, name or title changed (what its link keys are made of), outdates every
        # note's facts; any other change outdates its own.
        "0004_lint_facts",
        (
            """CREATE TABLE lint_notes(
                path TEXT PRIMARY KEY,
                broken INTEGER NOT NULL,
                ambiguous INTEGER NOT NULL,
                title_key TEXT NOT NULL
            )""",
            "CREATE INDEX lint_notes_title ON lint_notes(title_key)",
            "CREATE TABLE lint_links(src TEXT NOT NULL, dst TEXT NOT NULL)",
            "CREATE INDEX lint_links_src ON lint_links(src)",
            "CREATE INDEX lint_links_dst ON lint_links(dst)",
            "CREATE TABLE lint_dirty(path TEXT PRIMARY KEY)",
            f"""CREATE TRIGGER lint_facts_added AFTER INSERT ON notes
                BEGIN DELETE FROM meta WHERE key = '{LINT_FACTS_KEY}'; END""",
            f"""CREATE TRIGGER lint_facts_removed AFTER DELETE ON notes
                BEGIN DELETE FROM meta WHERE key = '{LINT_FACTS_KEY}'; END""",
            f"""CREATE TRIGGER lint_facts_keys AFTER UPDATE OF path, name, title ON notes
                WHEN old.path IS NOT new.path OR old.name IS NOT new.name OR old.title IS NOT new.title
                BEGIN DELETE FROM meta WHERE key = '{LINT_FACTS_KEY}'; END""",
            """CREATE TRIGGER lint_facts_edited AFTER UPDATE ON notes
                BEGIN INSERT OR IGNORE INTO lint_dirty(path) VALUES (new.path); END""",
        ),
    ),
)


def _fnv1a64(data: bytes) -> int:
    # A stable hash without loading hashlib/OpenSSL (~2.5 ms) on the agent-hook path.
    value = 0xCBF29CE484222325
    for byte in data:
        value = ((value ^ byte) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return value


def index_file(cfg: Config) -> Path:
    """`$HIPPO_HOME/notes/<hash of the worktree root>.sqlite`: one index per worktree."""
    return cfg.home / "notes" / f"{_fnv1a64(str(cfg.root).encode('utf-8')):016x}.sqlite"


def _migrate(conn: sqlite3.Connection) -> None:
    conn.execute("CREATE TABLE IF NOT EXISTS migrations(name TEXT PRIMARY KEY, applied_at TEXT NOT NULL)")
    done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
    for name, sql in MIGRATIONS:
        if name in done:
            continue
        with conn:
            for statement in sql.split(";") if isinstance(sql, str) else sql:
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (name,))


def connect(path: Path | str) -> sqlite3.Connection:
    conn = sqlite3.connect(str(path), timeout=10.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    if str(path) != ":memory:":
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("PRAGMA synchronous = NORMAL")
    _migrate(conn)
    return conn


def open_notes_index(cfg: Config) -> sqlite3.Connection:
    """Open (creating or rebuilding when unreadable) this workspace's notes index.

    Falls back to an in-memory index when $HIPPO_HOME cannot be written: slower, never wrong.
    """
    path = index_file(cfg)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        try:
            return connect(path)
        except sqlite3.DatabaseError:
            # A cache: a corrupt or foreign file is thrown away and rebuilt from the notes.
            from hippo_git.index.db import remove_database

            remove_database(path)
            return connect(path)
    except (OSError, sqlite3.OperationalError):
        return connect(":memory:")


def lint_cache_key(cfg: Config) -> str:
    """Cached lint counts depend on these settings as well as on the notes."""
    return "lint:" + json.dumps(
        [cfg.notes_dir, cfg.notes_max_bytes, cfg.context.entry, list(cfg.context.required)]
    )


def get_meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def set_meta(conn: sqlite3.Connection, key: str, value: str) -> None:
    # A busy or read-only cache only costs a recomputation next time.
    with contextlib.suppress(sqlite3.OperationalError):
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))
