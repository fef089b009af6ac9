"""The installed git-hook shims' fast way in: python without `site` (-S) running
`hippo_git/_githook.py`, which turns `site` on for anything beyond the pre-commit check."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

import hippo_git
from hippo_git.git.hookfiles import shim_text
from hippo_git.git.staged import PendingPaths, worktree_top
from hippo_git.team.setup import init_workspace
from tests.conftest import git

ENTRY = Path(hippo_git.__file__).resolve().parent / "_githook.py"


@pytest.fixture
def ws(repo: Path) -> Path:
    init_workspace(repo)
    (repo / "notes/build.md").write_text("# Build\n\nRun make. See [[index]].\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up")
    return repo


def _entry(ws: Path, *args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-S", "-X", "importtime", str(ENTRY), *args],
        cwd=ws,
        input=stdin,
        capture_output=True,
        text=True,
    )


def _loaded(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_the_shim_runs_the_entry_without_site() -> None:
    text = shim_text("pre-commit")
    assert f'"$py" -S {ENTRY} "$hook" "$@"' in text.replace("'", "")


def test_pre_commit_without_site_checks_as_before(ws: Path) -> None:
    (ws / "notes/ops.md").write_text("# Ops\n\nSee [[build]] and [[nowhere]].\n")
    git(ws, "add", "notes/ops.md")
    proc = _entry(ws, "pre-commit")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "hippo: warning: notes/ops.md:3: broken link [[nowhere]]" in proc.stderr
    assert "[[build]]" not in proc.stderr
    loaded = _loaded(proc.stderr)
    assert "hippo_git.git.staged" in loaded and "site" not in loaded and "click" not in loaded
    (ws / ".hippo/hippo.toml").write_text("notes_dir = [\n")
    broken = _entry(ws, "pre-commit")
    assert broken.returncode == 1 and "hippo.toml" in broken.stderr and "Traceback" not in broken.stderr


def test_other_hooks_turn_site_on_first(ws: Path) -> None:
    proc = _entry(ws, "post-merge")
    assert proc.returncode == 0 and "skipped" not in proc.stderr, proc.stderr[-2000:]
    assert "site" in _loaded(proc.stderr)
    # an agent hook has site-packages at hand, and still no click
    agent = _entry(ws, "session-end", stdin="{}")
    assert agent.returncode == 0, agent.stderr[-2000:]
    assert "site" in _loaded(agent.stderr) and "click" not in _loaded(agent.stderr)


def test_a_commit_through_the_installed_shim(ws: Path) -> None:
    (ws / "notes/ops.md").write_text("# Ops\n\nSee [[nowhere]].\n")
    git(ws, "add", "notes/ops.md")
    proc = subprocess.run(["git", "commit", "-q", "-m", "ops"], cwd=ws, capture_output=True, text=True)
    assert proc.returncode == 0 and "broken link [[nowhere]]" in proc.stderr


def test_worktree_top_and_pending_paths(ws: Path) -> None:
    assert worktree_top(ws) == str(ws)  # a string: the commit path does without pathlib
    assert worktree_top(ws / "notes") == str(ws)  # asks git from below the top
    assert PendingPaths(ws, "notes").result() == ["notes/build.md", "notes/index.md"]
    with pytest.raises(Exception, match="ls-files"):
        PendingPaths(ws / "notes", "../../elsewhere").result()


def test_staged_changes_read_from_the_git_started_ahead(
    ws: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hippo_git.errors import GitError
    from hippo_git.git import early
    from hippo_git.git.staged import staged_changes

    (ws / "notes/ops.md").write_text("# Ops\n")
    git(ws, "add", "notes/ops.md")
    early.start(ws, early.STAGED)
    with monkeypatch.context() as env:
        env.setenv("PATH", str(tmp_path / "nowhere"))  # no git to start now: only the early one answers
        assert staged_changes(ws) == ["notes/ops.md"]
        with pytest.raises(GitError, match="not found"):  # ...taken once: the next call asks git again
            staged_changes(ws)
    (ws / "notes/later.md").write_text("# Later\n")
    git(ws, "add", "notes/later.md")
    assert staged_changes(ws) == ["notes/later.md", "notes/ops.md"]
    early.start(ws / "notes", early.STAGED)  # started elsewhere: not this question
    assert early.take(ws, early.STAGED) is None
    assert early.take(ws / "notes", early.STAGED) is not None
    plain = tmp_path / "plain"
    plain.mkdir()
    early.start(plain, early.STAGED)  # git fails there: the caller's own call reports it
    with pytest.raises(GitError):
        staged_changes(plain)
