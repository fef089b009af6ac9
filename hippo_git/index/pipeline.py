"""Preparing sources in worker processes while the one writer stores them.

Parsing and redaction cost about twice what SQLite spends writing the index, so a large ingest
hands them to worker processes (`index.workers`: `python -m hippo_git.index.worker`) and writes
the results in the order the sources were given. Sources go out in small chunks, at most
`AHEAD` per worker at a time, each to the least busy worker; replies are read as soon as they
are ready (between two sources the writer stores), so no worker waits on another's slow chunk,
memory stays flat however large the corpus, and what is in flight always fits the pipes. When
the next chunk to write is not ready, the writer prepares the next unsent chunk itself instead
of waiting: no CPU sits idle, and its own share skips the pickling. A small ingest (an agent
hook's one session) reads in process: starting workers would cost more than it saves. A worker
that dies (killed, out of memory) is not fatal: its chunks are prepared in process."""

from __future__ import annotations

import pickle
import threading
from collections import deque
from collections.abc import Generator, Sequence

from hippo_git.index.prepare import Prepared, Task, prepare
from hippo_git.index.scrub import Scrubber
from hippo_git.index.workers import PIPE_SAFE_BYTES, Worker, cpu_count, wait_any

# Below this much to read, worker start-up (≈ 0.2 s each) costs more than it saves.
POOL_MIN_BYTES = 32 * 1024 * 1024
CHUNK_BYTES = 4 * 1024 * 1024  # of transcript, per chunk
CHUNK_FILES = 64
# Enough queued that a worker outlasts the writer's longest stretch away from the pipeline (the
# full-text rows it writes before each commit); the shrinking tail keeps the last ones small.
AHEAD = 6
# Chunks shrink as the end nears (to an `AHEAD`-th of what is left after them, halved): the last
# chunks a worker holds are then small, and the writer, done with all else, does not sit idle
# while a worker works through its last `AHEAD` full chunks.
TAIL_SHARE = 2 * AHEAD
CHUNK_PATH_CHARS = PIPE_SAFE_BYTES // AHEAD // 2  # paths are most of a pickled chunk


def worker_count(setting: int | None, tasks: int, total_bytes: int) -> int:
    """How many worker processes to use: `setting` (the `ingest.workers` setting or `--jobs`; None is
    "auto": one per CPU but the writer's when there is much to read on a machine with more than
    one). 0 = in process.

    The writer prepares a chunk itself whenever the one it needs next is not in, so it keeps its
    CPU busy without a worker of its own; a worker more would only add its start-up (imports,
    the redactor's patterns compiled again) and the pickling of its share."""
    if setting is None:
        cpus = cpu_count()
        setting = cpus - 1 if cpus > 1 and total_bytes >= POOL_MIN_BYTES else 0
    return min(setting, tasks) if tasks > 1 else 0


def start_workers(n: int, arrived: threading.Condition | None = None) -> list[Worker]:
    """`n` worker processes sharing one `arrived` (so the writer can wait for whichever answers).
    Ingest starts them as soon as it knows there is much to read, while it is still looking for
    more: a worker's start-up (its imports) then overlaps the writer's discovery."""
    arrived = arrived if arrived is not None else threading.Condition()
    return [Worker("hippo_git.index.worker", arrived=arrived) for _ in range(n)]


def prepared(
    tasks: Sequence[Task], workers: int, started: Sequence[Worker] = ()
) -> Generator[Prepared, None, None]:
    """Each task's `Prepared`, in the order of `tasks`. `started`: workers from `start_workers`
    to use first (those beyond what is used are closed)."""
    scrub = Scrubber()
    chunks = _chunks(tasks) if workers >= 1 else []
    use = min(workers, len(chunks))
    for extra in started[use:]:
        extra.close()
    if use < 1:
        for task in tasks:
            yield prepare(task, scrub)
        return
    pool_workers = list(started[:use])
    pool_workers += start_workers(use - len(pool_workers), pool_workers[0].arrived if pool_workers else None)
    pool = _Pool(pool_workers, chunks, scrub)
    try:
        for i, chunk in enumerate(chunks):
            results = pool.take(i)
            if results is None:  # its worker died: prepared here
                results = [prepare(task, scrub) for task in chunk]
            for item in results:
                yield item
                pool.drain()  # between sources: keep every worker busy while this process writes
    finally:
        pool.close()


