"""One ingest at a time per index: an advisory lock file beside the index holding the owner's pid.

`flock` is released by the kernel when its holder dies, so a lock file left behind by a killed
ingest is simply taken over by the next one; the pid in the file only serves the error message
(and `doctor`'s stale-lock check).
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path
from types import TracebackType

from hippo_git.errors import LockedError


def lock_path_for(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + ".lock")


class IndexLock:
    """Exclusive, non-blocking; raises LockedError naming the holder's pid when taken."""

    def __init__(self, index_path: Path) -> None:
        self.path = lock_path_for(index_path)
        self._fd: int | None = None

    def acquire(self) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = lock_holder(self.path)
            who = f" (pid {holder})" if holder else ""
            raise LockedError(
                f"another ingest{who} is writing the index {self.path.with_suffix('')}",
                hint="wait for it to finish; readers (search, sessions) keep working meanwhile",
            ) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> IndexLock:
        self.acquire()
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.release()


def lock_holder(path: Path) -> int | None:
    """The pid written in a lock file, or None when empty or unreadable."""
    try:
        text = path.read_text(encoding="ascii", errors="replace").strip()
    except OSError:
        return None
    return int(text) if text.isdigit() else None


def is_held(index_path: Path) -> bool:
    """True when a live process holds the ingest lock (a leftover file from a dead one is not held)."""
    path = lock_path_for(index_path)
    if not path.exists():
        return False
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)
    return False
