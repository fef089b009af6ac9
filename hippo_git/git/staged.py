"""Reading what is staged for commit, in few git calls (the pre-commit hook must be fast)."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from hippo_git.errors import GitError, NotARepoError
from hippo_git.git.early import STAGED, take
from hippo_git.git.repo import run_git


def worktree_top(cwd: Path) -> Path:
    """The top of the working tree containing `cwd`, in one git call (`repo.discover` makes four);
    no call at all when `cwd` holds the `.git` entry itself (git runs its hooks there)."""
    if (cwd / ".git").exists():
        return cwd
    proc = run_git(["rev-parse", "--show-toplevel"], cwd=cwd, check=False)
    top = proc.stdout.strip()
    if proc.returncode != 0 or not top:
        raise NotARepoError(f"not inside a git working tree: {cwd}", hint="run this inside a git repository")
    return Path(top)


def staged_changes(root: Path) -> list[str]:
    """Paths added, copied, modified or renamed in the index against HEAD (or all, before a first
    commit); read from the git started ahead (`early.start`) when there is one."""
    early = take(root, STAGED)
    if early is not None:
        return [os.fsdecode(p) for p in early.split(b"\0") if p]
    out = run_git(list(STAGED), cwd=root).stdout
    return [p for p in out.split("\0") if p]


def index_paths(root: Path, under: str) -> list[str]:
    """Every path in the index under folder `under` (what the commit will contain)."""
    out = run_git(["ls-files", "-z", "--", under], cwd=root).stdout
    return [p for p in out.split("\0") if p]


class PendingPaths:
    """`index_paths` started now and read later, so git lists the paths while Python works."""

    def __init__(self, root: Path, under: str) -> None:
        self._proc = subprocess.Popen(
            ["git", "-c", "core.hooksPath=/dev/null", "ls-files", "-z", "--", under],
            cwd=root,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )

    def result(self) -> list[str]:
        out, err = self._proc.communicate()
        if self._proc.returncode != 0:
            said = err.decode("utf-8", "replace").strip().splitlines()
            raise GitError(f"git ls-files failed: {said[-1] if said else self._proc.returncode}")
        return [os.fsdecode(p) for p in out.split(b"\0") if p]


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


def title_lines(root: Path, under: str) -> list[tuple[str, str]]:
    """(path, line) of every `title:` line and `# heading` line of the tracked files under `under`
    (as in the working tree), in one `git grep`; [] when git fails. Text that is not UTF-8 is
    read with replacement characters (a note in another encoding must not break a commit)."""
    proc = subprocess.run(
        ["git", "-c", "core.hooksPath=/dev/null", "grep", "-I", "-z", "--no-color"]
        + ["-e", "^title:", "-e", "^#[[:blank:]]", "--", under],
        cwd=root,
        capture_output=True,
    )
    if proc.returncode != 0:
        return []
    rows = (row.partition(b"\0") for row in proc.stdout.split(b"\n"))
    return [(os.fsdecode(path), line.decode("utf-8", "replace")) for path, _, line in rows if line]


def changed_between(root: Path, old: str, new: str) -> list[str]:
    out = run_git(["diff", "--name-only", "-z", old, new], cwd=root).stdout
    return [p for p in out.split("\0") if p]
