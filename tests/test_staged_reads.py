"""What the pre-commit check reads of the staged changes, and with how few git processes: the
staged blobs come from the object store when loose (as `git add` leaves new content), from
`git cat-file` otherwise, and the answers are the same either way."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import hippo_git
from hippo_git.git.staged import _cat_file, staged_blobs, staged_entries
from hippo_git.team.setup import init_workspace
from tests.conftest import git

ENTRY = Path(hippo_git.__file__).resolve().parent / "_githook.py"


def _staged(repo: Path) -> tuple[dict[str, str], list[str]]:
    ids = staged_entries(repo)
    return ids, [p for p in ids if p.endswith(".md")]


def test_loose_packed_and_linked_worktree_blobs_read_as_cat_file_reads_them(
    repo: Path, tmp_path: Path
) -> None:
    (repo / "notes").mkdir(exist_ok=True)
    (repo / "notes/old.md").write_text("# Old\n\nfirst words\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "old")
    git(repo, "gc", "-q")  # every object packed
    (repo / "notes/old.md").write_text("# Old\n\nnew words\n")  # new content: a loose object
    (repo / "notes/new.md").write_text("# New\n\nfirst words\n")  # the packed blob again: no loose copy
    (repo / "notes/ünï cödé.md").write_text("# Ü\n")
    (repo / "notes/moved.md").write_text((repo / "notes/old.md").read_text())
    git(repo, "add", "-A")
    ids, paths = _staged(repo)
    assert sorted(paths) == ["notes/moved.md", "notes/new.md", "notes/old.md", "notes/ünï cödé.md"]
    assert staged_blobs(repo, paths, ids) == _cat_file(repo, paths) == staged_blobs(repo, paths)
    assert staged_blobs(repo, paths, ids)["notes/new.md"] == b"# New\n\nfirst words\n"

    linked = tmp_path / "linked"
    git(repo, "worktree", "add", "-q", str(linked))
    (linked / "notes/old.md").write_text("# Linked\n")
    git(linked, "add", "-A")
    ids, paths = _staged(linked)
    assert staged_blobs(linked, paths, ids) == {"notes/old.md": b"# Linked\n"}


def test_a_damaged_or_foreign_loose_object_falls_back_to_cat_file(repo: Path) -> None:
    (repo / "notes").mkdir(exist_ok=True)
    (repo / "notes/a.md").write_text("# A\n")
    git(repo, "add", "-A")
    ids, paths = _staged(repo)
    oid = ids["notes/a.md"]
    # a tree's id in place of the blob's: not a blob, so git is asked for the staged content
    tree = git(repo, "write-tree")
    assert staged_blobs(repo, paths, {"notes/a.md": tree}) == {"notes/a.md": b"# A\n"}
    assert staged_blobs(repo, paths, {"notes/a.md": "0" * 40}) == {"notes/a.md": b"# A\n"}
    assert oid != tree


def _logging_git(tmp_path: Path) -> tuple[dict[str, str], Path]:
    """PATH with a `git` that logs each call's arguments, then runs the real git."""
    log = tmp_path / "git.log"
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    real = shutil.which("git")
    assert real
    (bin_dir / "git").write_text(f'#!/bin/sh\necho "$*" >> "{log}"\nexec "{real}" "$@"\n')
    (bin_dir / "git").chmod(0o755)
    return dict(os.environ, PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}"), log


def test_a_commit_of_one_note_costs_the_check_two_git_processes(repo: Path, tmp_path: Path) -> None:
    init_workspace(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up")
    key = "AKIA" + "Q3MX9VR2TL7PK4WZ"
    (repo / "notes/ops.md").write_text(f"# Ops\n\nSee [[index]].\nexport AWS_ACCESS_KEY_ID={key}\n")
    git(repo, "add", "notes/ops.md")
    env, log = _logging_git(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-S", str(ENTRY), "pre-commit"], cwd=repo, env=env, capture_output=True, text=True
    )
    assert proc.returncode == 1 and "notes/ops.md:4: looks like a secret" in proc.stderr  # it read the note
    calls = [line.split(" core.pager=cat ", 1)[-1] for line in log.read_text().splitlines()]
    # what is staged (with blob ids), and the notes' paths; the staged note is read from its loose object
    assert [c.split()[0] for c in calls] == ["diff", "ls-files"], calls


def test_a_commit_without_notes_costs_one_git_process_and_no_parser(repo: Path, tmp_path: Path) -> None:
    init_workspace(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up")
    (repo / "src.py").write_text("print('hi')\n")
    (repo / ".hippo/sessions").mkdir(parents=True, exist_ok=True)
    (repo / ".hippo/sessions/s1.json").write_text("{}")
    git(repo, "add", "src.py")
    git(repo, "add", "-f", ".hippo/sessions/s1.json")
    env, log = _logging_git(tmp_path)
    proc = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", str(ENTRY), "pre-commit"],
        cwd=repo,
        env=env,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 1 and "hippo: .hippo/sessions/s1.json is a per-person file" in proc.stderr
    assert [line.split(" core.pager=cat ", 1)[-1].split()[0] for line in log.read_text().splitlines()] == [
        "diff"
    ]
    loaded = {
        line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")
    }
    assert "hippo_git.team.githooks" in loaded and "hippo_git.notes.parse" not in loaded
