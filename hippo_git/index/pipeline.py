"""Preparing sources in worker processes while the one writer stores them.

Parsing and redaction cost about twice what SQLite spends writing the index, so a large ingest
hands them to worker processes (`index.workers`: `python -m hippo_git.index.worker`) and writes
the results in the order the sources were given. Sources go out in small chunks, round-robin,
at most `AHEAD` chunks per worker at a time, so memory stays flat however large the corpus and
what is in flight always fits the pipes. A small ingest (an agent hook's one session) reads in
process: starting workers would cost more than it saves. A worker that dies (killed, out of
memory) is not fatal: its chunks are prepared in process.
"""

from __future__ import annotations

import pickle
from collections.abc import Generator, Sequence

from hippo_git.index.prepare import Prepared, Task, prepare
from hippo_git.index.scrub import Scrubber
from hippo_git.index.workers import PIPE_SAFE_BYTES, Worker, cpu_count

# Below this much to read, worker start-up (≈ 0.2 s each) costs more than it saves.
POOL_MIN_BYTES = 32 * 1024 * 1024
CHUNK_BYTES = 4 * 1024 * 1024  # of transcript, per chunk
CHUNK_FILES = 64
AHEAD = 2
CHUNK_PATH_CHARS = PIPE_SAFE_BYTES // AHEAD // 2  # paths are most of a pickled chunk


def worker_count(setting: int | None, tasks: int, total_bytes: int) -> int:
    """How many worker processes to use: `setting` (the `ingest.workers` setting or `--jobs`; None is
    "auto": one per CPU when there is much to read on a machine with more than one). 0 = in process."""
    if setting is None:
        cpus = cpu_count()
        setting = cpus if cpus > 1 and total_bytes >= POOL_MIN_BYTES else 0
    return min(setting, tasks) if tasks > 1 else 0


def prepared(tasks: Sequence[Task], sizes: Sequence[int], workers: int) -> Generator[Prepared, None, None]:
    """Each task's `Prepared`, in the order of `tasks`."""
    scrub = Scrubber()
    if workers < 1:
        for task in tasks:
            yield prepare(task, scrub)
        return
    chunks = _chunks(tasks, sizes)
    pool = [Worker("hippo_git.index.worker") for _ in range(min(workers, len(chunks)))]
    try:
        for i in range(min(len(chunks), len(pool) * AHEAD)):
            _send(pool[i % len(pool)], chunks[i])
        for i, chunk in enumerate(chunks):
            worker = pool[i % len(pool)]
            results: list[Prepared] | None = worker.receive()
            if results is None:  # the worker died: this chunk (and the rest of its share) in process
                results = [prepare(task, scrub) for task in chunk]
            if i + len(pool) * AHEAD < len(chunks):
                _send(worker, chunks[i + len(pool) * AHEAD])
            yield from results
    finally:
        for worker in pool:
            worker.close()


def _send(worker: Worker, chunk: list[Task]) -> None:
    worker.send(pickle.dumps(chunk, protocol=pickle.HIGHEST_PROTOCOL))


def _chunks(tasks: Sequence[Task], sizes: Sequence[int]) -> list[list[Task]]:
    chunks: list[list[Task]] = []
    chunk: list[Task] = []
    size = chars = 0
    for task, n in zip(tasks, sizes, strict=True):
        full = size + n > CHUNK_BYTES or chars + len(task.path) > CHUNK_PATH_CHARS
        if chunk and (full or len(chunk) >= CHUNK_FILES):
            chunks.append(chunk)
            chunk, size, chars = [], 0, 0
        chunk.append(task)
        size += n
        chars += len(task.path)
    if chunk:
        chunks.append(chunk)
    return chunks
