"""Turn embeddings, stored beside the index in their own SQLite file (`embeddings.sqlite`).

Each turn is embedded in three views (`VIEWS`): its text alone, with the turn before it, and with
the turn after it, all of its session. A reply alone ("Yes, last Tuesday, with my sister") rarely
says what it answers; with its question it does. Search scores a turn by the mean of its views'
similarities (`fusion.load_vectors`). Measured on LoCoMo dev (`bench/recall.py --quick --semantic`):
the vector ranking alone went from 37.0 / 47.3 / 59.6 / 71.0 (text alone) to 46.8 / 56.8 / 68.3 /
78.3 at recall@5 / 10 / 25 / 50; one view of the three turns together scored only 36.7 / 48.4 /
61.7 / 72.3 (the model's mean pooling blurs a turn into its neighbours), and smoothing the text
alone's similarities over the neighbours 42.3 / 53.8 / 66.0 / 76.4. A turn's view with the turn
after is the next turn's view with the one before (the same pair of turns), so a turn costs two
texts, one twice as long: 2.4 times the CPU of the text alone (37 against 16 turns per CPU-second).

Vectors are keyed by (model, content hash of the text embedded), so a text that has not changed is
never embedded again, whatever its turn id, and a rebuilt index (`ingest --full`) reuses them all;
when a session grows, only its last turn's view with the next turn is new. `turn_views` maps the
index's turn ids and views to those hashes; `embed_pending` brings it in step with the index. Search never needs this file: without it, or without the `[semantic]` extra,
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

__all__ = ["VIEWS", "EmbedSummary", "content_hash", "embed_pending", "open_store", "store_path", "views"]

MAX_CHARS = 2000  # about the 256 tokens the model reads; the rest is cut before tokenising
PAIR_CHARS = MAX_CHARS // 2  # of each turn in a view of two: a tool's long output leaves room
VIEWS = ("text", "with the turn before", "with the turn after")
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
    (
        # The text-alone view keeps its hash, so a store of the first design keeps those vectors.
        "0002-turn-views",
        (
            """CREATE TABLE turn_views(
                turn_id INTEGER NOT NULL,
                view INTEGER NOT NULL,
                hash BLOB NOT NULL,
                PRIMARY KEY(turn_id, view)
            ) WITHOUT ROWID""",
            "INSERT INTO turn_views(turn_id, view, hash) SELECT turn_id, 0, hash FROM turn_hashes",
            "DROP TABLE turn_hashes",
        ),
    ),
)

Progress = Callable[[int, int], None]  # (embedded so far, to embed)


@dataclass(frozen=True)
class EmbedSummary:
    """What an embedding run did: the model, turns embedded or reused, time taken and store size."""

    model: str
    turns: int
    embedded: int  # turns with a view not in the store before
    reused: int  # turns whose views were all there
    seconds: float
    store_bytes: int
    texts: int = 0  # texts encoded (up to three views a turn, each distinct text once)

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


def views(text: str, before: str | None, after: str | None) -> tuple[str, str, str]:
    """The texts a turn is embedded as (`VIEWS`); a view without its neighbour is the text alone.
    A view with a neighbour is the pair of consecutive turns, each cut to half the length, so the
    view of a turn with the one after is the next turn's view with the one before: one text."""
    alone = _clip(text)
    return (
        alone,
        _pair(before, text) if before else alone,
        _pair(text, after) if after else alone,
    )


def _pair(first: str, second: str) -> str:
    return f"{first[:PAIR_CHARS]}\n{second[:PAIR_CHARS]}"


def _turns(index: sqlite3.Connection) -> Iterator[list[tuple[int, tuple[str, str, str]]]]:
    """(turn id, its views' texts), in batches; neighbours by (session, seq ± 1), the index's key."""
    last = -1
    while True:
        rows = index.execute(
            "SELECT t.id, t.text, b.text, a.text FROM turns t"
            " LEFT JOIN turns b ON b.session_id = t.session_id AND b.seq = t.seq - 1"
            " LEFT JOIN turns a ON a.session_id = t.session_id AND a.seq = t.seq + 1"
            " WHERE t.id > ? ORDER BY t.id LIMIT ?",
            (last, SCAN),
        ).fetchall()
        if not rows:
            return
        yield [(int(r[0]), views(str(r[1]), r[2], r[3])) for r in rows]
        last = int(rows[-1][0])


def embed_pending(
    index: sqlite3.Connection,
    store: sqlite3.Connection,
    encoder: Encoder,
    *,
    batch: int = BATCH,
    progress: Progress | None = None,
) -> EmbedSummary:
    """Embed every view of every turn of the index whose text has no vector for this model yet, in
    batches, each batch committed on its own (an interrupted run keeps what it did)."""
    import numpy as np

    start = time.perf_counter()
    known = {(int(r[0]), int(r[1])): bytes(r[2]) for r in store.execute("SELECT * FROM turn_views")}
    have = {bytes(r[0]) for r in store.execute("SELECT hash FROM vectors WHERE model = ?", (encoder.name,))}
    seen: set[int] = set()
    todo: dict[bytes, str] = {}  # hash → text, each text once
    new_turns = 0
    changed: list[tuple[int, int, bytes]] = []
    for rows in _turns(index):
        for tid, texts in rows:
            seen.add(tid)
            fresh = False
            for view, text in enumerate(texts):
                digest = content_hash(text)
                if known.get((tid, view)) != digest:
                    changed.append((tid, view, digest))
                if digest not in have:
                    fresh = True
                    todo.setdefault(digest, text)
            new_turns += fresh
    gone = [(tid, view) for tid, view in known if tid not in seen]
    store.execute("BEGIN IMMEDIATE")
    store.executemany("INSERT OR REPLACE INTO turn_views(turn_id, view, hash) VALUES (?, ?, ?)", changed)
    store.executemany("DELETE FROM turn_views WHERE turn_id = ? AND view = ?", gone)
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
        embedded=new_turns,
        reused=len(seen) - new_turns,
        seconds=round(time.perf_counter() - start, 3),
        store_bytes=size,
        texts=len(items),
    )
