"""Full-text search over turns: BM25 ranking with session neighbours, highlighted snippets, filters.

A plain query is cut into words the way the index cuts text (`index.query`); a turn matches when it
holds any of them, and BM25 rewards the turns that hold more, and rarer, ones. Old evidence stays
findable as the index grows: FTS5 ranks every match of the query's rarer words (as many as fit
MATCH_BUDGET matches), and the words too common for that add their weight to those candidates only
(`search_plan`). A folder or session filter bounds all of it to the band of turn ids its sessions hold,
so words are rare or common by their count there. Only a query made of nothing but common words
falls back to the most recent matches.

A turn is then ranked with its session neighbours: the answer to a question often sits in the turn
after the one that repeats its words (a question and its reply; a prompt, then the answer and the
tool turns). Each candidate adds a share of its ±1 and ±2 neighbours' scores to its own, and a
neighbour that does not match at all can enter the ranking that way. This costs no index space and
no change to ingest. The other design, a second full-text column holding each turn's ±2 neighbours
(weight 0.4), measured better on LoCoMo dev (`bench/recall.py --designs`: @10 +16.5 points over
bare BM25, against +9.4 for this smoothing) but made the full-text index 4.7 times as large, and
needs ingest to rewrite a session's last turns' rows when the session grows: a candidate for later.

`fts=True` passes the query to FTS5 as written, and a syntax error there becomes a HippoError with a
hint, never a crash.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Collection, Sequence
from dataclasses import asdict, dataclass
from datetime import datetime, timedelta

from hippo_git.errors import HippoError
from hippo_git.index.query import STOPWORDS, query_terms, quote
from hippo_git.index.search_plan import Plan, filter_band, fts_where, plan_words
from hippo_git.index.sessions import session_filters
from hippo_git.index.timewords import TimeSpan, find_time

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any

__all__ = ["MARKS", "STOPWORDS", "Hit", "quote_token", "rank_turns", "search", "word_queries"]

MARKS = ("«", "»")
SNIPPET_TOKENS = 24
CANDIDATES = 400  # best matches per query: their scores are known when they are neighbours
SMOOTHED = 200  # the best of them, ranked again with their neighbours
NEAR_WEIGHT = (0.0, 0.45, 0.3)  # share of a neighbour's score a turn gets, by distance 0, 1, 2
COMMON_CHARS = 4_000  # common words are counted in a turn's start: a tool's 1 MB output costs no more
TIME_BOOST = 1.0  # a turn in the span the query names scores (1 + this) times higher
AFTER_BOOST = 0.5  # … and one in the week after it this much (events are told after they happen)
RERANK_DEPTH = 50  # lexical candidates a reranker sees (rank_turns returns twice as many)


@dataclass(frozen=True)
class Hit:
    """One matching turn, with its session's details and a snippet."""

    session_id: str
    seq: int
    kind: str
    harness: str
    ts: str | None
    cwd: str | None
    title: str | None
    snippet: str
    score: float
    near: bool = False  # holds none of the words: ranked here for a matching neighbour turn

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def quote_token(token: str) -> str:
    return quote(token)


def word_queries(query: str) -> list[str]:
    """The FTS5 expression a plain-words query runs as (empty when it has no words)."""
    terms = query_terms(query)
    return [terms.expression()] if terms.words else []


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
    now: datetime | None = None,
    snippet_tokens: int = SNIPPET_TOKENS,
    rerank: Callable[
        [list[tuple[int, float]], Sequence[str], Sequence[Any], TimeSpan | None], list[tuple[int, float]]
    ]
    | None = None,
) -> list[Hit]:
    """Turns matching `query`, best first. `cwds`/`session_ids` keep sessions under those folders or
    with those ids (the workspace filter); `session` is an exact session id (resolve prefixes first);
    `now` is when relative time words count from; snippets are up to `snippet_tokens` (≤ 64) words.
    `rerank` (the `[semantic]` extra's fusion, `index.fusion`) reorders a deeper lexical ranking."""
    if limit <= 0:
        return []
    where, params = session_filters(
        harness=harness,
        cwds=cwds,
        session_ids=session_ids,
        since=since,
        time_expr="coalesce(t.ts, s.ended, s.started)",
    )
    if session is not None:
        where.append("t.session_id = ?")
        params.append(session)
    span: TimeSpan | None = None
    rowids = filter_band(conn, session, cwds, session_ids)
    if rowids is not None and rowids[0] > rowids[1]:
        return []  # the filter keeps no turns
    plan = Plan(query, rowids=rowids)
    if fts:
        expression = query
    else:
        span, rest = find_time(query, now)
        terms = query_terms(rest)
        if not terms.words:
            terms = query_terms(query)
        if not terms.words:
            return []
        plan = plan_words(conn, list(terms.words), rowids)
        expression = plan.expression
    try:
        depth = max(limit, RERANK_DEPTH) if rerank else limit
        ranked = rank_turns(
            conn, expression, where, params, depth, span=span, common=plan.common, rowids=plan.rowids
        )
        if rerank is not None and not fts:
            ranked = rerank(ranked, where, params, span)[: limit * 2]
    except sqlite3.OperationalError as exc:
        if not fts or "locked" in str(exc) or "busy" in str(exc):
            raise
        raise HippoError(
            f"the search query is not valid FTS5: {exc}",
            hint='leave out --fts to search plain words, or quote phrases like "exact phrase"',
        ) from None
    return _hits(conn, ranked, expression, where, params, marks, limit, min(64, max(1, snippet_tokens)))


