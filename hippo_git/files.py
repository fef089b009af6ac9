"""Writing files atomically: a reader (or a crash) sees the old file or the new one, never half.

Shared by every package, like `config` and `errors`.
"""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
from pathlib import Path
from typing import Any


def write_text_atomic(path: Path, text: str, *, mode: int | None = None) -> None:
    """Write `text` to `path` through a temporary file in the same folder and a rename.

    `mode` sets the permissions; by default an existing file keeps its own.
    """
    path.parent.mkdir(parents=True, exist_ok=True)
    if mode is None and path.exists():
        mode = path.stat().st_mode & 0o7777
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".hippo-tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="") as fh:
            fh.write(text)
        if mode is not None:
            os.chmod(tmp, mode)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def write_json_atomic(path: Path, data: Any, *, indent: int | None = 2) -> None:
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    write_text_atomic(path, text + "\n" if indent is not None else text)


class FileLock:
    """An exclusive, non-blocking `flock` on `path`, holding "pid N on HOST" for messages.

    The kernel releases a flock when its holder dies, so the lock file of a killed process is
    simply taken over by the next one: a leftover file never blocks anybody.
    """

    def __init__(self, path: Path, *, busy: str, hint: str) -> None:
        self.path = path
        self.busy = busy
        self.hint = hint
        self._fd: int | None = None

    def acquire(self) -> None:
        import fcntl
        import socket

        from hippo_git.errors import LockedError

        self.path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o644)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            os.close(fd)
            holder = lock_holder(self.path)
            raise LockedError(f"{self.busy}{f' ({holder})' if holder else ''}", hint=self.hint) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"pid {os.getpid()} on {socket.gethostname()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        import fcntl

        if self._fd is None:
            return
        fd, self._fd = self._fd, None
        try:
            os.ftruncate(fd, 0)
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)

    def __enter__(self) -> FileLock:
        self.acquire()
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()


def pid_alive(pid: int) -> bool:
    """True when a process with this id exists (one we may not signal counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def lock_holder(path: Path) -> str | None:
    """What the holder wrote in a lock file ("pid N on HOST"), or None."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return None
    return text or None


def lock_state(path: Path) -> tuple[bool, int | None]:
    """(held by some process right now, the pid written in it)."""
    import fcntl

    if not path.exists():
        return False, None
    text = lock_holder(path) or ""
    pid = next((int(word) for word in text.split() if word.isdigit()), None)
    fd = os.open(path, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
    except BlockingIOError:
        return True, pid
    finally:
        os.close(fd)
    return False, pid
