"""Full-text search over turns: BM25 ranking, highlighted snippets, filters.

A query is read as words: every token is quoted for FTS5, so punctuation, `AND`, `"` or `*` in it
are just text. Words are first required together; when that finds fewer hits than asked for, any
of the non-stopwords may match, ranked below. `fts=True` passes the query to FTS5 as written, and
a syntax error there becomes a HippoError with a hint, never a crash. A query matching more than
SCORE_WINDOW turns is ranked among the most recently indexed SCORE_WINDOW of them (see `_ranked`).
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from hippo_git.errors import HippoError
from hippo_git.index.sessions import session_filters

MARKS = ("«", "»")
SNIPPET_TOKENS = 24
SCORE_WINDOW = 10_000  # matches ranked per query (the most recently indexed ones)
_WORD = re.compile(r"\w", re.UNICODE)
# Common words that would match most turns: left out of the "any word" fallback query.
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "out",
        "she",
        "so",
        "some",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "up",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


@dataclass(frozen=True)
class Hit:
    session_id: str
    seq: int
    kind: str
    harness: str
    ts: str | None
    cwd: str | None
    title: str | None
    snippet: str
    score: float

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def quote_token(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def word_queries(query: str) -> list[str]:
    """The FTS5 expressions a plain-words query runs as, in order (all words, then any word)."""
    tokens = [t for t in query.split() if _WORD.search(t)]
    if not tokens:
        return []
    meaningful = [t for t in tokens if t.lower().strip("\"'?.,!;:()") not in STOPWORDS] or tokens
    unique: list[str] = []
    for token in meaningful:
        if token.lower() not in {u.lower() for u in unique}:
            unique.append(token)
    every = " ".join(quote_token(t) for t in unique)
    queries = [every]
    if len(unique) > 1:
        queries.append(" OR ".join(quote_token(t) for t in unique))
    return queries


def search(
    conn: sqlite3.Connection,
    query: str,
    *,
    limit: int = 20,
    harness: str | None = None,
    since: str | None = None,
    session: str | None = None,
    cwds: Sequence[str] | None = None,
    session_ids: Collection[str] | None = None,
    fts: bool = False,
    marks: tuple[str, str] = MARKS,
) -> list[Hit]:
    """Turns matching `query`, best first. `cwds`/`session_ids` keep sessions under those folders or
    with those ids (the workspace filter); `session` is an exact session id (resolve prefixes first)."""
    if limit <= 0:
        return []
    where, params = session_filters(
        harness=harness,
        cwds=cwds,
        session_ids=session_ids,
        since=since,
        time_expr="coalesce(t.ts, s.ended, s.started)",
    )
    expressions = [query] if fts else word_queries(query)
    found: list[tuple[str, tuple[Any, ...]]] = []  # (expression, row)
    seen: set[int] = set()
    for expression in expressions:
        try:
            rows = _ranked(conn, expression, where, params, session, limit)
        except sqlite3.OperationalError as exc:
            if not fts or "locked" in str(exc) or "busy" in str(exc):
                raise
            raise HippoError(
                f"the search query is not valid FTS5: {exc}",
                hint='leave out --fts to search plain words, or quote phrases like "exact phrase"',
            ) from None
        for row in rows:
            if row[0] not in seen:
                seen.add(row[0])
                found.append((expression, row))
        if len(found) >= limit:
            break
    hits = []
    for expression, r in found[:limit]:
        snip = conn.execute(
            "SELECT snippet(turns_fts, 0, ?, ?, '…', ?) FROM turns_fts WHERE turns_fts MATCH ? AND rowid = ?",
            (marks[0], marks[1], SNIPPET_TOKENS, expression, r[0]),
        ).fetchone()
        hits.append(
            Hit(
                r[1],
                int(r[2]),
                r[3],
                r[4],
                r[5],
                r[6],
                r[7],
                (snip[0] if snip else "") or "",
                round(-float(r[8]), 4),
            )
        )
    return hits


_ROW = "t.id, t.session_id, t.seq, t.kind, s.harness, coalesce(t.ts, s.started), s.cwd, s.title"


def _ranked(
    conn: sqlite3.Connection,
    expression: str,
    where: list[str],
    params: list[Any],
    session: str | None,
    limit: int,
) -> list[tuple[Any, ...]]:
    """Rows (turn id, …, bm25) of the best matches of one FTS5 expression under the filters.

    BM25 costs about a microsecond per matching turn, so a word found in most of a large index
    would take tens of milliseconds to rank in full. Candidates are therefore the SCORE_WINDOW most
    recently indexed matches (FTS5 walks rowids newest first and stops), scored with the index's
    global statistics; only a filtered search that finds too few there ranks every match.
    """
    filters = "".join(f" AND {w}" for w in where)
    tail = f" JOIN turns t ON t.id = c.id JOIN sessions s ON s.id = t.session_id WHERE 1{filters} ORDER BY c.score LIMIT ?"
    if session is not None:
        # One session's turns: score just those (a handful of rowid lookups in the FTS index).
        candidates = (
            "SELECT rowid AS id, bm25(turns_fts) AS score FROM turns_fts"
            " WHERE turns_fts MATCH ? AND rowid IN (SELECT id FROM turns WHERE session_id = ?)"
        )
        sql = f"SELECT {_ROW}, c.score FROM ({candidates}) c{tail}"
        return conn.execute(sql, [expression, session, *params, limit]).fetchall()
    candidates = (
        "SELECT rowid AS id, bm25(turns_fts) AS score FROM turns_fts"
        " WHERE turns_fts MATCH ? ORDER BY rowid DESC LIMIT ?"
    )
    if not where:  # rank the window first, then look up only the winners
        candidates = f"SELECT id, score FROM ({candidates}) ORDER BY score LIMIT {int(limit)}"
    sql = f"SELECT {_ROW}, c.score FROM ({candidates}) c{tail}"
    rows = conn.execute(sql, [expression, SCORE_WINDOW, *params, limit]).fetchall()
    if len(rows) < limit and where:
        exact = (
            f"SELECT {_ROW}, bm25(turns_fts) FROM turns_fts JOIN turns t ON t.id = turns_fts.rowid"
            f" JOIN sessions s ON s.id = t.session_id WHERE turns_fts MATCH ?{filters}"
            " ORDER BY bm25(turns_fts) LIMIT ?"
        )
        rows = conn.execute(exact, [expression, *params, limit]).fetchall()
    return list(rows)
