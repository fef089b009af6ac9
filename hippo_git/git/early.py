"""Git commands started before they are needed, while Python still imports what will read them.

The pre-commit check's first question to git (what is staged) does not depend on anything
Python has to load first, and the machine has more than one core: git answers while config,
parsing and redaction are imported. Only `spawn` (no `subprocess`) is imported here.
"""

from __future__ import annotations

import os

from hippo_git.git.spawn import Git

# What is staged, with each path's staged blob id (read without cat-file when the object is loose:
# `staged.staged_blobs`). Without renames, a renamed file is listed as its new path, added.
STAGED = ("diff", "--cached", "--raw", "--no-abbrev", "--no-renames", "-z", "--diff-filter=ACMR")

_started: dict[tuple[str, ...], Git] = {}


def start(cwd: str | os.PathLike[str], args: tuple[str, ...]) -> None:
    """Start `git ARGS` in `cwd` (hooks off, as `repo.run_git` runs git); `take` reads it."""
    try:  # noqa: SIM105 - contextlib would be one more import on every commit
        _started[(os.fspath(cwd), *args)] = Git(cwd, args)
    except OSError:  # no git binary: the caller asks again and reports it
        pass


def take(cwd: str | os.PathLike[str], args: tuple[str, ...]) -> bytes | None:
    """The output of `git ARGS` started in `cwd` by `start`, or None when it was not started there
    or failed (the caller then runs it itself, and reports git's own words)."""
    proc = _started.pop((os.fspath(cwd), *args), None)
    if proc is None:
        return None
    code, out, _ = proc.communicate()
    return out if code == 0 else None
