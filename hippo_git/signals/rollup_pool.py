"""The rollup's rows of many sessions, computed in this process and one worker process at once.

Computing the facts is most of a first build, and it splits cleanly: the sessions, sorted, go in
chunks cut where a family of sessions (`root/...`: a session and its subagents) ends, each read in
one pass over its range of the turns table. The worker (`python -m hippo_git.signals.rollup_pool`)
takes chunks from the back, this process from the front, until they meet; between two of its own
sessions this process takes in whatever the worker has finished, so neither waits for the other.
Rows come back as plain tuples, one pickle per chunk, for the one writer to store.

A small update computes in process: starting a worker would cost more than it saves. A worker
that fails is not fatal: the chunks it held are computed here. Like ingest's workers (see
`index.pipeline`), it is a plain subprocess from a clean interpreter that ignores Ctrl-C and
leaves at the end of its input.
"""

from __future__ import annotations

import pickle
import sqlite3
import sys
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hippo_git.index import db
from hippo_git.index.workers import PIPE_SAFE_BYTES, Worker, cpu_count, serve
from hippo_git.signals.rollup_compute import Scan, SessionRows, computed

POOL_MIN_SESSIONS = 1000  # below this many to compute, in process (a worker starts in ≈ 0.1 s)
SCAN_SHARE = 4  # read turns by range scans when at least 1/SCAN_SHARE of the sessions are to compute
CHUNK_SESSIONS = 200
CHUNK_CHARS = 12_000  # of ids and folders (twice that at most: a family may go over)
# A chunk is sent only if it fits the pipe whole, so a send never waits on a busy worker. A larger
# one is computed here.
AHEAD = 2
SEND_BYTES = PIPE_SAFE_BYTES // AHEAD

Chunk = tuple[list[tuple[str, str | None]], Scan | None]  # (id, folder) of each session, and its range


def chunks(cwds: dict[str, str | None], total: int) -> list[Chunk]:
    """`cwds` (session → folder) in chunks; `total`: sessions in the index."""
    order = sorted(cwds)
    cuts = [0]
    chars = 0
    for i in range(1, len(order)):
        chars += len(order[i - 1]) + len(cwds[order[i - 1]] or "")
        full = i - cuts[-1] >= CHUNK_SESSIONS or chars >= CHUNK_CHARS
        # A family cut in two is still right (a parent reads its other subagents by themselves).
        family = order[i].split("/", 1)[0] == order[i - 1].split("/", 1)[0]
        if (full and not family) or chars >= 2 * CHUNK_CHARS:
            cuts.append(i)
            chars = 0
    cuts.append(len(order))
    scan = len(order) * SCAN_SHARE >= total
    out: list[Chunk] = []
    for a, b in zip(cuts, cuts[1:]):
        if a < b:
            hi = order[b] if b < len(order) else None
            out.append(([(sid, cwds[sid]) for sid in order[a:b]], (order[a], hi) if scan else None))
    return out


def worker_count(sessions: int, setting: int | None) -> int:
    """1 to use the worker, else 0. `setting` is `ingest.workers`: 0 none, 1 or more always, None
    ("auto") for a large update on a machine with more than one CPU."""
    if setting is not None:
        return min(setting, 1)
    return 1 if cpu_count() > 1 and sessions >= POOL_MIN_SESSIONS else 0


def computed_rows(
    index: sqlite3.Connection,
    index_path: Path,
    cwds: dict[str, str | None],
    total: int,
    setting: int | None = None,
) -> Iterator[SessionRows]:
    """The rows of each session of `cwds` (session → folder), in no set order. `setting`: see
    `worker_count`."""
    todo = deque(chunks(cwds, total))
    use = worker_count(len(cwds), setting) and len(todo) > 1
    worker = Worker("hippo_git.signals.rollup_pool", str(index_path)) if use else None
    held: deque[Chunk] = deque()  # sent to the worker, in order
    mine: list[Chunk] = []  # too large to send

    def feed() -> None:
        while worker is not None and worker.alive and len(held) < AHEAD and todo:
            chunk = todo.pop()
            data = pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL)
            if len(data) > SEND_BYTES:
                mine.append(chunk)
            elif worker.send(data):
                held.append(chunk)
            else:
                todo.append(chunk)

    def collect(wait: bool) -> Iterator[SessionRows]:
        while held and worker is not None and (wait or worker.ready()):
            rows = worker.receive()
            if rows is None:  # the worker failed: what it held is computed here
                todo.extend(held)
                held.clear()
                return
            held.popleft()
            feed()
            yield from rows

    try:
        feed()
        while todo or held or mine:
            if todo or mine:
                pairs, scan = mine.pop() if mine else todo.popleft()
                for rows in computed(index, dict(pairs), scan):
                    yield rows
                    yield from collect(wait=False)
            else:
                yield from collect(wait=True)
    finally:
        if worker is not None:
            worker.close()


def main(index_path: str) -> None:
    """The worker: answers each chunk with its sessions' rows. It only reads the index."""
    index = db.connect(Path(index_path), readonly=True)

    def rows_of(chunk: Any) -> list[SessionRows]:
        pairs, scan = chunk
        return list(computed(index, dict(pairs), scan))

    serve(rows_of)


if __name__ == "__main__":
    main(sys.argv[1])
