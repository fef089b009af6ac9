"""The compare-and-swap fast-forward of a branch that may be checked out (`git/worktree.py`,
invariant 5), called directly: which worktree follows, which paths count as dirty, and that a
failed swap leaves the worktree as it was (issue 21's mutation testing)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hippo_git.errors import StaleRefError
from hippo_git.git.objects import GitStore
from hippo_git.git.worktree import DirtyNoteError, advance_branch, checkout_of, dirty_paths
from tests.conftest import git, make_repo

FILES = {"notes/a.md": "# A\n", "notes/b.md": "# B\n", "notes/c d.md": "# C\n"}


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo", files=dict(FILES))


def _child(root: Path, parent: str, changes: dict[str, str]) -> str:
    """A commit on `parent` with `changes` (path → text), made without touching any checkout."""
    store = GitStore(root)
    tree = git(root, "rev-parse", f"{parent}^{{tree}}")
    for path, text in changes.items():
        holder = git(root, "commit-tree", tree, "-p", parent, "-m", "tmp")
        tree = store.tree_with(holder, path, store.write_blob(text.encode()))
    return git(root, "commit-tree", tree, "-p", parent, "-m", "change")


def test_checkout_of_finds_the_worktree_of_exactly_that_branch(root: Path, tmp_path: Path) -> None:
    assert checkout_of(root, "main") == root
    assert checkout_of(root, "mai") is None
    git(root, "branch", "main2")
    git(root, "branch", "side")
    linked = tmp_path / "linked"
    git(root, "worktree", "add", "-q", str(linked), "main2")
    assert checkout_of(root, "main2") in {linked, linked.resolve()}
    assert checkout_of(root, "main") == root
    assert checkout_of(root, "side") is None


def test_a_branch_not_checked_out_moves_by_ref_only(root: Path) -> None:
    git(root, "branch", "side")
    old = git(root, "rev-parse", "side")
    new = _child(root, old, {"notes/a.md": "# A\nmore\n"})
    (root / "notes/a.md").write_text("dirty in main's checkout\n")
    store = GitStore(root)
    assert advance_branch(store, "side", new, old, ["notes/a.md"], message="m", retry="r") is None
    assert git(root, "rev-parse", "side") == new
    assert (root / "notes/a.md").read_text() == "dirty in main's checkout\n"


def test_the_checked_out_branch_moves_with_its_files_and_index(root: Path) -> None:
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/c d.md": "# C\nmore\n"})
    store = GitStore(root)
    moved = advance_branch(store, "main", new, old, ["notes/c d.md"], message="why", retry="r")
    assert moved == root and git(root, "rev-parse", "main") == new
    assert (root / "notes/c d.md").read_text() == "# C\nmore\n"
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "reflog", "-1", "--format=%gs", "refs/heads/main") == "why"


def test_dirty_paths_counts_an_edit_or_a_staged_change_of_a_touched_path_only(root: Path) -> None:
    store = GitStore(root)
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/a.md": "# A\nnew\n", "notes/b.md": "# B\nnew\n"})
    assert dirty_paths(root, [], store, new) == []
    (root / "notes/a.md").write_text("edited\n")
    (root / "notes/b.md").write_text("staged\n")
    git(root, "add", "notes/b.md")
    (root / "notes/c d.md").write_text("untouched by the update\n")
    assert dirty_paths(root, ["notes/b.md", "notes/a.md"], store, new) == ["notes/a.md", "notes/b.md"]
    assert dirty_paths(root, ["notes/a.md"], store, new) == ["notes/a.md"]


def test_a_path_already_holding_the_new_content_is_not_dirty(root: Path) -> None:
    """A previous apply got as far as the worktree: staged and on disk both hold `new`'s blob."""
    store = GitStore(root)
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/a.md": "# A\nnew\n"})
    (root / "notes/a.md").write_text("# A\nnew\n")
    assert dirty_paths(root, ["notes/a.md"], store, new) == ["notes/a.md"]  # on disk only
    git(root, "add", "notes/a.md")
    assert dirty_paths(root, ["notes/a.md"], store, new) == []
    (root / "notes/a.md").write_text("# A\nnewer\n")  # staged, but the file moved on
    assert dirty_paths(root, ["notes/a.md"], store, new) == ["notes/a.md"]


