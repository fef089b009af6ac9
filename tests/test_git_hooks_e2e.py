"""Real `git commit` and `git merge` through the installed shims, with a foreign hook chained."""

from __future__ import annotations

import subprocess
from pathlib import Path

from hippo_git.team.setup import init_workspace
from tests.conftest import git


def _install_foreign(repo: Path, hook: str, marker: Path, exit_code: int = 0) -> None:
    path = repo / ".git/hooks" / hook
    path.parent.mkdir(exist_ok=True)
    path.write_text(f"#!/bin/sh\necho {hook} >> {marker}\nexit {exit_code}\n")
    path.chmod(0o755)


def test_commit_and_merge_run_our_hooks_and_the_foreign_ones(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    _install_foreign(repo, "pre-commit", marker)
    _install_foreign(repo, "post-merge", marker)
    init_workspace(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up hippo")
    assert marker.read_text() == "pre-commit\n"

    # A per-person record staged by mistake is blocked by our pre-commit, naming the fix.
    (repo / ".hippo/reports").mkdir()
    (repo / ".hippo/reports/r1.md").write_text("private\n")
    git(repo, "add", "-f", ".hippo/reports/r1.md")
    proc = subprocess.run(["git", "commit", "-m", "oops"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode != 0
    assert "git rm --cached .hippo/reports/r1.md" in proc.stderr
    assert marker.read_text() == "pre-commit\npre-commit\n"
    git(repo, "rm", "-q", "--cached", ".hippo/reports/r1.md")

    git(repo, "checkout", "-q", "-b", "topic")
    (repo / "notes/build.md").write_text("# Build\n\nRun `make`. See [[index]].\n")
    git(repo, "add", "notes/build.md")
    git(repo, "commit", "-q", "-m", "add build note")
    git(repo, "checkout", "-q", "main")
    git(repo, "merge", "-q", "--no-ff", "-m", "merge topic", "topic")
    assert marker.read_text().splitlines() == ["pre-commit"] * 3 + ["post-merge"]
    assert (repo / "notes/build.md").exists()


def test_a_failing_foreign_pre_commit_still_blocks(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    _install_foreign(repo, "pre-commit", marker, exit_code=1)
    init_workspace(repo)
    (repo / "x.txt").write_text("x\n")
    git(repo, "add", "x.txt")
    proc = subprocess.run(["git", "commit", "-m", "x"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode != 0
    assert marker.read_text() == "pre-commit\n"
