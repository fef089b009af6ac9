"""Opening transcript files without ever blocking: only regular files are read.

A FIFO (or a device) named like a transcript would make a plain `open()` wait forever for a
writer, and ingest holds the index lock while it reads. So a file is opened non-blocking, checked
with `fstat` on the open descriptor (no race between a check and the open), and refused unless it
is a regular file.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import BinaryIO

_NONBLOCK: int = getattr(os, "O_NONBLOCK", 0)  # absent on Windows, where FIFOs are no files
_FLAGS = os.O_RDONLY | _NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


class NotRegularFileError(OSError):
    """The path names a FIFO, socket, device or folder, not a file ingest may read."""


def _open_fd(path: str | Path) -> int:
    """A descriptor of the regular file at `path`, opened without waiting for a writer, or
    `NotRegularFileError` (nothing left open)."""
    fd = os.open(path, _FLAGS)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise NotRegularFileError(errno.EINVAL, "not a regular file", str(path))
    except BaseException:
        os.close(fd)
        raise
    return fd


def open_regular(path: str | Path) -> BinaryIO:
    """`path` opened for binary reading, or `NotRegularFileError` (an OSError) when it is not a
    regular file. The open never waits for a writer."""
    fd = _open_fd(path)
    try:
        if _NONBLOCK:  # reads of a regular file never block; blocking mode keeps them ordinary
            os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular(path: str | Path) -> bytes:
    """The bytes of the regular file at `path` (see `open_regular`)."""
    with open_regular(path) as fh:
        return fh.read()


def read_head(path: str | Path, size: int) -> bytes:
    """The first `size` bytes (fewer when the file is shorter) of the regular file at `path`, read
    on the bare descriptor: ingest asks for every source's head, and a buffered file object for
    one small read cost more than the read."""
    fd = _open_fd(path)
    try:
        parts: list[bytes] = []
        while size > 0:
            part = os.read(fd, size)  # a regular file's read never blocks, O_NONBLOCK or not
            if not part:
                break
            parts.append(part)
            size -= len(part)
        return b"".join(parts)
    finally:
        os.close(fd)


def is_regular_or_dir(mode: int) -> bool:
    """Whether a `stat` mode is something a source may be: a regular file or a folder."""
    return stat.S_ISREG(mode) or stat.S_ISDIR(mode)
