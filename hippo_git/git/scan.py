"""Incremental scans for the caches of team-scale commands: what changed in a notes ref between two
of its tips, and which commits a branch gained since a tip already seen.

Both answer in proportion to what changed, not to history: a notes tree diff touches only the
fan-out subtrees that differ, and a walk hides everything reachable from the tip already seen.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pygit2
from pygit2.enums import SortMode

from hippo_git.git.objects import GitStore


def common_dir(store: GitStore) -> Path:
    """The git dir shared by every worktree of the repository (where per-repository caches go)."""
    git_dir = Path(store.repo.path)
    pointer = git_dir / "commondir"
    if pointer.is_file():
        shared = Path(pointer.read_text(encoding="utf-8").strip())
        return shared if shared.is_absolute() else (git_dir / shared).resolve()
    return git_dir


def has_commit(store: GitStore, sha: str) -> bool:
    try:
        return isinstance(store.repo[sha], pygit2.Commit)
    except (KeyError, ValueError):
        return False


def _note_name(path: str) -> str | None:
    name = path.replace("/", "")
    return name if len(name) == 40 and all(c in "0123456789abcdef" for c in name) else None


def note_changes(store: GitStore, old_tip: str | None, new_tip: str) -> Iterator[tuple[str, str | None]]:
    """(annotated object, note text or None when removed) of every note that differs between the
    notes commits `old_tip` (None: an empty notes ref) and `new_tip`."""
    new_tree = store.repo[new_tip].peel(pygit2.Tree)
    if old_tip is None:
        yield from store._walk_notes(new_tree, "")
        return
    old_tree = store.repo[old_tip].peel(pygit2.Tree)
    removed: set[str] = set()
    changed: dict[str, str] = {}
    for delta in old_tree.diff_to_tree(new_tree).deltas:
        old_name, new_name = _note_name(delta.old_file.path), _note_name(delta.new_file.path)
        if old_name and delta.status_char() in ("D", "R"):
            removed.add(old_name)
        if new_name and delta.status_char() != "D":
            changed[new_name] = bytes(store.repo[delta.new_file.id].data).decode("utf-8", "replace")
    # A note moved between fan-out levels shows as a delete and an add of the same name.
    for name in removed - changed.keys():
        yield name, None
    yield from changed.items()


def new_commit_messages(store: GitStore, tip: str, seen: str | None) -> Iterator[tuple[str, str]]:
    """(sha, message) of every commit reachable from `tip` but not from `seen` (None: all)."""
    walker = store.repo.walk(pygit2.Oid(hex=tip), SortMode.NONE)
    if seen is not None:
        walker.hide(pygit2.Oid(hex=seen))
    for commit in walker:
        yield str(commit.id), commit.message
