"""The agent-hook path stays light: `context` and `session start|end` never import pygit2, GitPython or pydantic.

Each of those costs 100–180 ms to import on the team's machines, and the context runs on every
agent session start. Measured with `python -X importtime` in a real subprocess.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.notes.declared import end_session, start_session
from tests.conftest import make_repo, run_cli

HEAVY = ("pygit2", "git", "pydantic", "pydantic_core")


def _imported(stderr: str) -> set[str]:
    names = set()
    for line in stderr.splitlines():
        if line.startswith("import time:") and "|" in line:
            names.add(line.rsplit("|", 1)[1].strip())
    return names


def test_context_imports_no_heavy_module(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    assert run_cli(["init", "--no-hooks"], cwd=repo).returncode == 0
    (repo / "notes/deploy.md").write_text("---\ntitle: Deploy\ntags: [ops]\n---\nArgo canary. [[index]]\n")
    cfg = load_config(repo)
    start_session(cfg, "deploy the thing", session_id="s-1")
    end_session(cfg, handoff="see [[Deploy]]")
    runs = (
        ["context", "--task", "x"],
        ["context", "--task", "deploy", "--format", "claude-hook"],
        ["session", "start", "--id", "s-2", "--task", "deploy"],
        ["session", "end", "--handoff", "done, see [[deploy]]"],
    )
    for args in runs:
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "hippo_git", *args],
            cwd=repo,
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        imported = _imported(proc.stderr)
        assert {"hippo_git.notes.context", "hippo_git.notes.declared"} & imported  # it saw the real path
        heavy = sorted(m for m in imported if m.split(".")[0] in HEAVY)
        assert heavy == [], f"the context path imported {heavy}"
        assert "hippo_git.index.search" not in imported


def test_pre_commit_imports_no_heavy_module(tmp_path: Path) -> None:
    """The pre-commit check runs on every commit: it reads git through the binary, not pygit2."""
    repo = make_repo(tmp_path / "repo")
    assert run_cli(["init", "--no-hooks"], cwd=repo).returncode == 0
    (repo / "notes/deploy.md").write_text("# Deploy\n\nSee [[index]].\n")
    subprocess.run(["git", "add", "-A"], cwd=repo, check=True)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hippo_git", "hook", "pre-commit"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    imported = _imported(proc.stderr)
    # it ran the check (the secret gate is inside it)
    assert "hippo_git.transcripts.redact_pregate" in imported
    heavy = sorted(m for m in imported if m.split(".")[0] in HEAVY)
    assert heavy == [], f"the pre-commit path imported {heavy}"
