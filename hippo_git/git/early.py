"""Git commands started before they are needed, while Python still imports what will read them.

The pre-commit check's first question to git (what is staged) does not depend on anything
Python has to load first, and the machine has more than one core: git answers while config,
parsing and redaction are imported. Only the standard library's subprocess is imported here.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

STAGED = ("diff", "--cached", "--name-only", "--diff-filter=ACMR", "-z")

_started: dict[tuple[str, ...], subprocess.Popen[bytes]] = {}


def start(cwd: Path, args: tuple[str, ...]) -> None:
    """Start `git ARGS` in `cwd` (hooks off, as `repo.run_git` runs git); `take` reads it."""
    env = dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C")
    with contextlib.suppress(OSError):  # no git binary: the caller asks again and reports it
        _started[(str(cwd), *args)] = subprocess.Popen(
            ["git", "-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat", *args],
            cwd=cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            env=env,
        )


def take(cwd: Path, args: tuple[str, ...]) -> bytes | None:
    """The output of `git ARGS` started in `cwd` by `start`, or None when it was not started there
    or failed (the caller then runs it itself, and reports git's own words)."""
    proc = _started.pop((str(cwd), *args), None)
    if proc is None:
        return None
    out, _ = proc.communicate()
    return out if proc.returncode == 0 else None
