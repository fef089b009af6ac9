"""One commit that sets several files (`git/tree_commit.py`), built by the store's tree code that a
dream's one-file commits use too (`ObjectStore.tree_with_all`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from hippo_git.errors import GitError, HippoError
from hippo_git.git.objects import GitStore
from hippo_git.git.tree_commit import commit_files, tree_with_files
from tests.conftest import git, make_repo


def test_several_files_are_set_and_removed_in_one_commit_the_work_tree_following(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", files={"keep.md": "k\n", "packs/old/a.md": "old\n"})
    store = GitStore(root)
    before = store.ref_target("refs/heads/main")
    new = commit_files(
        store,
        "main",
        {"packs/new/x.md": b"x\n", "packs/new/deep/y.md": b"y\n", "packs/old/a.md": None},
        "add new, drop old\n",
        retry="git hippo packs add",
    )
    assert git(root, "rev-parse", "HEAD") == new and store.commit_info(new).parents == (before,)
    assert git(root, "ls-tree", "-r", "--name-only", "HEAD").split() == [
        "keep.md",
        "packs/new/deep/y.md",
        "packs/new/x.md",
    ]
    assert (root / "packs/new/deep/y.md").read_text() == "y\n" and not (root / "packs/old").exists()
    assert git(root, "status", "--porcelain") == ""


def test_removing_every_file_leaves_the_empty_tree(repo: Path) -> None:
    store = GitStore(repo)
    head = store.ref_target("refs/heads/main") or ""
    empty = git(repo, "hash-object", "-t", "tree", "/dev/null")
    assert tree_with_files(store, head, {"README.md": None}) == empty


def test_an_executable_file_stays_executable_and_odd_paths_are_refused(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", files={"bin/run.sh": "echo 1\n", "file": "f\n"})
    git(root, "update-index", "--chmod=+x", "bin/run.sh")
    git(root, "commit", "-q", "-m", "executable")
    store = GitStore(root)
    head = store.ref_target("refs/heads/main") or ""
    tree = tree_with_files(store, head, {"bin/run.sh": b"echo 2\n"})
    assert git(root, "ls-tree", tree, "bin/run.sh").startswith("100755 blob")
    with pytest.raises(GitError, match="file in file/x.md is not a folder"):
        tree_with_files(store, head, {"file/x.md": b"x\n"})
    with pytest.raises(GitError, match="bin is not a regular file"):
        tree_with_files(store, head, {"bin": b"x\n"})
    with pytest.raises(HippoError, match="refusing to write the path"):
        tree_with_files(store, head, {"../escape.md": b"x\n"})
