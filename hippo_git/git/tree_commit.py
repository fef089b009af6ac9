"""One commit on the current branch that sets several files at once (a pack added, updated or removed).

The branch moves by compare-and-swap and the working tree follows as `git merge --ff-only` would
(`worktree.advance_branch`), so a person sees the commit in `git log` and pushes it like any other.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from hippo_git.errors import GitError
from hippo_git.git.objects import GitStore
from hippo_git.git.worktree import advance_branch


def tree_with_files(store: GitStore, commit: str, files: Mapping[str, bytes | None]) -> str:
    """The tree of `commit` with each path set to its bytes (None: removed)."""
    blobs = {path: store.write_blob(data) if data is not None else None for path, data in files.items()}
    return store.tree_with_all(commit, blobs)


def commit_files(
    store: GitStore, branch: str, files: Mapping[str, bytes | None], message: str, *, retry: str
) -> str:
    """Commit `files` on top of `branch` and move it (compare-and-swap); return the new commit."""
    old = store.ref_target(f"refs/heads/{branch}")
    if old is None:
        raise GitError(f"branch {branch!r} has no commits yet", hint="make a first commit, then retry")
    tree = tree_with_files(store, old, files)
    new = store.write_commit(tree, [old], message)
    advance_branch(store, branch, new, old, sorted(files), message=message, retry=retry)
    return new


def tracked_paths(root: Path, prefix: str) -> list[str]:
    """Paths under `prefix` (a folder ending in '/') in HEAD's tree."""
    from hippo_git.git.repo import run_git

    proc = run_git(["ls-tree", "-r", "--name-only", "-z", "HEAD", "--", prefix], cwd=root, check=False)
    return sorted(p for p in proc.stdout.split("\0") if p.startswith(prefix)) if proc.returncode == 0 else []
