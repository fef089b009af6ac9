"""Hybrid ranking: the lexical ranking fused with embedding similarity.

Two documented fusion methods, each used where it measured better:

- the first `HEAD` ranks by score fusion (CombSUM of standardised scores): a turn scores its BM25
  score's z-score among the lexical candidates (and a 0 for the turns without the words) plus
  `SCORE_WEIGHT` times its similarity's z-score among all the turns searched. Scores say how far
  ahead a turn is, so a turn both rankings place well above the rest leads, and a lexical top hit
  far ahead of the others stays there;
- the ranks after them by weighted reciprocal-rank fusion, `1 / (K + lexical rank) + WEIGHT / (K +
  vector rank)`: below the top the scores are flat and noisy, and ranks need no calibration.

Measured on LoCoMo dev only (`bench/recall.py --quick --semantic --heads`): score fusion alone
gives the better top five (68.2 against 67.0 at recall@5), rank fusion alone the better top ten
(78.4 against 77.7); the blend keeps both (68.2 / 78.4 / 86.1 / 90.8 at recall@5 / 10 / 25 / 50).
A head of 5 to 8 ranks gives the same recall@5 (78.4 to 78.6 at @10; a head of 4: 67.8 at @5).
The margin over the @5 target is two questions in a thousand: within noise.

`search` calls the reranker this module builds (`reranker`) with its lexical candidates and SQL
filters; nothing here is needed for search to work. Vectors are read from the embedding store
once per process and kept while the file is unchanged.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hippo_git.index.embed_store import open_store

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    from hippo_git.index.embed_model import Encoder
    from hippo_git.index.timewords import TimeSpan

__all__ = [
    "DEPTH",
    "HEAD",
    "K",
    "SCORE_WEIGHT",
    "WEIGHT",
    "Reranker",
    "Vectors",
    "blend",
    "fuse",
    "load_vectors",
    "reranker",
]

# Measured on LoCoMo dev only (bench/recall.py --quick --semantic --weights): with all-MiniLM-L6-v2 the
# vector ranking alone is far weaker than the lexical one (@5 49 against 66 even with the neighbour
# views of `embed_store`), so it gets a smaller weight, and a small K keeps the lexical top ranks
# apart (at K = 60 and weight 0.7, @5 fell 10 points). Rank fusion alone at weight 0.6, K = 5: 67.0 /
# 78.4 / 86.1 / 90.8 at recall@5 / 10 / 25 / 50; lexical alone 65.8 / 75.1 / 83.0 / 88.3.
K = 5.0
WEIGHT = 0.6  # the vector ranking's weight against the lexical one's 1
DEPTH = 100  # candidates taken from each ranking
HEAD = 5  # the first ranks, ordered by score fusion; the rest by rank fusion
# Score fusion's own weight, measured alone on dev (recall@5 at 0.5 / 0.6 / 0.7 / 0.8 / 0.9 / 1.0:
# 68.0 / 68.0 / 68.2 / 68.2 / 67.9 / 67.8): a flat optimum; 0.7 is its middle.
SCORE_WEIGHT = 0.7

Ranked = list[tuple[int, float]]
Reranker = Callable[[Ranked, Sequence[str], Sequence[Any], "TimeSpan | None"], Ranked]
POOL = 4  # × depth: the most similar turns a time boost may reorder


def fuse(lexical: Sequence[int], semantic: Sequence[int], weight: float = WEIGHT, k: float = K) -> Ranked:
    """Turn ids of both rankings (best first each), by weighted reciprocal-rank fusion, best first."""
    scores: dict[int, float] = {}
    for rank, tid in enumerate(lexical, 1):
        scores[tid] = scores.get(tid, 0.0) + 1.0 / (k + rank)
    for rank, tid in enumerate(semantic, 1):
        scores[tid] = scores.get(tid, 0.0) + weight / (k + rank)
    return sorted(scores.items(), key=lambda item: (-item[1], item[0]))


def blend(
    lexical: Ranked,
    semantic: Sequence[int],
    similarity: dict[int, float],
    weight: float = WEIGHT,
    head: int = HEAD,
    k: float = K,
    score_weight: float = SCORE_WEIGHT,
) -> Ranked:
    """The fused ranking, best first: the first `head` turns by score fusion, the rest by rank
    fusion (`fuse`). `lexical` is (turn id, score) best first; `semantic` the vector ranking's
    ids best first; `similarity` a candidate's similarity in standard deviations above the mean
    (a turn missing counts as the mean), weighed by `score_weight`. A turn missing from the
    lexical candidates scores 0 there.
    Scores are the rank fusion's, raised where needed so they never increase down the list."""
    ranked = fuse([tid for tid, _ in lexical], semantic, weight, k)
    if head <= 0 or not ranked:
        return ranked
    # A turn without the query's words scores 0: one zero stands for all of them among the
    # candidates' scores, so even a single candidate stands above the turns that do not match.
    lexical_z = _standard([*(score for _, score in lexical), 0.0])
    own = {tid: z for (tid, _), z in zip(lexical, lexical_z, strict=False)}
    floor = lexical_z[-1]
    combined = {tid: own.get(tid, floor) + score_weight * similarity.get(tid, 0.0) for tid, _ in ranked}
    # `ranked` is in rank fusion's order, and a stable sort keeps it among equal scores.
    top = sorted(combined, key=lambda tid: -combined[tid])[:head]
    chosen = set(top)
    order = top + [tid for tid, _ in ranked if tid not in chosen]
    rank_score = dict(ranked)
    out: Ranked = []
    floor_score = 0.0
    for tid in reversed(order):
        floor_score = max(floor_score, rank_score[tid])
        out.append((tid, floor_score))
    out.reverse()
    return out