def rank_turns(
    conn: sqlite3.Connection,
    expression: str,
    where: Sequence[str] = (),
    params: Sequence[Any] = (),
    limit: int = 20,
    *,
    span: TimeSpan | None = None,
    common: Sequence[tuple[str, float]] = (),
    rowids: tuple[int, int] | None = None,
) -> list[tuple[int, float]]:
    """(turn id, score) of the best `limit` turns for an FTS5 expression, best first, under SQL
    conditions over `turns t` and `sessions s`: BM25, then smoothed over session neighbours.
    `common` are words left out of the expression because they match too many turns, with their
    IDF: they add to the candidates' scores; `rowids` (first, last) bounds the turn ids matched (see
    `search_plan`). The ranking `search` uses, for callers that build their own expression and filters."""
    own = _matches(conn, expression, where, params, max(CANDIDATES, limit), rowids)
    if span is not None:
        # The matches inside the span are candidates however many better ones lie outside it.
        inside = [*where, f"{_WHEN} >= ? AND {_WHEN} < ?"]
        own.update(
            _matches(conn, expression, inside, [*params, span.start, _after(span)], CANDIDATES, rowids)
        )
    if not own:
        return []
    if common:
        for tid, extra in _common_scores(conn, list(own), common).items():
            own[tid] += extra
    near = _neighbours(conn, sorted(own, key=lambda tid: -own[tid])[:SMOOTHED])
    # A neighbour outside the candidates counts as not matching: scoring it would cost a BM25
    # lookup per row (FTS5 recomputes its statistics for each), and it measured no better.
    scores = dict(own)
    links: dict[int, dict[int, int]] = {}  # turn → {neighbour: distance}, both ways
    for tid, pairs in near.items():
        for other, distance in pairs:
            links.setdefault(tid, {})[other] = distance
            links.setdefault(other, {})[tid] = distance
    final = {
        tid: scores.get(tid, 0.0)
        + sum(NEAR_WEIGHT[d] * scores.get(other, 0.0) for other, d in links.get(tid, {}).items())
        for tid in scores.keys() | links.keys()
    }
    if span is not None:
        end = _after(span)
        for tid, when in _times_of(conn, list(final)).items():
            if span.holds(when):
                final[tid] *= 1 + TIME_BOOST
            elif when is not None and span.end <= when < end:
                final[tid] *= 1 + AFTER_BOOST
    best = sorted(final.items(), key=lambda item: (-item[1], item[0]))
    return best[: limit * 2]  # spares: a neighbour of a match may fall outside `since`


def _matches(
    conn: sqlite3.Connection,
    expression: str,
    where: Sequence[str],
    params: Sequence[Any],
    count: int,
    rowids: tuple[int, int] | None = None,
) -> dict[int, float]:
    fts, head = fts_where(expression, rowids)
    if where:
        filters = " AND ".join(where)
        sql = (
            "SELECT c.id, c.score FROM (SELECT rowid AS id, bm25(turns_fts) AS score FROM turns_fts"
            f" WHERE {fts}) c JOIN turns t ON t.id = c.id JOIN sessions s ON s.id = t.session_id"
            f" WHERE {filters} ORDER BY c.score LIMIT ?"
        )
        rows = conn.execute(sql, [*head, *params, count]).fetchall()
    else:
        sql = f"SELECT rowid, bm25(turns_fts) FROM turns_fts WHERE {fts} ORDER BY rank LIMIT ?"
        rows = conn.execute(sql, [*head, count]).fetchall()
    return {int(r[0]): -float(r[1]) for r in rows}


