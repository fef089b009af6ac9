"""Worker subprocesses for ingest and the rollup: `python -m <module>`, fed pickles through pipes.

Plain subprocesses rather than `multiprocessing`: a worker starts from a clean interpreter (no
open database or lock inherited, no re-import of the caller's main script), ignores Ctrl-C (its
parent stops it) and leaves at the end of its input, so a killed parent leaves no process behind.
Requests are pickles on the worker's stdin; each reply is an 8-byte length and a pickle on its
stdout, read by a thread as soon as it comes (a worker blocked on a full pipe while its parent
wrote used to idle for a fifth of an ingest). Callers keep what they have sent and not yet had
answered small (a pipe holds 64 KiB), so a send never blocks for long. A worker that fails is
closed and answers None from then on: callers do its share in process.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import signal
import subprocess
import sys
import threading
from collections import deque
from collections.abc import Callable
from pathlib import Path
from typing import IO, Any

PIPE_SAFE_BYTES = 48 * 1024  # the most a caller should have sent and not yet had answered
REPLY_PIPE_BYTES = 1024 * 1024
# Workers yield the CPU to their parent: the one writer is the pipeline's narrowest step, and
# with as many workers as CPUs it would otherwise get a CPU only part of the time.
NICE = 10
_PACKAGE_ROOT = str(Path(__file__).resolve().parents[2])


def cpu_count() -> int:
    """CPUs this process may run on."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


class Worker:
    """One worker process running `python -m module *args`. A thread reads its replies as they
    come, so a worker never waits on a full pipe while this process is busy (writing, or
    preparing a chunk itself); workers that share `arrived` can be waited on together."""

    def __init__(self, module: str, *args: str, arrived: threading.Condition | None = None) -> None:
        # Only where this hippo_git was imported from (a checkout, or site-packages): the caller's
        # script folder on the path could shadow the standard library in the worker.
        paths = [_PACKAGE_ROOT, *filter(None, os.environ.get("PYTHONPATH", "").split(os.pathsep))]
        env = dict(os.environ, PYTHONPATH=os.pathsep.join(paths))
        self.proc: subprocess.Popen[bytes] | None = subprocess.Popen(
            [sys.executable, "-m", module, *args],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=env,
        )
        # A roomy pipe lets a worker hand over a reply while the reader thread waits for the GIL
        # (Linux; elsewhere the default size is kept).
        with contextlib.suppress(AttributeError, OSError):
            fcntl.fcntl(self.proc.stdout.fileno(), fcntl.F_SETPIPE_SZ, REPLY_PIPE_BYTES)  # type: ignore[union-attr]
        self.arrived = arrived if arrived is not None else threading.Condition()
        self._replies: deque[bytes | None] = deque()  # None: the worker's output ended or broke
        assert self.proc.stdout is not None
        self._reader = threading.Thread(target=self._read_replies, args=(self.proc.stdout,), daemon=True)
        self._reader.start()

    @property
    def alive(self) -> bool:
        return self.proc is not None

    def send(self, data: bytes) -> bool:
        """Send one pickled request; False when the worker has failed."""
        if self.proc is None:
            return False
        stdin: IO[bytes] = self.proc.stdin  # type: ignore[assignment]
        try:
            stdin.write(data)
            stdin.flush()
        except OSError:
            self.close()
            return False
        return True

    def ready(self) -> bool:
        """Whether a reply is in (or the worker has gone): `receive` will not wait."""
        return self.proc is None or bool(self._replies)

    def receive(self) -> Any:
        """The reply to the oldest request, or None when the worker failed."""
        if self.proc is None:
            return None
        with self.arrived:
            while not self._replies:
                self.arrived.wait()
            data = self._replies.popleft()
        if data is not None:  # None: the output ended or broke
            try:
                return pickle.loads(data)
            except Exception:  # a reply that does not unpickle, whatever the error: a broken worker
                pass
        self.close()
        return None

    def _read_replies(self, stdout: IO[bytes]) -> None:
        fd = stdout.fileno()
        try:
            while True:
                size = int.from_bytes(_read(fd, 8), "big")
                data = _read(fd, size)
                with self.arrived:
                    self._replies.append(data)
                    self.arrived.notify_all()
        except (OSError, EOFError, ValueError):
            with self.arrived:
                self._replies.append(None)
                self.arrived.notify_all()

    def close(self) -> None:
        proc, self.proc = self.proc, None
        if proc is None:
            return
        # Its input ends first: the worker leaves, its output ends, and the reader thread with it.
        with contextlib.suppress(OSError):
            if proc.stdin is not None:
                proc.stdin.close()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
        self._reader.join()
        with contextlib.suppress(OSError):
            if proc.stdout is not None:
                proc.stdout.close()


def _read(fd: int, n: int) -> bytes:
    parts = []
    while n:
        part = os.read(fd, min(n, 1 << 20))
        if not part:
            raise EOFError
        parts.append(part)
        n -= len(part)
    return b"".join(parts)


def wait_any(workers: list[Worker]) -> list[int]:
    """Block until at least one of `workers` (sharing one `arrived`) has a reply in or has gone;
    their indexes."""
    arrived = workers[0].arrived
    with arrived:
        while True:
            ready = [i for i, w in enumerate(workers) if w.ready()]
            if ready:
                return ready
            arrived.wait()


def serve(handle: Callable[[Any], Any]) -> None:
    """A worker's main loop: answer each pickled request on stdin with `handle(request)` until
    stdin ends; leave quietly when the parent is gone."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C and closes our pipes
    with contextlib.suppress(OSError):
        os.nice(NICE)
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    try:
        while True:
            try:
                request = pickle.load(stdin)
            except EOFError:
                break
            data = pickle.dumps(handle(request), protocol=pickle.HIGHEST_PROTOCOL)
            stdout.write(len(data).to_bytes(8, "big") + data)
            stdout.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass
    os._exit(0)  # no flush of a broken stdout at exit (that would print an error)
