"""The current branch, read from the git dir's HEAD file without running git.

The agent-hook path (`git hippo context`) runs on every session start, so it reads `.git/HEAD`
directly (a few hundred microseconds) instead of paying for a git subprocess. Linked worktrees
and submodules have a `.git` *file* (`gitdir: <path>`) pointing at their own git dir.
"""

from __future__ import annotations

from pathlib import Path
from typing import NamedTuple


class Head(NamedTuple):
    branch: str | None  # None when detached or unreadable
    detached: str | None = None  # the commit id when HEAD is detached


def git_dir_of(worktree: Path) -> Path | None:
    """This worktree's git dir: `.git` itself, or where a `.git` file's `gitdir:` line points."""
    dot_git = worktree / ".git"
    if dot_git.is_dir():
        return dot_git
    try:
        first = dot_git.read_text(encoding="utf-8", errors="replace").splitlines()[0]
    except (OSError, IndexError):
        return None
    if not first.startswith("gitdir:"):
        return None
    target = Path(first.removeprefix("gitdir:").strip())
    return target if target.is_absolute() else (worktree / target).resolve()


def read_head(worktree: Path) -> Head:
    git_dir = git_dir_of(worktree)
    if git_dir is None:
        return Head(branch=None)
    try:
        text = (git_dir / "HEAD").read_text(encoding="utf-8", errors="replace").strip()
    except OSError:
        return Head(branch=None)
    if text.startswith("ref:"):
        ref = text.removeprefix("ref:").strip()
        return Head(branch=ref.removeprefix("refs/heads/") if ref.startswith("refs/heads/") else ref)
    return Head(branch=None, detached=text[:40] or None)
