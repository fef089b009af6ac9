"""The rollup (brought up to date) and the transcript index, opened read-only together: what every
signals view reads (the CLI's commands and the web view)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hippo_git.config import Config
from hippo_git.index import db
from hippo_git.signals.rollup import ensure_rollup, open_rollup_readonly, rollup_path


def index_signature(cfg: Config) -> str:
    """Changes whenever the index does (its file and write-ahead log): what the rollup follows."""
    parts = []
    for path in (cfg.index_path, cfg.index_path.with_name(cfg.index_path.name + "-wal")):
        try:
            st = path.stat()
            parts.append(f"{st.st_mtime_ns}:{st.st_size}")
        except OSError:
            parts.append("-")
    return "/".join(parts)


@contextmanager
def open_views(
    cfg: Config, progress: Callable[[int, int], None] | None = None, *, update: bool = True
) -> Iterator[tuple[sqlite3.Connection, sqlite3.Connection | None]]:
    """(rollup, index or None when there is no index yet), both closed afterwards. `update=False`
    skips bringing the rollup up to date (a caller that knows the index has not changed since)."""
    existing = open_rollup_readonly(rollup_path(cfg)) if not update else None
    conn = existing if existing is not None else ensure_rollup(cfg, progress)
    try:
        index: sqlite3.Connection | None = db.connect(cfg.index_path, readonly=True)
    except db.IndexMissingError:
        index = None
    try:
        yield conn, index
    finally:
        conn.close()
        if index is not None:
            index.close()
