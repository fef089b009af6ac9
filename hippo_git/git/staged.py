"""Reading what is staged for commit, in few git calls (the pre-commit hook must be fast)."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hippo_git.git.repo import run_git


def staged_changes(root: Path) -> list[str]:
    """Paths added, copied, modified or renamed in the index against HEAD (or all, before a first commit)."""
    out = run_git(["diff", "--cached", "--name-only", "--diff-filter=ACMR", "-z"], cwd=root).stdout
    return [p for p in out.split("\0") if p]


def index_paths(root: Path, under: str) -> list[str]:
    """Every path in the index under folder `under` (what the commit will contain)."""
    out = run_git(["ls-files", "-z", "--", under], cwd=root).stdout
    return [p for p in out.split("\0") if p]


def staged_blobs(root: Path, paths: list[str]) -> dict[str, bytes]:
    """The staged content of each path, through one `git cat-file --batch`."""
    if not paths:
        return {}
    request = "".join(f":0:{p}\n" for p in paths).encode("utf-8")
    proc = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", "cat-file", "--batch"],
        cwd=root,
        input=request,
        capture_output=True,
        check=True,
    )
    data = proc.stdout
    out: dict[str, bytes] = {}
    pos = 0
    for path in paths:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out[path] = data[pos : pos + size]
            pos += size + 1
    return out


def changed_between(root: Path, old: str, new: str) -> list[str]:
    out = run_git(["diff", "--name-only", "-z", old, new], cwd=root).stdout
    return [p for p in out.split("\0") if p]