class _Pool:
    """Chunks handed to the least busy worker, at most `AHEAD` each; replies read as soon as they
    are ready and held until their turn, so a worker never waits on a slow chunk of another's."""

    def __init__(self, workers: list[Worker], chunks: list[list[Task]], scrub: Scrubber) -> None:
        self.workers, self.chunks, self.scrub = workers, chunks, scrub
        self.queued: list[deque[int]] = [deque() for _ in workers]  # chunk numbers sent, in order
        self.owner: dict[int, int] = {}
        self.done: dict[int, list[Prepared] | None] = {}
        self.sent = 0

    def take(self, i: int) -> list[Prepared] | None:
        """Chunk `i`'s results (None: its worker died). Until they are in, replies are taken from
        whichever worker answers first (so a worker done with all it was sent gets more at once),
        and when none has, this process prepares the next chunk not sent yet rather than wait:
        the writer is then never idle, and what it prepares skips the pickling."""
        self._fill()
        while i not in self.done:
            if i not in self.owner:  # never sent: no worker left
                return None
            busy = [w for w, queued in enumerate(self.queued) if queued]
            ready = [w for w in busy if self.workers[w].ready()]
            if not ready and self.sent < len(self.chunks):
                n = self.sent
                self.owner[n], self.sent = -1, n + 1
                results = []
                for task in self.chunks[n]:
                    results.append(prepare(task, self.scrub))
                    self.drain()  # a worker that finished meanwhile gets its next chunk now
                self.done[n] = results
                continue
            if not busy:  # nothing out and nothing left to send: chunk `i` was lost with its worker
                return None
            for w in ready or [busy[k] for k in wait_any([self.workers[w] for w in busy])]:
                self._receive(w)
            self._fill()
        return self.done.pop(i)

    def drain(self) -> None:
        for w, worker in enumerate(self.workers):
            if self.queued[w] and worker.ready():
                self._receive(w)
        self._fill()

    def _fill(self) -> None:
        while self.sent < len(self.chunks):
            live = [
                w for w, worker in enumerate(self.workers) if worker.alive and len(self.queued[w]) < AHEAD
            ]
            if not live:
                return
            w = min(live, key=lambda n: len(self.queued[n]))
            if self.workers[w].send(pickle.dumps(self.chunks[self.sent], protocol=pickle.HIGHEST_PROTOCOL)):
                self.queued[w].append(self.sent)
                self.owner[self.sent] = w
                self.sent += 1

    def _receive(self, w: int) -> None:
        reply = self.workers[w].receive()
        if reply is None:  # dead: what it held is prepared here
            self.done.update((n, None) for n in self.queued[w])
            self.queued[w].clear()
        else:
            self.done[self.queued[w].popleft()] = reply

    def close(self) -> None:
        for worker in self.workers:
            worker.close()


def _chunks(tasks: Sequence[Task]) -> list[list[Task]]:
    chunks: list[list[Task]] = []
    chunk: list[Task] = []
    size = chars = 0
    left = sum(task.size for task in tasks)  # bytes not yet in a closed chunk
    for task in tasks:
        most = min(CHUNK_BYTES, (left - size) // TAIL_SHARE)
        full = size + task.size > most or chars + len(task.path) > CHUNK_PATH_CHARS
        if chunk and (full or len(chunk) >= CHUNK_FILES):
            chunks.append(chunk)
            left -= size
            chunk, size, chars = [], 0, 0
        chunk.append(task)
        size += task.size
        chars += len(task.path)
    if chunk:
        chunks.append(chunk)
    return chunks
