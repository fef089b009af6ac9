"""Starting `git hippo hook EVENT` as a detached process: what a hook hands off so that it can
answer the harness at once (an ingest, finishing the notes index)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def spawn_hook(home: Path, root: Path, event: str, log_name: str, payload: bytes | None = None) -> None:
    """Run `python -m hippo_git hook EVENT` in `root`, in its own session (it outlives the hook),
    logging to `$HIPPO_HOME/logs/<log_name>`; `payload` goes to its stdin. Returns without waiting."""
    logs = home / "logs"
    logs.mkdir(parents=True, exist_ok=True)
    with (logs / log_name).open("ab") as out:
        proc = subprocess.Popen(
            [sys.executable, "-m", "hippo_git", "hook", event],
            cwd=root,
            stdin=subprocess.PIPE if payload is not None else subprocess.DEVNULL,
            stdout=out,
            stderr=out,
            start_new_session=True,
            close_fds=True,
        )
    if proc.stdin is not None:
        try:
            # A few hundred bytes: well inside the pipe buffer, so this never blocks on the child.
            proc.stdin.write(payload or b"")
        finally:
            proc.stdin.close()
    proc.returncode = 0  # detached on purpose: no ResourceWarning about a child left running
