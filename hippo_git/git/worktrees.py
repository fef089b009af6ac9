"""The working trees of a repository (the main one and its linked worktrees)."""

from __future__ import annotations

from pathlib import Path

from hippo_git.errors import GitError
from hippo_git.git.repo import run_git


def worktree_paths(root: Path) -> list[Path]:
    """Every working tree of the repository containing `root`, `root`'s own first.

    Falls back to `[root]` when git cannot list them (no git binary, not a repository), so
    callers deciding which sessions belong to a workspace still get the folder they are in.
    """
    try:
        proc = run_git(["worktree", "list", "--porcelain"], cwd=root, check=False)
    except GitError:
        return [root]
    paths = [root]
    if proc.returncode == 0:
        for line in proc.stdout.splitlines():
            if line.startswith("worktree "):
                path = Path(line[len("worktree ") :])
                if path not in paths:
                    paths.append(path)
    return paths