def _standard(values: Sequence[float]) -> list[float]:
    """z-scores: how many standard deviations each value is above their mean (0 when all equal)."""
    if not values:
        return []
    mean = sum(values) / len(values)
    spread = (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5
    return [(v - mean) / spread if spread > 0 else 0.0 for v in values]


@dataclass(frozen=True)
class Vectors:
    """Every embedded turn of one model: ids and a (turns × dim) float32 matrix, each row the mean
    of the turn's view vectors."""

    ids: npt.NDArray[np.int64]
    matrix: npt.NDArray[np.float32]

    def __len__(self) -> int:
        return int(self.ids.shape[0])

    def nearest(self, query: npt.NDArray[np.float32], allowed: Sequence[int] | None, count: int) -> list[int]:
        """Ids of the `count` turns most similar to `query`, among `allowed` ones (None: all)."""
        ids, sims = self.similarities(query, allowed)
        return [int(ids[i]) for i in top_rows(sims, count)]

    def similarities(
        self, query: npt.NDArray[np.float32], allowed: Sequence[int] | None
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]:
        """(ids, similarity above their mean) of the `allowed` turns (None: all), ids ascending.
        Above the mean, a time boost's factor means the same for every query."""
        import numpy as np

        if allowed is None:
            rows = np.arange(len(self))
        else:
            rows = np.flatnonzero(np.isin(self.ids, np.asarray(allowed, dtype=np.int64)))
        if not rows.size:
            return self.ids[:0], np.zeros(0, dtype=np.float32)
        sims = self.matrix[rows] @ query
        return self.ids[rows], sims - sims.mean()


def top_rows(values: npt.NDArray[np.float32], count: int) -> list[int]:
    """Positions of the `count` largest values, largest first (ties by position)."""
    import numpy as np

    count = min(count, int(values.shape[0]))
    if count <= 0:
        return []
    top = np.argpartition(-values, count - 1)[:count]
    return [int(i) for i in top[np.lexsort((top, -values[top]))]]


_CACHE: dict[tuple[str, str], tuple[tuple[int, int], Vectors]] = {}


def load_vectors(path: Path, model: str) -> Vectors | None:
    """The store's vectors for `model`, or None when it has none (no file, nothing embedded)."""
    if not path.exists():
        return None
    wal = path.with_name(path.name + "-wal")
    stamp = (path.stat().st_mtime_ns, wal.stat().st_mtime_ns if wal.exists() else 0)
    key = (str(path), model)
    cached = _CACHE.get(key)
    if cached and cached[0] == stamp:
        return cached[1]
    try:
        conn = open_store(path, readonly=True)
        try:
            rows = conn.execute(
                "SELECT t.turn_id, v.vec FROM turn_views t JOIN vectors v ON v.hash = t.hash AND v.model = ?"
                " ORDER BY t.turn_id",
                (model,),
            ).fetchall()
        finally:
            conn.close()
    except sqlite3.DatabaseError:
        return None  # not migrated yet, or unreadable: search stays lexical
    if not rows:
        return None
    import numpy as np  # here: a lexical search with the extra installed but nothing embedded skips it

    # A turn's row is the mean of its views' vectors: its similarity to a query is then the mean
    # of theirs (see `embed_store`). Rows are not unit length any more, and need not be.
    turn_ids = np.fromiter((r[0] for r in rows), dtype=np.int64, count=len(rows))
    each = np.frombuffer(b"".join(r[1] for r in rows), dtype=np.float16).reshape(len(rows), -1)
    ids, first, counts = np.unique(turn_ids, return_index=True, return_counts=True)
    sums = np.add.reduceat(each, first, axis=0, dtype=np.float32)  # no float32 copy of every view
    vectors = Vectors(ids, (sums / counts[:, None]).astype(np.float32))
    _CACHE[key] = (stamp, vectors)
    return vectors


def reranker(
    conn: sqlite3.Connection,
    query: str,
    encoder: Encoder,
    vectors: Vectors,
    *,
    weight: float = WEIGHT,
    depth: int = DEPTH,
    head: int = HEAD,
) -> Reranker:
    """The hook `search` calls with its lexical ranking, filters and the time the query names; it
    returns the fused ranking (`blend`). The vector side takes the same time boost as the lexical
    one: a question that names a time means the sessions of that time, whatever it resembles."""

    def rerank(lexical: Ranked, where: Sequence[str], params: Sequence[Any], span: TimeSpan | None) -> Ranked:
        import numpy as np

        allowed: list[int] | None = None
        if where:
            allowed = [
                int(r[0])
                for r in conn.execute(
                    "SELECT t.id FROM turns t JOIN sessions s ON s.id = t.session_id WHERE "
                    + " AND ".join(where),
                    list(params),
                )
            ]
        lexical = lexical[:depth]
        ids, sims = vectors.similarities(encoder.encode([query])[0], allowed)
        spread = float(sims.std()) if sims.size else 0.0
        # A lexical candidate's similarity, where it has a vector (a turn not embedded yet has none).
        wanted = np.asarray([tid for tid, _ in lexical], dtype=np.int64)
        at = np.minimum(np.searchsorted(ids, wanted), max(ids.size - 1, 0))
        found = [(int(t), int(i)) for t, i in zip(wanted, at, strict=True) if ids.size and ids[i] == t]
        if span is None:
            rows = top_rows(sims, depth)
            scores = {tid: float(sims[i]) for tid, i in found}
        else:
            from hippo_git.index.search import time_factors

            pool = top_rows(sims, depth * POOL)
            candidates = {int(ids[i]): i for i in pool} | dict(found)
            factors = time_factors(conn, list(candidates), span)
            scores = {tid: max(float(sims[i]), 0.0) * factors.get(tid, 1.0) for tid, i in candidates.items()}
            boosted = sorted(pool, key=lambda i: -scores[int(ids[i])])  # ties: most similar first
            rows = boosted[:depth]
        near = [int(ids[i]) for i in rows]
        for i in rows:
            scores.setdefault(int(ids[i]), float(sims[i]))
        similarity = {tid: score / spread for tid, score in scores.items()} if spread > 0 else {}
        return blend(lexical, near, similarity, weight, head)

    return rerank
