"""Turn embeddings, stored beside the index in their own SQLite file (`embeddings.sqlite`).

Vectors are keyed by (model, content hash of the text embedded), so a turn whose text has not
changed is never embedded again, whatever its id, and a rebuilt index (`ingest --full`) reuses
them all. `turn_hashes` maps the index's turn ids to those hashes; `embed_pending` brings it in step
with the index. Search never needs this file: without it, or without the `[semantic]` extra,
ranking is lexical only. A separate file keeps the index's schema and size unchanged for everyone
who does not use the extra, and deleting it is a safe reset.
"""

from __future__ import annotations

import hashlib
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from hippo_git.index.db import BUSY_TIMEOUT_MS, migrate

if TYPE_CHECKING:
    from hippo_git.index.embed_model import Encoder

__all__ = ["EmbedSummary", "content_hash", "embed_pending", "open_store", "store_path"]

MAX_CHARS = 2000  # about the 256 tokens the model reads; the rest is cut before tokenising
BATCH = 64
SCAN = 5000  # turns read from the index at a time

MIGRATIONS = (
    (
        "0001-vectors",
        (
            """CREATE TABLE vectors(
                model TEXT NOT NULL,
                hash BLOB NOT NULL,
                vec BLOB NOT NULL,
                PRIMARY KEY(model, hash)
            ) WITHOUT ROWID""",
            "CREATE TABLE turn_hashes(turn_id INTEGER PRIMARY KEY, hash BLOB NOT NULL)",
        ),
    ),
)

Progress = Callable[[int, int], None]  # (embedded so far, to embed)


@dataclass(frozen=True)
class EmbedSummary:
    """What an embedding run did: the model, turns embedded or reused, time taken and store size."""

    model: str
    turns: int
    embedded: int
    reused: int
    seconds: float
    store_bytes: int

    @property
    def turns_per_second(self) -> float:
        return self.embedded / self.seconds if self.seconds > 0 else 0.0

    def as_dict(self) -> dict[str, Any]:
        return {**asdict(self), "turns_per_second": round(self.turns_per_second, 1)}


def store_path(index_path: Path) -> Path:
    return index_path.with_name("embeddings.sqlite")


def open_store(path: Path, *, readonly: bool = False) -> sqlite3.Connection:
    """The embedding store; a write open creates and migrates it (WAL, busy timeout)."""
    if readonly:
        conn = sqlite3.connect(f"file:{quote(str(path))}?mode=ro", uri=True, isolation_level=None)
        conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        return conn
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), isolation_level=None, timeout=BUSY_TIMEOUT_MS / 1000)
    conn.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
    conn.execute("PRAGMA journal_mode = WAL")
    conn.execute("PRAGMA synchronous = NORMAL")
    migrate(conn, MIGRATIONS)
    return conn


def content_hash(text: str) -> bytes:
    return hashlib.blake2b(_clip(text).encode("utf-8"), digest_size=16).digest()


def _clip(text: str) -> str:
    return text[:MAX_CHARS]


def _turns(index: sqlite3.Connection) -> Iterator[list[tuple[int, str]]]:
    last = -1
    while True:
        rows = index.execute(
            "SELECT id, text FROM turns WHERE id > ? ORDER BY id LIMIT ?", (last, SCAN)
        ).fetchall()
        if not rows:
            return
        yield [(int(r[0]), str(r[1])) for r in rows]
        last = int(rows[-1][0])


def embed_pending(
    index: sqlite3.Connection,
    store: sqlite3.Connection,
    encoder: Encoder,
    *,
    batch: int = BATCH,
    progress: Progress | None = None,
) -> EmbedSummary:
    """Embed every turn of the index whose text has no vector for this model yet, in batches,
    each batch committed on its own (an interrupted run keeps what it did)."""
    import numpy as np

    start = time.perf_counter()
    known = dict(store.execute("SELECT turn_id, hash FROM turn_hashes").fetchall())
    have = {bytes(r[0]) for r in store.execute("SELECT hash FROM vectors WHERE model = ?", (encoder.name,))}
    seen: set[int] = set()
    todo: dict[bytes, str] = {}  # hash → text, each text once
    changed: list[tuple[int, bytes]] = []
    for rows in _turns(index):
        for tid, text in rows:
            seen.add(tid)
            digest = content_hash(text)
            if known.get(tid) != digest:
                changed.append((tid, digest))
            if digest not in have and digest not in todo:
                todo[digest] = _clip(text)
    gone = [tid for tid in known if tid not in seen]
    store.execute("BEGIN IMMEDIATE")
    store.executemany("INSERT OR REPLACE INTO turn_hashes(turn_id, hash) VALUES (?, ?)", changed)
    store.executemany("DELETE FROM turn_hashes WHERE turn_id = ?", [(t,) for t in gone])
    store.execute("COMMIT")
    items = list(todo.items())
    done = 0
    if progress:
        progress(0, len(items))
    for at in range(0, len(items), batch):
        chunk = items[at : at + batch]
        vectors = encoder.encode([text for _, text in chunk], batch=batch).astype(np.float16)
        store.execute("BEGIN IMMEDIATE")
        store.executemany(
            "INSERT OR REPLACE INTO vectors(model, hash, vec) VALUES (?, ?, ?)",
            [(encoder.name, digest, vec.tobytes()) for (digest, _), vec in zip(chunk, vectors, strict=True)],
        )
        store.execute("COMMIT")
        done += len(chunk)
        if progress:
            progress(done, len(items))
    size = int(
        store.execute(
            "SELECT page_count * page_size FROM pragma_page_count(), pragma_page_size()"
        ).fetchone()[0]
    )
    return EmbedSummary(
        model=encoder.name,
        turns=len(seen),
        embedded=len(items),
        reused=len(seen) - len(items),
        seconds=round(time.perf_counter() - start, 3),
        store_bytes=size,
    )
