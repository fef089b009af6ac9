"""How a search query's words become the candidates FTS5 ranks, within a bound on BM25's work.

BM25 costs one to three microseconds per matching turn, and FTS5 computes each word's IDF by
walking its whole posting list, so a word found in a large share of a big index would make every
query that holds it slow. `plan_words` counts the words (cheaply, capped) and picks the expression FTS5
ranks; `filter_band` narrows a folder or session filter to the band of turn ids its sessions hold.
"""

from __future__ import annotations

import math
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import dataclass

from hippo_git.index.query import Terms, quote
from hippo_git.index.sessions import session_filters

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any

MATCH_BUDGET = 5_000  # matches ranked in full per query; past it the rarer words pick the candidates
RECENT = 2_000  # turns ranked for a query whose every word is over the budget, most recent first
BAND_TURNS = 100_000  # a filter keeping more turns than this is not narrowed to its rowid band
BAND_SESSIONS = 2_000  # … nor one keeping more sessions than this
_LAST_ROWID = 2**63 - 1


@dataclass(frozen=True)
class Plan:
    """How FTS5 finds a query's candidates: `expression` ranked by BM25 (only rows with rowid ≥
    rowids` (first, last) when set), and the words left out of it with their IDF (`common`)."""

    expression: str
    common: tuple[tuple[str, float], ...] = ()
    rowids: tuple[int, int] | None = None


def fts_where(expression: str, rowids: tuple[int, int] | None) -> tuple[str, list[Any]]:
    """The condition on `turns_fts` (and its parameters): FTS5 seeks to rowid bounds itself, so
    the turns outside them cost nothing."""
    if rowids is None:
        return "turns_fts MATCH ?", [expression]
    return "turns_fts MATCH ? AND rowid BETWEEN ? AND ?", [expression, *rowids]


def filter_band(
    conn: sqlite3.Connection,
    session: str | None,
    cwds: Sequence[str] | None,
    session_ids: Collection[str] | None,
) -> tuple[int, int] | None:
    """The first and last turn id of the sessions a folder or session filter keeps (None without
    one, or when they hold more than BAND_TURNS turns). A session's turns are written together, so
    a repository's turns mostly lie in a narrow band of an index that holds many: counting and
    ranking inside it treats a word by how common it is there, not in the whole machine's index.
    Finding the band reads every kept turn's index entry, so a filter that keeps many turns (whose
    band would be wide anyway) goes without; the sessions' turn counts say so first."""
    if session is not None:
        where, params = ["s.id = ?"], [session]
    elif cwds is not None or session_ids is not None:
        where, params = session_filters(cwds=cwds, session_ids=session_ids)
    else:
        return None
    filters = " AND ".join(where)
    # At most BAND_SESSIONS + 1 sessions are read to tell: a big workspace pays well under a ms.
    kept = conn.execute(
        f"SELECT count(*), coalesce(sum(turns), 0) FROM (SELECT s.turns FROM sessions s WHERE {filters} LIMIT ?)",
        [*params, BAND_SESSIONS + 1],
    ).fetchone()
    if int(kept[0]) > BAND_SESSIONS or int(kept[1]) > BAND_TURNS:
        return None
    row = conn.execute(
        f"SELECT min(t.id), max(t.id) FROM sessions s CROSS JOIN turns t ON t.session_id = s.id WHERE {filters}",
        params,
    ).fetchone()
    return (1, 0) if row[0] is None else (int(row[0]), int(row[1]))


def count_matches(conn: sqlite3.Connection, expression: str, rowids: tuple[int, int] | None) -> int:
    """Matches of an expression, counted up to MATCH_BUDGET + 1: walks the posting lists, no scoring."""
    fts, head = fts_where(expression, rowids)
    sql = f"SELECT count(*) FROM (SELECT 1 FROM turns_fts WHERE {fts} LIMIT ?)"
    return int(conn.execute(sql, [*head, MATCH_BUDGET + 1]).fetchone()[0])


def plan_words(conn: sqlite3.Connection, words: list[str], rowids: tuple[int, int] | None = None) -> Plan:
    """Which words FTS5 ranks, so that BM25 scores at most about MATCH_BUDGET matches.

    BM25 costs one to three microseconds per matching turn, so a word found in a large share of a
    big index would make every query that holds it slow. Words are taken rarest first (among the
    turns `rowids` bounds) while the matches they bring stay within the budget; the rest add their
    IDF, times BM25's saturation of their count, to the candidates only (`search._common_scores`).

    When every word is over the budget, the query says little that tells turns apart. The turns that
    hold all its words are ranked when they fit the budget; past it (or when no turn holds them all)
    the most recent RECENT turns that hold any of them are: the one place a recency window remains,
    for queries made only of words found in thousands of turns.
    """
    counts = {w: count_matches(conn, quote(w), rowids) for w in words}
    rare: list[str] = []
    total = 0
    for word in sorted(words, key=lambda w: counts[w]):
        if total + counts[word] > MATCH_BUDGET:
            break
        rare.append(word)
        total += counts[word]
    if len(rare) == len(words):
        return Plan(Terms(tuple(words)).expression(), rowids=rowids)
    if rare:
        first, last = rowids or (
            1,
            int(conn.execute("SELECT coalesce(max(rowid), 0) FROM turns_fts").fetchone()[0]),
        )
        size = max(1, last - first + 1)
        common = tuple(
            (w, max(1e-6, math.log((size - counts[w] + 0.5) / (counts[w] + 0.5))))
            for w in words
            if w not in rare
        )
        return Plan(Terms(tuple(w for w in words if w in rare)).expression(), common, rowids)
    if len(words) > 1:
        every = " AND ".join(quote(w) for w in words)
        if 0 < count_matches(conn, every, rowids) <= MATCH_BUDGET:
            return Plan(every, rowids=rowids)
    expression = Terms(tuple(words)).expression()
    fts, head = fts_where(expression, rowids)
    row = conn.execute(
        f"SELECT rowid FROM turns_fts WHERE {fts} ORDER BY rowid DESC LIMIT 1 OFFSET ?",
        [*head, RECENT - 1],
    ).fetchone()
    if row is None:
        return Plan(expression, rowids=rowids)
    return Plan(expression, rowids=(int(row[0]), rowids[1] if rowids else _LAST_ROWID))


def split_common(conn: sqlite3.Connection, words: list[str]) -> tuple[list[str], list[tuple[str, float]]]:
    """(the words FTS5 ranks, [(word, IDF)] of those left out as too common): see `plan_words`."""
    plan = plan_words(conn, words)
    left_out = {w for w, _ in plan.common}
    return [w for w in words if w not in left_out], list(plan.common)
