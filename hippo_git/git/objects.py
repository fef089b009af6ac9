"""Git objects, refs and notes through pygit2, without touching any working tree or index.

`GitStore` opens the repository once; callers keep one per batch (a dream run, one apply) so
the hot path never reopens the repository or spawns git. Every ref it writes goes through
`cas_ref`: the ref is locked, re-read under the lock and moved only when it still holds the
expected value (DESIGN invariant 5). Notes are appended as new notes commits on top of the old
notes tip, by the same compare-and-swap, retrying when another writer got there first.

Commit identities and dates come from GIT_AUTHOR_*/GIT_COMMITTER_* when set (as git itself
does), so runs are reproducible in tests and CI; otherwise from `user.name`/`user.email`.
"""

from __future__ import annotations

from hippo_git.git.commit_diffs import CommitDiffs
from hippo_git.git.identity import now_iso, parse_git_date
from hippo_git.git.note_trees import NoteTrees

__all__ = ["GitStore", "now_iso", "parse_git_date"]


class GitStore(CommitDiffs, NoteTrees):
    """One open repository: read objects, build commits and notes, move refs by compare-and-swap.

    Its parts: `ObjectStore` (`object_store.py`: objects and refs), `CommitDiffs`
    (`commit_diffs.py`: what a commit changes) and `NoteTrees` (`note_trees.py`: git notes)."""
