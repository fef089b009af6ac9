"""Per-person usage of memories in `$HIPPO_HOME/usage.sqlite`: recalls, outcomes, the last recall.

Strength and decay are computed from these figures at recall time, so they never rewrite a
shared file and never cause a merge conflict. Named migrations, WAL, a busy timeout.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from hippo_git.index.db import migrate

USAGE_FILE = "usage.sqlite"
RECALL_FACTOR = 1.5  # each recall extends the half-life by this factor
GOOD_FACTOR = 2.0
BAD_FACTOR = 0.5
MAX_FACTOR = 64.0
MIN_FACTOR = 1 / 16

MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "0001_usage",
        (
            """CREATE TABLE usage(
                id TEXT PRIMARY KEY,
                recalls INTEGER NOT NULL DEFAULT 0,
                last_recalled TEXT,
                good INTEGER NOT NULL DEFAULT 0,
                bad INTEGER NOT NULL DEFAULT 0,
                factor REAL NOT NULL DEFAULT 1.0
            )""",
            "CREATE TABLE last_recall(id TEXT PRIMARY KEY, at TEXT NOT NULL)",
        ),
    ),
)


class Usage(NamedTuple):
    recalls: int = 0
    last_recalled: str | None = None
    good: int = 0
    bad: int = 0
    factor: float = 1.0  # multiplies the memory's half-life

    def as_dict(self) -> dict[str, object]:
        return self._asdict()


def usage_path(home: Path) -> Path:
    return home / USAGE_FILE


def connect(home: Path) -> sqlite3.Connection:
    home.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(usage_path(home)), timeout=10.0, isolation_level=None)
    conn.execute("PRAGMA busy_timeout = 10000")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    migrate(conn, MIGRATIONS)
    return conn


def get_usage(conn: sqlite3.Connection, ids: Iterable[str]) -> dict[str, Usage]:
    wanted = list(dict.fromkeys(ids))
    out: dict[str, Usage] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        sql = f"SELECT id, recalls, last_recalled, good, bad, factor FROM usage WHERE id IN ({marks})"
        for row in conn.execute(sql, chunk):
            out[row[0]] = Usage(*row[1:])
    return out


def record_recall(conn: sqlite3.Connection, ids: list[str], at: str) -> None:
    """Count a recall of each memory, extend its half-life, and remember them as the last recalled."""
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany(
            "INSERT INTO usage(id, recalls, last_recalled, factor) VALUES (?, 1, ?, ?)"
            " ON CONFLICT(id) DO UPDATE SET recalls = recalls + 1, last_recalled = excluded.last_recalled,"
            " factor = min(factor * ?, ?)",
            [(i, at, RECALL_FACTOR, RECALL_FACTOR, MAX_FACTOR) for i in ids],
        )
        if ids:
            conn.execute("DELETE FROM last_recall")
            conn.executemany(
                "INSERT OR REPLACE INTO last_recall(id, at) VALUES (?, ?)", [(i, at) for i in ids]
            )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def last_recalled(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT id FROM last_recall ORDER BY rowid")]


def record_outcome(conn: sqlite3.Connection, ids: list[str], good: bool) -> None:
    """Strengthen (good) or weaken (bad) each memory: its half-life factor doubles or halves."""
    column = "good" if good else "bad"
    factor = GOOD_FACTOR if good else BAD_FACTOR
    conn.execute("BEGIN IMMEDIATE")
    try:
        conn.executemany(
            f"INSERT INTO usage(id, {column}, factor) VALUES (?, 1, ?)"
            f" ON CONFLICT(id) DO UPDATE SET {column} = {column} + 1,"
            " factor = max(min(factor * ?, ?), ?)",
            [(i, factor, factor, MAX_FACTOR, MIN_FACTOR) for i in ids],
        )
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
