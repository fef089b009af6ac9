"""The `[semantic]` extra's entry points: embed the index, and the hybrid ranking for a query.

Embedding is opt-in: `git hippo embed` makes the store beside the index, and from then on every
`ingest` embeds its new turns. An ingest without the store does not start embedding a whole history
unasked (at tens of turns a second on two cores that can take an hour). Search uses the vectors
when the extra is installed, `semantic.model` is not "off" and the store has vectors for that
model; otherwise it is lexical and says why (`Ranking.note`).
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from pathlib import Path

from hippo_git.errors import HippoError
from hippo_git.index.embed_model import INSTALL_HINT, available, load_encoder

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:  # the store and the fusion load only when embeddings are used: not on a lexical search
    from hippo_git.index.embed_store import EmbedSummary, Progress
    from hippo_git.index.fusion import Reranker

__all__ = ["OFF", "Ranking", "embed_index", "ranking_for", "refresh_after_ingest"]

OFF = "off"


def embed_index(index_path: Path, home: Path, model: str, progress: Progress | None = None) -> EmbedSummary:
    """Embed every turn of the index not embedded yet with `model` (reusing unchanged texts)."""
    if model == OFF:
        raise HippoError(
            'semantic.model is "off"',
            hint="set it to a model, e.g. `git hippo config set semantic.model all-MiniLM-L6-v2`",
        )
    from hippo_git.index.embed_store import embed_pending, open_store, store_path

    if not available():
        raise HippoError("`git hippo embed` needs the [semantic] extra", hint=INSTALL_HINT)
    from hippo_git.index.db import connect

    encoder = load_encoder(model, home)
    conn = connect(index_path, readonly=True)
    store = open_store(store_path(index_path))
    try:
        return embed_pending(conn, store, encoder, progress=progress)
    except sqlite3.DatabaseError as exc:
        raise HippoError(
            f"the embedding store {store_path(index_path)} cannot be written: {exc}",
            hint="delete it and run `git hippo embed` again",
        ) from None
    finally:
        store.close()
        conn.close()


def refresh_after_ingest(
    index_path: Path, home: Path, model: str, progress: Progress | None = None
) -> EmbedSummary | None:
    """After an ingest: embed the new turns when the user opted in (the store exists)."""
    from hippo_git.index.embed_store import store_path

    if model == OFF or not available() or not store_path(index_path).exists():
        return None
    return embed_index(index_path, home, model, progress)


@dataclass(frozen=True)
class Ranking:
    """How `search` ranks: `rerank` is None when lexical only, and `note` says why."""

    mode: str  # "hybrid" or "lexical"
    note: str
    rerank: Reranker | None = None


def ranking_for(conn: sqlite3.Connection, index_path: Path, home: Path, model: str, query: str) -> Ranking:
    """The hybrid ranking for `query` when embeddings can be used, else why it is lexical only.
    The model is loaded only when the store holds vectors for it."""
    if model == OFF:
        return Ranking("lexical", 'lexical only: semantic.model is "off"')
    if not available():
        return Ranking("lexical", f"lexical only: no embeddings ({INSTALL_HINT}, then `git hippo embed`)")
    from hippo_git.index.embed_store import store_path
    from hippo_git.index.fusion import load_vectors, reranker

    vectors = load_vectors(store_path(index_path), model)
    if vectors is None:
        return Ranking("lexical", f"lexical only: no embeddings for {model} yet (run `git hippo embed`)")
    encoder = load_encoder(model, home)
    return Ranking(
        "hybrid", f"hybrid: lexical fused with {model} embeddings", reranker(conn, query, encoder, vectors)
    )
