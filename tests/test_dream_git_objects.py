"""The git layer of dreaming: commits without a working tree, patch-ids, notes, compare-and-swap refs."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hippo_git.errors import HippoError, StaleRefError
from hippo_git.git.objects import GitStore, parse_git_date
from tests.conftest import git, make_repo


def _git_patch_id(root: Path, commit: str) -> str:
    show = git(root, "show", commit)
    proc = subprocess.run(
        ["git", "patch-id", "--stable"], cwd=root, input=show + "\n", capture_output=True, text=True
    )
    return proc.stdout.split()[0]


def _change(store: GitStore, parent: str, path: str, text: str | None) -> str:
    blob = store.write_blob(text.encode()) if text is not None else None
    return store.write_commit(store.tree_with(parent, path, blob), [parent], f"change {path}\n")


CASES = [
    ("notes/a.md", "line 1\nline 2\nline 3\nadded at the end\n"),
    ("notes/a.md", "line 1\nchanged  middle \t line\nline 3\n"),
    ("notes/a.md", "no newline at the end"),
    ("notes/new/deep.md", "# new\n\nbody\n"),
    (
        "notes/a.md",
        "".join(f"row {i}\n" for i in range(40)).replace("row 3\n", "row 3!\n").replace("row 30\n", ""),
    ),
    ("notes/a.md", None),
]


@pytest.mark.parametrize(("path", "text"), CASES)
def test_patch_id_matches_git_patch_id_stable(tmp_path: Path, path: str, text: str | None) -> None:
    base = "".join(f"row {i}\n" for i in range(40)) if "row" in (text or "") else "line 1\nline 2\nline 3\n"
    root = make_repo(tmp_path / "r", files={"notes/a.md": base, "README.md": "x\n"})
    store = GitStore(root)
    commit = _change(store, store.ref_target("refs/heads/main") or "", path, text)
    assert store.patch_id(commit) == _git_patch_id(root, commit)


def test_patch_id_of_a_two_file_commit_matches_git(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", files={"notes/a.md": "a\n", "notes/b.md": "b\n"})
    (root / "notes/a.md").write_text("a\nmore a\n")
    (root / "notes/b.md").write_text("b changed\n")
    git(root, "commit", "-qam", "two files")
    store = GitStore(root)
    head = git(root, "rev-parse", "HEAD")
    assert store.patch_id(head) == _git_patch_id(root, head)
    assert store.changed_paths(head) == ["notes/a.md", "notes/b.md"]


def test_commit_building_leaves_working_tree_index_and_head_alone(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", files={"notes/a.md": "a\n"})
    head = git(root, "rev-parse", "HEAD")
    store = GitStore(root)
    commit = _change(store, head, "notes/a.md", "a\nb\n")
    assert git(root, "rev-parse", "HEAD") == head
    assert git(root, "status", "--porcelain") == ""
    assert (root / "notes/a.md").read_text() == "a\n"
    assert git(root, "show", f"{commit}:notes/a.md") == "a\nb"
    # identity and dates come from the pinned GIT_AUTHOR_*/GIT_COMMITTER_* environment
    assert git(root, "log", "-1", "--format=%an <%ae> %aI %cI", commit) == (
        "Ada Tester <ada@example.com> 2026-01-02T03:04:05+00:00 2026-01-02T03:04:05+00:00"
    )


@pytest.mark.parametrize(
    "path", ["../x.md", "/abs.md", "notes/../x.md", "notes//x.md", ".git/config", "notes/./x.md"]
)
def test_odd_paths_are_refused(tmp_path: Path, path: str) -> None:
    root = make_repo(tmp_path / "r")
    store = GitStore(root)
    with pytest.raises(HippoError):
        store.tree_with(store.ref_target("refs/heads/main") or "", path, store.write_blob(b"x"))


def test_cas_ref_creates_only_when_absent_and_updates_only_from_expected(tmp_path: Path) -> None:
    """Invariant 5: every ref update is compare-and-swap."""
    root = make_repo(tmp_path / "r")
    store = GitStore(root)
    head = git(root, "rev-parse", "HEAD")
    other = _change(store, head, "x.md", "x\n")
    store.cas_ref("refs/heads/hippo/proposals/r1", head, None, "create")
    with pytest.raises(StaleRefError):
        store.cas_ref("refs/heads/hippo/proposals/r1", other, None, "create again")
    with pytest.raises(StaleRefError):
        store.cas_ref("refs/heads/main", other, other, "wrong expected value")
    assert git(root, "rev-parse", "main") == head
    store.cas_ref("refs/heads/main", other, head, "right expected value")
    assert git(root, "rev-parse", "main") == other
    assert "right expected value" in git(root, "reflog", "show", "main")


def test_cas_ref_refuses_while_git_holds_the_lock(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    store = GitStore(root)
    head = git(root, "rev-parse", "HEAD")
    lock = root / ".git/refs/heads/main.lock"
    lock.write_text(head + "\n")
    try:
        with pytest.raises(StaleRefError, match="locked"):
            store.cas_ref("refs/heads/main", _change(store, head, "x.md", "x\n"), head, "m")
    finally:
        lock.unlink()
    assert git(root, "rev-parse", "main") == head


def test_notes_append_dedupes_and_git_reads_them(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    store = GitStore(root)
    head = git(root, "rev-parse", "HEAD")
    assert store.append_note_lines("refs/notes/t", {head: ["one", "two"]}) == 2
    assert store.append_note_lines("refs/notes/t", {head: ["two", "three"]}) == 1
    assert store.append_note_lines("refs/notes/t", {head: ["one"]}) == 0
    assert git(root, "notes", "--ref=t", "show", head) == "one\ntwo\nthree"
    assert git(root, "rev-list", "--count", "refs/notes/t") == "2"  # no commit for a no-op append


def test_notes_append_understands_fanout_trees_written_by_git(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r")
    head = git(root, "rev-parse", "HEAD")
    blob = subprocess.run(
        ["git", "hash-object", "-w", "--stdin"], cwd=root, input="old line\n", capture_output=True, text=True
    ).stdout.strip()
    sub = subprocess.run(
        ["git", "mktree"], cwd=root, input=f"100644 blob {blob}\t{head[2:]}\n", capture_output=True, text=True
    ).stdout.strip()
    top = subprocess.run(
        ["git", "mktree"], cwd=root, input=f"040000 tree {sub}\t{head[:2]}\n", capture_output=True, text=True
    ).stdout.strip()
    notes_commit = git(root, "commit-tree", top, "-m", "fanout notes")
    git(root, "update-ref", "refs/notes/t", notes_commit)
    store = GitStore(root)
    assert store.note_text("refs/notes/t", head) == "old line\n"
    (root / "b.md").write_text("b\n")
    git(root, "add", "b.md")
    git(root, "commit", "-qm", "second")
    second = git(root, "rev-parse", "HEAD")
    store.append_note_lines("refs/notes/t", {head: ["new line"], second: ["other"]})
    assert git(root, "notes", "--ref=t", "show", head) == "old line\nnew line"
    assert git(root, "notes", "--ref=t", "show", second) == "other"
    assert sorted(t for t, _ in store.all_notes("refs/notes/t")) == sorted([head, second])
    git(root, "fsck", "--strict")


def test_notes_append_retries_when_another_writer_wins_the_race(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Invariant 5: the notes ref moves by compare-and-swap; a lost race rebuilds on the new tip."""
    root = make_repo(tmp_path / "r")
    store = GitStore(root)
    head = git(root, "rev-parse", "HEAD")
    store.append_note_lines("refs/notes/t", {head: ["first"]})
    real = GitStore.cas_ref
    raced: list[bool] = []

    def racing(self: GitStore, ref: str, new: str, old: str | None, message: str) -> None:
        if not raced:
            raced.append(True)
            git(root, "notes", "--ref=t", "append", "-m", "teammate", head)
        real(self, ref, new, old, message)

    monkeypatch.setattr(GitStore, "cas_ref", racing)
    assert store.append_note_lines("refs/notes/t", {head: ["mine"]}) == 1
    text = git(root, "notes", "--ref=t", "show", head)
    assert "teammate" in text and "mine" in text and "first" in text


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        ("2026-01-02T03:04:05Z", (1767323045, 0)),
        ("2026-01-02 04:04:05 +0100", (1767323045, 60)),
        ("@1767323045 -0230", (1767323045, -150)),
        ("Fri, 02 Jan 2026 03:04:05 +0000", (1767323045, 0)),
        ("not a date", None),
    ],
)
def test_git_dates_parse_like_git(value: str, expected: tuple[int, int] | None) -> None:
    assert parse_git_date(value) == expected