def test_a_dirty_path_stops_the_move_naming_every_one(root: Path) -> None:
    store = GitStore(root)
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/a.md": "# A\nnew\n", "notes/b.md": "# B\nnew\n"})
    (root / "notes/a.md").write_text("mine\n")
    (root / "notes/b.md").write_text("mine too\n")
    touched = ["notes/a.md", "notes/b.md"]
    with pytest.raises(DirtyNoteError) as caught:
        advance_branch(store, "main", new, old, touched, message="m", retry="git hippo apply r7")
    err = caught.value
    assert err.paths == touched
    assert err.message == f"uncommitted changes in notes/a.md, notes/b.md (in {root}); nothing was applied"
    assert err.hint == "commit or stash your changes to notes/a.md, notes/b.md, then run `git hippo apply r7`"
    assert git(root, "rev-parse", "main") == old
    assert (root / "notes/a.md").read_text() == "mine\n"


def test_a_failed_swap_puts_the_worktree_back(root: Path) -> None:
    store = GitStore(root)
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/a.md": "# A\nnew\n"})
    theirs = _child(root, old, {"notes/b.md": "# B\ntheirs\n"})
    (root / "notes/c d.md").write_text("a person's unrelated edit\n")
    git(root, "update-ref", "refs/heads/main", theirs)  # moved by someone after we read `old`
    with pytest.raises(StaleRefError):
        advance_branch(store, "main", new, old, ["notes/a.md"], message="m", retry="r")
    assert git(root, "rev-parse", "main") == theirs
    assert (root / "notes/a.md").read_text() == "# A\n"
    assert (root / "notes/c d.md").read_text() == "a person's unrelated edit\n"
    assert git(root, "diff", "--cached", "--name-only", old) == ""


def test_a_staged_new_content_with_another_file_on_disk_is_dirty_either_way(root: Path) -> None:
    """Both the index entry and the file must hold `new`'s blob: a file that differs is dirty
    whether its blob id sorts above or below the wanted one."""
    store = GitStore(root)
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/a.md": "# A\nnew\n"})
    want = store.blob_at(new, "notes/a.md")
    (root / "notes/a.md").write_text("# A\nnew\n")
    git(root, "add", "notes/a.md")
    seen = set()
    for n in range(8):
        text = f"# A\nnew {n}\n"
        (root / "notes/a.md").write_text(text)
        seen.add(store.write_blob(text.encode()) < want)
        assert dirty_paths(root, ["notes/a.md"], store, new) == ["notes/a.md"]
    assert seen == {True, False}


def test_a_deleted_file_is_dirty_not_an_error(root: Path) -> None:
    store = GitStore(root)
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/a.md": "# A\nnew\n"})
    (root / "notes/a.md").unlink()
    assert dirty_paths(root, ["notes/a.md"], store, new) == ["notes/a.md"]


def test_an_index_locked_by_another_git_process_still_shows_what_is_dirty(root: Path) -> None:
    """The refresh is best effort: another process (an editor's `git status`) may hold the lock."""
    store = GitStore(root)
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/a.md": "# A\nnew\n"})
    (root / "notes/a.md").write_text("mine\n")
    (root / ".git/index.lock").write_text("")
    assert dirty_paths(root, ["notes/a.md"], store, new) == ["notes/a.md"]


def test_a_file_holding_the_new_content_over_another_staged_one_is_dirty_either_way(root: Path) -> None:
    store = GitStore(root)
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/a.md": "# A\nnew\n"})
    want = store.blob_at(new, "notes/a.md")
    seen = set()
    for n in range(8):
        text = f"# A\nstaged {n}\n"
        (root / "notes/a.md").write_text(text)
        git(root, "add", "notes/a.md")
        seen.add(store.write_blob(text.encode()) < want)
        (root / "notes/a.md").write_text("# A\nnew\n")
        assert dirty_paths(root, ["notes/a.md"], store, new) == ["notes/a.md"]
    assert seen == {True, False}


def test_when_putting_back_fails_too_the_stale_ref_is_still_what_is_raised(root: Path) -> None:
    # The new content is staged with a further edit on disk, on a path the caller did not name as
    # touched: the move forward keeps that entry, but moving back would overwrite the edit, so git
    # refuses. The caller must still learn why nothing moved (the branch is locked), and the edit
    # must survive.
    store = GitStore(root)
    old = git(root, "rev-parse", "main")
    new = _child(root, old, {"notes/a.md": "# A\nnew\n"})
    (root / "notes/a.md").write_text("# A\nnew\n")
    git(root, "add", "notes/a.md")
    (root / "notes/a.md").write_text("# A\nnew\nmore of mine\n")
    (root / ".git/refs/heads/main.lock").write_text("held by another git process\n")
    with pytest.raises(StaleRefError, match="locked"):
        advance_branch(store, "main", new, old, [], message="m", retry="r")
    (root / ".git/refs/heads/main.lock").unlink()
    assert git(root, "rev-parse", "main") == old
    assert (root / "notes/a.md").read_text() == "# A\nnew\nmore of mine\n"
