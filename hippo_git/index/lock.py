"""One ingest at a time per index: a `FileLock` beside the index (`index.sqlite.lock`).

A lock file left behind by a killed ingest is simply taken over by the next one; readers
(search, context, MCP) never take it.
"""

from __future__ import annotations

from pathlib import Path

from hippo_git.files import FileLock, lock_state


def lock_path_for(index_path: Path) -> Path:
    return index_path.with_name(index_path.name + ".lock")


class IndexLock(FileLock):
    def __init__(self, index_path: Path) -> None:
        super().__init__(
            lock_path_for(index_path),
            busy=f"another ingest is writing the index {index_path}",
            hint="wait for it to finish; readers (search, sessions) keep working meanwhile",
        )


def is_held(index_path: Path) -> bool:
    """True when a live process holds the ingest lock (a leftover file from a dead one is not held)."""
    return lock_state(lock_path_for(index_path))[0]
