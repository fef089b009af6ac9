"""Preparing sources in worker processes while the one writer stores them.

Parsing and redaction cost about twice what SQLite spends writing the index, so a large ingest
hands them to worker processes (`python -m hippo_git.index.worker`, one pickle stream each way)
and writes the results in the order the sources were given. Sources go out in small chunks,
round-robin, at most `AHEAD` chunks per worker at a time, so memory stays flat however large the
corpus and a chunk list always fits the pipe (the writer never blocks feeding a busy worker). A
small ingest (an agent hook's one session) reads in process: starting workers would cost more
than it saves.

Workers are plain subprocesses rather than `multiprocessing`: they start from a clean interpreter
(no open database or lock inherited, no re-import of the caller's main script), ignore Ctrl-C
(the writer stops them), and leave at end of input, so a killed ingest leaves no process behind.
A worker that dies (killed, out of memory) is not fatal: its chunks are prepared in process.
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import IO

from hippo_git.errors import UsageError
from hippo_git.index.prepare import Prepared, Task, prepare
from hippo_git.index.scrub import Scrubber

WORKERS_ENV = "HIPPO_INGEST_WORKERS"
# Below this much to read, worker start-up (≈ 0.2 s each) costs more than it saves.
POOL_MIN_BYTES = 32 * 1024 * 1024
CHUNK_BYTES = 4 * 1024 * 1024  # of transcript, per chunk
CHUNK_FILES = 64
CHUNK_PATH_CHARS = 12_000  # so AHEAD pickled chunk lists stay well under a 64 KiB pipe buffer
AHEAD = 2
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def worker_count(requested: int | None, tasks: int, total_bytes: int) -> int:
    """How many worker processes to use: `requested`, else $HIPPO_INGEST_WORKERS, else one per CPU
    for a large ingest. 0 or 1 means in process."""
    if requested is None:
        raw = os.environ.get(WORKERS_ENV, "").strip()
        if raw:
            if not raw.isdigit():
                raise UsageError(
                    f"{WORKERS_ENV}={raw!r} is not a number", hint="set it to a worker count, or 0 for none"
                )
            requested = int(raw)
        elif total_bytes >= POOL_MIN_BYTES:
            requested = (
                len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
            )
        else:
            requested = 0
    return min(requested, tasks) if requested > 1 and tasks > 1 else 0


def prepared(tasks: Sequence[Task], sizes: Sequence[int], workers: int) -> Generator[Prepared, None, None]:
    """Each task's `Prepared`, in the order of `tasks`."""
    scrub = Scrubber()
    if workers < 2:
        for task in tasks:
            yield prepare(task, scrub)
        return
    chunks = _chunks(tasks, sizes)
    pool = [_Worker() for _ in range(min(workers, len(chunks)))]
    try:
        for i in range(min(len(chunks), len(pool) * AHEAD)):
            pool[i % len(pool)].send(chunks[i])
        for i, chunk in enumerate(chunks):
            worker = pool[i % len(pool)]
            results = worker.receive()
            if results is None:  # the worker died: this chunk (and the rest of its share) in process
                results = [prepare(task, scrub) for task in chunk]
            nxt = i + len(pool) * AHEAD
            if nxt < len(chunks):
                worker.send(chunks[nxt])
            yield from results
    finally:
        for worker in pool:
            worker.close()


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


class _Worker:
    """One `hippo_git.index.worker` process; once it fails it is dead and receives nothing."""

    def __init__(self) -> None:
        # Only where this hippo_git was imported from (a checkout, or site-packages): the caller's
        # script folder on the path could shadow the standard library in the worker.
        paths = [_PACKAGE_ROOT, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
        self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", "hippo_git.index.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        self.sent = 0

    def send(self, chunk: list[Task]) -> None:
        if self.proc is None:
            return
        stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        try:
            pickle.dump(chunk, stdin, protocol=pickle.HIGHEST_PROTOCOL)
            stdin.flush()
            self.sent += 1
        except OSError:
            self.close()

    def receive(self) -> list[Prepared] | None:
        if self.proc is None or not self.sent:
            return None
        try:
            results: list[Prepared] = pickle.load(self.proc.stdout)  # type: ignore[arg-type]
        except (OSError, EOFError, pickle.UnpicklingError):
            self.close()
            return None
        self.sent -= 1
        return results

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        for pipe in (proc.stdin, proc.stdout):
            try:
                if pipe is not None:
                    pipe.close()
            except OSError:
                pass
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
