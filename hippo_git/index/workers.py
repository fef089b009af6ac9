"""Worker subprocesses for ingest and the rollup: `python -m <module>`, fed pickles through pipes.

Plain subprocesses rather than `multiprocessing`: a worker starts from a clean interpreter (no
open database or lock inherited, no re-import of the caller's main script), ignores Ctrl-C (its
parent stops it) and leaves at the end of its input, so a killed parent leaves no process behind.
Requests are pickles on the worker's stdin; each reply is an 8-byte length and a pickle on its
stdout, read unbuffered so `ready` can ask the descriptor. Callers keep what they have sent and
not yet had answered small (a pipe holds 64 KiB), so a send never waits for a worker that is
itself waiting to be read. A worker that fails is closed and answers None from then on: callers
do its share in process.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import pickle
import select
import signal
import subprocess
import sys
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
    """One worker process running `python -m module *args`."""

    def __init__(self, module: str, *args: str) -> None:
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
        # A roomy reply pipe lets a worker hand over a finished reply and go on to its next request
        # while the parent is still busy (Linux; elsewhere the default size is kept).
        with contextlib.suppress(AttributeError, OSError):
            fcntl.fcntl(self._fd, fcntl.F_SETPIPE_SZ, REPLY_PIPE_BYTES)

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
        """Whether a reply has begun to arrive (or the worker has gone): `receive` will not wait long."""
        if self.proc is None:
            return True
        return bool(select.select([self._fd], [], [], 0)[0])

    def receive(self) -> Any:
        """The reply to the oldest request, or None when the worker failed."""
        if self.proc is None:
            return None
        try:
            size = int.from_bytes(self._read(8), "big")
            return pickle.loads(self._read(size))
        except Exception:  # a reply that does not unpickle, whatever the error: a broken worker
            self.close()
            return None

    def fileno(self) -> int:
        """The reply pipe's descriptor, for `select` over several workers (`ready_among`)."""
        return self._fd

    @property
    def _fd(self) -> int:
        assert self.proc is not None and self.proc.stdout is not None
        return self.proc.stdout.fileno()

    def _read(self, n: int) -> bytes:
        # From the descriptor itself, unbuffered: `ready` asks the descriptor.
        parts = []
        while n:
            part = os.read(self._fd, min(n, 1 << 20))
            if not part:
                raise EOFError
            parts.append(part)
            n -= len(part)
        return b"".join(parts)

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


def wait_any(workers: list[Worker]) -> list[int]:
    """Block until at least one of `workers` has a reply arriving (or has gone); their indexes."""
    gone = [i for i, w in enumerate(workers) if not w.alive]
    if gone:
        return gone
    fds = {w.fileno(): i for i, w in enumerate(workers)}
    readable, _, _ = select.select(list(fds), [], [])
    return [fds[fd] for fd in readable]


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