def _neighbours(conn: sqlite3.Connection, ids: list[int]) -> dict[int, list[tuple[int, int]]]:
    """turn id → [(neighbour turn id, distance 1 or 2)] within its session."""
    out: dict[int, list[tuple[int, int]]] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = conn.execute(
            "SELECT t.id, n.id, abs(n.seq - t.seq) FROM turns t JOIN turns n ON n.session_id = t.session_id"
            " AND n.seq BETWEEN t.seq - 2 AND t.seq + 2 AND n.id != t.id"
            f" WHERE t.id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        for tid, other, distance in rows:
            out.setdefault(int(tid), []).append((int(other), int(distance)))
    return out


def _common_scores(
    conn: sqlite3.Connection, ids: list[int], common: Sequence[tuple[str, float]]
) -> dict[int, float]:
    """What the common words add to each candidate: IDF × BM25's term-count saturation (k1 = 1.2),
    counted in the turn's text as words that start with the word's light stem. One pass of one
    pattern over each text finds the words of every stem."""
    stems = [(_stem(w), idf) for w, idf in common]
    alternatives = "|".join(re.escape(stem) for stem, _ in sorted(stems, key=lambda s: -len(s[0])))
    pattern = re.compile(rf"(?<![^\W_])(?:{alternatives})[^\W_]*", re.IGNORECASE)
    out: dict[int, float] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        for tid, text in conn.execute(
            f"SELECT id, substr(text, 1, {COMMON_CHARS}) FROM turns WHERE id IN ({','.join('?' * len(chunk))})",
            chunk,
        ):
            found = pattern.findall(str(text))
            if not found:
                continue
            lowered = [w.lower() for w in found]
            extra = 0.0
            for stem, idf in stems:
                n = sum(1 for w in lowered if w.startswith(stem))
                if n:
                    extra += idf * n * 2.2 / (n + 1.2)
            if extra:
                out[int(tid)] = extra
    return out


def _stem(word: str) -> str:
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


_WHEN = "coalesce(t.ts, s.started)"


def _after(span: TimeSpan) -> str:
    """The end of the week after the span, in the index's time format."""
    end = datetime.fromisoformat(span.end) + timedelta(days=7)
    return end.strftime("%Y-%m-%dT%H:%M:%S")


def _times_of(conn: sqlite3.Connection, ids: list[int]) -> dict[int, str | None]:
    out: dict[int, str | None] = {}
    for start in range(0, len(ids), 500):
        chunk = ids[start : start + 500]
        rows = conn.execute(
            f"SELECT t.id, {_WHEN} FROM turns t JOIN sessions s ON s.id = t.session_id"
            f" WHERE t.id IN ({','.join('?' * len(chunk))})",
            chunk,
        )
        out.update((int(r[0]), r[1]) for r in rows)
    return out


def time_factors(conn: sqlite3.Connection, ids: list[int], span: TimeSpan) -> dict[int, float]:
    """What the time boost multiplies each turn's score by (for the `[semantic]` extra's vector
    ranking; `rank_turns` applies the same rule to the lexical scores)."""
    end = _after(span)
    out: dict[int, float] = {}
    for tid, when in _times_of(conn, ids).items():
        if span.holds(when):
            out[tid] = 1 + TIME_BOOST
        elif when is not None and span.end <= when < end:
            out[tid] = 1 + AFTER_BOOST
    return out


_ROW = "t.id, t.session_id, t.seq, t.kind, s.harness, coalesce(t.ts, s.started), s.cwd, s.title, t.text"


def _hits(
    conn: sqlite3.Connection,
    ranked: list[tuple[int, float]],
    expression: str,
    where: Sequence[str],
    params: Sequence[Any],
    marks: tuple[str, str],
    limit: int,
    tokens: int,
) -> list[Hit]:
    """The hits of the ranked turns that pass the filters (a neighbour may not: `since`)."""
    if not ranked:
        return []
    ids = [tid for tid, _ in ranked]
    filters = "".join(f" AND {w}" for w in where)
    rows = {
        int(r[0]): r
        for r in conn.execute(
            f"SELECT {_ROW} FROM turns t JOIN sessions s ON s.id = t.session_id"
            f" WHERE t.id IN ({','.join('?' * len(ids))}){filters}",
            [*ids, *params],
        )
    }
    hits: list[Hit] = []
    for tid, score in ranked:
        r = rows.get(tid)
        if r is None:
            continue
        snip = conn.execute(
            "SELECT snippet(turns_fts, 0, ?, ?, '…', ?) FROM turns_fts WHERE turns_fts MATCH ? AND rowid = ?",
            (marks[0], marks[1], tokens, expression, tid),
        ).fetchone()
        text = (snip[0] if snip else "") or ""
        hit = Hit(
            r[1],
            int(r[2]),
            r[3],
            r[4],
            r[5],
            r[6],
            r[7],
            text or _head(str(r[8]), tokens),
            round(score, 4),
            not text,
        )
        hits.append(hit)
        if len(hits) >= limit:
            break
    return hits


def _head(text: str, words: int = SNIPPET_TOKENS) -> str:
    """The start of a turn that matched only through its neighbours."""
    parts = text.split()
    return " ".join(parts[:words]) + (" …" if len(parts) > words else "")
