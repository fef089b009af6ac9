"""Episode summaries: what a captured stretch of a session decided, preferred and left to do.

Stored as turns of their own kind (`episode`) in the session they summarise, so search finds
them like any turn. They belong to no source (`source_id` NULL) and take negative `seq` numbers,
so re-reading the session's transcript (which replaces its source's turns, or those at and after
an appended part's first seq) never removes them. The caller holds the ingest lock and passes
text that went through redaction (invariant 2).
"""

from __future__ import annotations

import sqlite3

EPISODE = "episode"


def write_episode(conn: sqlite3.Connection, session_id: str, text: str, ts: str | None) -> bool:
    """Add one episode turn; False when the index does not hold the session (nothing to attach to)."""
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (session_id,)).fetchone() is None:
        return False
    conn.execute("BEGIN IMMEDIATE")
    try:
        (low,) = conn.execute(
            "SELECT coalesce(min(seq), 0) FROM turns WHERE session_id = ? AND seq < 0", (session_id,)
        ).fetchone()
        (last,) = conn.execute("SELECT coalesce(max(id), 0) FROM turns").fetchone()
        turn_id = int(last) + 1
        conn.execute(
            "INSERT INTO turns(id, session_id, source_id, seq, kind, text, ts, tool, is_error, paths_json,"
            " edited) VALUES (?, ?, NULL, ?, ?, ?, ?, NULL, 0, NULL, 0)",
            (turn_id, session_id, int(low) - 1, EPISODE, text, ts),
        )
        conn.execute("INSERT INTO turns_fts(rowid, text) VALUES (?, ?)", (turn_id, text))
        conn.execute(
            "UPDATE sessions SET turns = (SELECT count(*) FROM turns WHERE session_id = ?1) WHERE id = ?1",
            (session_id,),
        )
        conn.execute("COMMIT")
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    return True


def episodes(conn: sqlite3.Connection, session_id: str) -> list[str]:
    """The session's episode texts, oldest first."""
    rows = conn.execute(
        "SELECT text FROM turns WHERE session_id = ? AND kind = ? ORDER BY seq DESC", (session_id, EPISODE)
    )
    return [str(r[0]) for r in rows]
