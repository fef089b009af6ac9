"""Moving a branch that may be checked out: the working tree follows like `git merge --ff-only`.

The branch itself always moves by compare-and-swap (`GitStore.cas_ref`). When a worktree (the
main one or a linked one) has the branch checked out, its index and files are first moved from
the old tip to the new one with `git read-tree -m -u` (the two-tree merge `merge --ff-only`
does), after checking that none of the touched paths has uncommitted changes; if the
compare-and-swap then fails, the worktree is moved back, so nothing moves at all.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from hippo_git.errors import HippoError
from hippo_git.git.objects import GitStore
from hippo_git.git.repo import run_git

_LITERAL = {"GIT_LITERAL_PATHSPECS": "1"}


class DirtyNoteError(HippoError):
    """A path the update would change has uncommitted changes in the worktree."""

    def __init__(self, paths: Sequence[str], worktree: Path, retry: str) -> None:
        names = ", ".join(paths)
        super().__init__(
            f"uncommitted changes in {names} (in {worktree}); nothing was applied",
            hint=f"commit or stash your changes to {names}, then run `{retry}`",
        )
        self.paths = list(paths)


def checkout_of(root: Path, branch: str) -> Path | None:
    """The worktree that has `branch` checked out, or None."""
    listing = run_git(["worktree", "list", "--porcelain"], cwd=root).stdout
    path: Path | None = None
    for line in listing.splitlines():
        if line.startswith("worktree "):
            path = Path(line[len("worktree ") :])
        elif line == f"branch refs/heads/{branch}" and path is not None:
            return path
    return None


def dirty_paths(worktree: Path, paths: Sequence[str], store: GitStore, new: str) -> list[str]:
    """The `paths` whose index entry or file differs from HEAD, except when both already hold the
    content of `new` (a previous apply got as far as the worktree before it stopped)."""
    if not paths:
        return []
    run_git(["update-index", "-q", "--refresh"], cwd=worktree, check=False)
    out = run_git(
        ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths], cwd=worktree, env=_LITERAL
    ).stdout
    wanted = set(paths)
    listed = sorted({entry[3:] for entry in out.split("\0") if entry[3:] in wanted})
    dirty = []
    for path in listed:
        want = store.blob_at(new, path)
        staged = run_git(["ls-files", "-s", "--", path], cwd=worktree, env=_LITERAL).stdout.split()
        on_disk = run_git(["hash-object", "--", path], cwd=worktree, check=False).stdout.strip()
        if not (len(staged) >= 2 and staged[1] == want and on_disk == want):
            dirty.append(path)
    return dirty


def advance_branch(
    store: GitStore,
    branch: str,
    new: str,
    expected_old: str,
    touched: Sequence[str],
    *,
    message: str,
    retry: str,
) -> Path | None:
    """Move refs/heads/<branch> from `expected_old` to `new` (a descendant); return the worktree
    that was updated, if the branch is checked out. `touched` are the paths that change; `retry`
    is the command named in the dirty-worktree hint."""
    ref = f"refs/heads/{branch}"
    worktree = checkout_of(store.root, branch)
    if worktree is None:
        store.cas_ref(ref, new, expected_old, message)
        return None
    dirty = dirty_paths(worktree, touched, store, new)
    if dirty:
        raise DirtyNoteError(dirty, worktree, retry)
    run_git(["read-tree", "-m", "-u", expected_old, new], cwd=worktree)
    try:
        store.cas_ref(ref, new, expected_old, message)
    except BaseException:  # also Ctrl-C: put the worktree back, since the branch did not move
        run_git(["read-tree", "-m", "-u", new, expected_old], cwd=worktree, check=False)
        raise
    return worktree
