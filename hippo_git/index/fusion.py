"""Hybrid ranking: the lexical ranking fused with embedding similarity by weighted reciprocal rank.

A turn's fused score is `1 / (K + lexical rank) + WEIGHT / (K + vector rank)` (a missing rank adds
nothing). Reciprocal-rank fusion needs no calibration between BM25 scores and cosine similarity;
the weight keeps the lexical ranking in charge of the top ranks, where exact words are the better
evidence (equal weights cost 12 points at @5 on LoCoMo dev: `bench/recall.py --semantic --weights`).

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

__all__ = ["DEPTH", "K", "WEIGHT", "Reranker", "Vectors", "fuse", "load_vectors", "reranker"]

# Measured on LoCoMo dev only (bench/recall.py --quick --semantic --weights): with all-MiniLM-L6-v2 the
# vector ranking alone is far weaker than the lexical one (@5 47 against 66 even with the neighbour
# views of `embed_store`), so it gets a smaller weight, and a small K keeps the lexical top ranks
# apart (at K = 60 and weight 0.7, @5 fell 10 points). With the three views, weight 0.6 at K = 5:
# 67.2 / 78.1 / 85.6 / 90.8 at recall@5 / 10 / 25 / 50, against the text alone at 0.4: 66.7 / 76.5 /
# 84.8 / 90.7 and lexical alone 65.8 / 75.1 / 83.0 / 88.3. Score fusion (BM25 / its top + weight ×
# cosine above the mean / its top) and rescoring every lexical candidate measured no better
# (67.5 / 77.0 / 86.1 / 90.6 at its best weight), so the simpler rank fusion stays.
K = 5.0
WEIGHT = 0.6  # the vector ranking's weight against the lexical one's 1
DEPTH = 100  # candidates taken from each ranking

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
        return [tid for tid, _ in self.scored(query, allowed, count)]

    def scored(
        self, query: npt.NDArray[np.float32], allowed: Sequence[int] | None, count: int
    ) -> list[tuple[int, float]]:
        """(id, similarity above the mean of the `allowed` turns') of the `count` most similar,
        best first: above the mean, a time boost's factor means the same for every query."""
        import numpy as np

        if not len(self):
            return []
        if allowed is None:
            rows = np.arange(len(self))
        else:
            rows = np.flatnonzero(np.isin(self.ids, np.asarray(allowed, dtype=np.int64)))
        if not rows.size:
            return []
        sims = self.matrix[rows] @ query
        count = min(count, rows.size)
        top = np.argpartition(-sims, count - 1)[:count]
        top = top[np.argsort(-sims[top], kind="stable")]
        mean = float(sims.mean())
        return [(int(self.ids[rows[i]]), float(sims[i]) - mean) for i in top]


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
) -> Reranker:
    """The hook `search` calls with its lexical ranking, filters and the time the query names; it
    returns the fused ranking. The vector ranking takes the same time boost as the lexical one:
    a question that names a time means the sessions of that time, whatever it resembles."""

    def rerank(lexical: Ranked, where: Sequence[str], params: Sequence[Any], span: TimeSpan | None) -> Ranked:
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
        query_vector = encoder.encode([query])[0]
        if span is None:
            near = vectors.nearest(query_vector, allowed, depth)
        else:
            from hippo_git.index.search import time_factors

            pool = vectors.scored(query_vector, allowed, depth * POOL)
            factors = time_factors(conn, [tid for tid, _ in pool], span)
            boosted = sorted(pool, key=lambda item: -max(item[1], 0.0) * factors.get(item[0], 1.0))
            near = [tid for tid, _ in boosted[:depth]]
        return fuse([tid for tid, _ in lexical[:depth]], near, weight)

    return rerank
