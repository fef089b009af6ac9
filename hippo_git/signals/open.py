"""The rollup (brought up to date) and the transcript index, opened read-only together: what every
signals view reads (the CLI's commands and the web view)."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from hippo_git.config import Config
from hippo_git.index import db
from hippo_git.signals.rollup import ensure_rollup


@contextmanager
def open_views(
    cfg: Config, progress: Callable[[int, int], None] | None = None
) -> Iterator[tuple[sqlite3.Connection, sqlite3.Connection | None]]:
    """(rollup, index or None when there is no index yet), both closed afterwards."""
    conn = ensure_rollup(cfg, progress)
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
