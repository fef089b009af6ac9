"""The rollup's cross-session incidents (the rules of `rules_cross.py`) kept up to date from its stored edits.

The edits are read a group at a time, never whole: by path for overlapping edits, by base name
for redone ones. After a full build every group is redone; after an update only those holding a
path that the recomputed or removed sessions edit, before or after (`touch` gathers them).
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterable, Iterator
from itertools import groupby
from operator import attrgetter
from typing import Any

from hippo_git.signals import rules_cross
from hippo_git.signals.rollup_facts import EditRow, Incident, SessionSpan

SCOPED_PATHS = 2000  # past this many touched paths, one pass over every edit is cheaper


def touch(conn: sqlite3.Connection, touched: set[str] | None, sid: str) -> set[str] | None:
    """`touched` and the paths `sid` has edits of; None (every path) once they are too many."""
    if touched is None:
        return None
    touched.update(r[0] for r in conn.execute("SELECT DISTINCT path FROM edits WHERE session_id = ?", (sid,)))
    return touched if len(touched) <= SCOPED_PATHS else None


_EDITS = "SELECT session_id, seq, ts, path, digest, at FROM edits"


def update(conn: sqlite3.Connection, paths: set[str] | None) -> None:
    """Recompute the cross-session incidents on `paths` (None: everywhere) from the stored edits,
    a group at a time: by path for overlapping edits, by base name for redone ones (an edit is
    redone by the same change to a file of the same name anywhere)."""
    wins = rules_cross.windows(
        SessionSpan(*r) for r in conn.execute("SELECT id, started, ended, parent_id FROM sessions")
    )
    by_path: Iterable[tuple[Any, ...]]
    by_name: Iterable[tuple[Any, ...]]
    if paths is None:
        conn.execute("DELETE FROM incidents WHERE cross_session = 1")
        by_path = conn.execute(_EDITS + " ORDER BY path")
        by_name = conn.execute(_EDITS + " WHERE digest != '' ORDER BY name")
    else:
        names = sorted({os.path.basename(p) for p in paths})
        # Every redone incident on a file of these names, and every overlap on these paths, goes.
        named = {
            r[0]
            for name in names
            for r in conn.execute("SELECT DISTINCT path FROM edits WHERE name = ?", (name,))
        }
        conn.executemany(
            "DELETE FROM incidents WHERE cross_session = 1 AND path = ? AND rule = ?",
            [(p, "overlapping_edits") for p in paths] + [(p, "redone_edit") for p in named | paths],
        )
        by_path = (r for p in sorted(paths) for r in conn.execute(_EDITS + " WHERE path = ?", (p,)))
        by_name = (r for n in names for r in conn.execute(_EDITS + " WHERE name = ? AND digest != ''", (n,)))

    def found() -> Iterator[tuple[str, Incident]]:
        for path, group in groupby((EditRow(*r) for r in by_path), key=attrgetter("path")):
            yield from rules_cross.overlapping_edits(path, group, wins)
        for _, group in groupby((EditRow(*r) for r in by_name), key=lambda e: os.path.basename(e.path)):
            yield from rules_cross.redone_edits(group, wins)

    conn.executemany(
        "INSERT INTO incidents VALUES (?,?,?,?,?,?,?,?,?,?,1)",
        (
            (sid, i.seq, i.cause, i.ts, i.kind, i.rule, i.summary, i.excerpt, i.path, i.other_session)
            for sid, i in found()
        ),
    )
