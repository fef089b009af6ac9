"""`git hippo doctor`: green on a healthy workspace; each breakage turns its check red with a fix."""

from __future__ import annotations

import fcntl
import json
import os
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hippo_git.team.demo import run_demo
from hippo_git.team.doctor import run_doctor
from tests.conftest import git, run_cli


def _status(root: Path, name: str) -> tuple[str, str, str]:
    checks = {c.name: c for c in run_doctor(root, probe=False).checks}
    check = checks[name]
    return check.status, check.saw, check.fix


@pytest.fixture(scope="module")
def healthy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The README's main job (the demo) leaves a workspace doctor must find healthy."""
    base = tmp_path_factory.mktemp("doctor")
    mp = pytest.MonkeyPatch()
    mp.setenv("HOME", str(base))
    mp.setenv("GIT_CONFIG_GLOBAL", str(base / ".gitconfig"))
    mp.setenv(
        "PATH",
        os.pathsep.join(p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "claude").exists()),
    )
    (base / ".gitconfig").write_text("")
    result = run_demo(base / "demo", env=dict(os.environ), now=datetime.now(UTC))
    mp.undo()
    return result.workdir


@pytest.fixture
def ws(healthy: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    clone = tmp_path / "ws"
    git(tmp_path, "clone", "-q", str(healthy), str(clone))
    git(clone, "config", "user.email", "ada@example.com")
    from hippo_git.team.setup import init_workspace

    init_workspace(clone)
    monkeypatch.setenv("HIPPO_HOME", str(healthy / ".git" / "hippo-demo-home"))
    return clone


def test_the_demo_workspace_is_all_green(healthy: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPPO_HOME", str(healthy / ".git" / "hippo-demo-home"))
    proc = run_cli(["doctor", "--json"], cwd=healthy)
    data = json.loads(proc.stdout)
    reds = [c for c in data["checks"] if c["status"] == "red"]
    assert reds == [] and proc.returncode == 0
    probe = next(c for c in data["checks"] if c["check"] == "end-to-end probe")
    assert probe["status"] == "green"


def test_missing_index_and_fresh_repo(repo: Path) -> None:
    """Right after a correct install nothing is red: the missing index is n/a, with what to run."""
    run_cli(["init"], cwd=repo)
    proc = run_cli(["doctor", "--json"], cwd=repo)
    data = json.loads(proc.stdout)
    assert proc.returncode == 0, [c for c in data["checks"] if c["status"] == "red"]
    index = next(c for c in data["checks"] if c["check"] == "transcript index")
    assert index["status"] == "n/a" and index["fix"] == "git hippo ingest"


def test_hooks_missing_foreign_and_shadowed(ws: Path) -> None:
    (ws / ".git/hooks/post-merge").unlink()
    assert _status(ws, "hook post-merge")[0] == "red"
    (ws / ".git/hooks/post-merge").write_text("#!/bin/sh\necho other tool\n")
    status, saw, fix = _status(ws, "hook post-merge")
    assert status == "red" and "another tool's hook" in saw and fix.startswith("git hippo init")
    git(ws, "config", "core.hooksPath", ".husky")
    status, saw, _ = _status(ws, "hook pre-commit")
    assert status == "red" and "shadows" in saw


def test_receipts_config_and_remote_refspec(ws: Path) -> None:
    git(ws, "config", "--unset", "notes.hippo/receipts.mergeStrategy")
    git(ws, "config", "--unset-all", "notes.rewriteRef")
    assert _status(ws, "receipts merge strategy")[0] == "red"
    assert _status(ws, "receipts survive rebase")[0] == "red"
    status, saw, fix = _status(ws, "receipts fetched from origin")
    assert status == "green"
    git(ws, "remote", "add", "backup", str(ws))
    status, saw, fix = _status(ws, "receipts fetched from backup")
    assert status == "red" and fix.startswith("git hippo sync backup")


def test_tracked_per_person_files_and_gitignore(ws: Path) -> None:
    (ws / ".hippo/reports").mkdir(exist_ok=True)
    (ws / ".hippo/reports/r.md").write_text("x")
    git(ws, "add", "-f", ".hippo/reports/r.md")
    status, _, fix = _status(ws, "per-person files tracked")
    assert status == "red" and fix == "git rm --cached .hippo/reports/r.md"
    (ws / ".hippo/.gitignore").write_text("sessions/\n")
    status, saw, _ = _status(ws, ".hippo/.gitignore")
    assert status == "red" and "reports/" in saw


def test_foreign_store_and_invalid_toml(ws: Path) -> None:
    (ws / ".hippo/hippo.toml").write_text("notes_dir = \n")
    status, saw, _ = _status(ws, "hippo.toml")
    assert status == "red" and "hippo.toml" in saw
    (ws / ".hippo/hippo.toml").unlink()
    status, saw, _ = _status(ws, "foreign .hippo/ store")
    assert status == "red" and "another tool" in saw


def test_lint_errors_model_and_dream_window(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (ws / "notes/bad.md").write_text("---\ntitle: [oops\n---\n# Bad\n")
    assert _status(ws, "notes lint")[0] == "red"
    (ws / ".hippo/hippo.toml").write_text('model_command = ["no-such-model-cli", "-p"]\n')
    status, saw, _ = _status(ws, "model command")
    assert status == "red" and "no-such-model-cli" in saw
    (ws / ".hippo/dream-state.json").unlink(missing_ok=True)  # a clone has no per-person state
    sessions = ws / ".hippo/sessions"
    sessions.mkdir(parents=True, exist_ok=True)
    (sessions / "s1.json").write_text(
        json.dumps({"version": 1, "kind": "declared", "id": "s1", "started": "2026-01-01T00:00:00Z"})
    )
    status, saw, fix = _status(ws, "dream window")
    assert status == "red" and "never dreamed" in saw and fix == "git hippo dream"


def test_unreviewed_proposals_and_held_lock(ws: Path) -> None:
    git(ws, "branch", "hippo/proposals/r1", "HEAD")
    (ws / "notes/x.md").write_text("# X\n")
    from tests.test_verify import propose

    git(ws, "checkout", "-q", "hippo/proposals/r1")
    propose(ws, "notes/x.md", "more\n", receipt=False)
    git(ws, "checkout", "-q", "main")
    problems = [c for c in run_doctor(ws, probe=False).checks if c.name == "proposals branches"]
    assert any("have no receipt here" in c.saw for c in problems)
    lock = ws / ".hippo/dream.lock"
    lock.write_text("pid 999999999 on elsewhere\n")
    fd = os.open(lock, os.O_RDWR)
    fcntl.flock(fd, fcntl.LOCK_EX)
    try:
        status, saw, _ = _status(ws, "stale lock files")
    finally:
        os.close(fd)
    assert status == "red" and "999999999" in saw


def test_agent_hooks_installed_but_not_run_yet_is_not_a_failure(ws: Path) -> None:
    assert run_cli(["agent", "install", "claude-code", "--no-mcp"], cwd=ws).returncode == 0
    status, saw, _ = _status(ws, "agent hooks claude-code")
    assert status == "n/a" and "no claude-code session has started here yet" in saw
    assert run_doctor(ws, probe=False).ok
    run_cli(["hook", "session-start"], cwd=ws, input=json.dumps({"session_id": "abc", "cwd": str(ws)}))
    assert _status(ws, "agent hooks claude-code")[0] == "green"


def test_agent_hooks_without_git_hippo_on_path_are_red(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert run_cli(["agent", "install", "claude-code", "--no-mcp"], cwd=ws).returncode == 0
    path = [p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "git-hippo").exists()]
    monkeypatch.setenv("PATH", os.pathsep.join(path))
    status, saw, fix = _status(ws, "agent hooks claude-code")
    assert status == "red" and "not on PATH" in saw and "PATH" in fix
