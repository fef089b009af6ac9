"""`context` and the agent hooks answered without click (`cli/fast_entry.py`): the same output as
the click command, and anything less plain left to the click command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from hippo_git.cli.fast_entry import ContextArgs, parse_context_args
from hippo_git.cli.main import cli
from tests.conftest import make_repo, run_cli


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "ws")
    assert run_cli(["init", "--no-hooks"], cwd=root).returncode == 0
    (root / "notes/deploy.md").write_text("---\ntitle: Deploy\n---\nArgo canary rollout. [[index]]\n")
    assert run_cli(["remember", "Deploys need the canary dashboard open"], cwd=root).returncode == 0
    return root


def _loaded(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_parse_context_args() -> None:
    assert parse_context_args([]) == ContextArgs()
    assert parse_context_args(["--task", "deploy it", "--budget", "3000", "--json"]) == ContextArgs(
        task="deploy it", budget=3000, as_json=True
    )
    assert parse_context_args(["--task=a", "--task", "b", "--format=claude-hook", "--framing", "assert"]) == (
        ContextArgs(task="b", fmt="claude-hook", framing="assert")
    )
    assert parse_context_args(["--claude-hook"]) == ContextArgs(claude_hook=True)
    for less_plain in (
        ["--help"],
        ["-h"],
        ["--budget", "x"],
        ["--budget"],
        ["--task", "--json"],
        ["--format", "yaml"],
        ["--framing=loud"],
        ["--json=1"],
        ["--", "x"],
        ["extra"],
    ):
        assert parse_context_args(less_plain) is None, less_plain


@pytest.mark.parametrize(
    "args",
    [
        ["--task", "deploy the canary"],
        ["--task", "deploy", "--json"],
        ["--format", "claude-hook", "--task", "canary"],
        ["--budget", "2500", "--framing", "suggest", "--task", "deploy"],
    ],
)
def test_the_fast_way_prints_what_the_click_command_prints(ws: Path, args: list[str], monkeypatch) -> None:  # type: ignore[no-untyped-def]
    fast = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hippo_git", "context", *args],
        cwd=ws,
        capture_output=True,
        text=True,
    )
    assert fast.returncode == 0, fast.stderr[-2000:]
    loaded = _loaded(fast.stderr)
    assert "hippo_git.notes.context" in loaded and not {m for m in loaded if m.split(".")[0] == "click"}
    monkeypatch.chdir(ws)
    # Through the group, as `git hippo` runs it: click keeps a command's help option from its
    # first invocation, so invoking the command alone would lose the group's `-h` for later tests.
    slow = CliRunner().invoke(cli, ["context", *args])
    assert slow.exit_code == 0, slow.output
    assert fast.stdout == slow.stdout
    assert "Deploy" in fast.stdout


def test_errors_and_less_plain_forms(ws: Path) -> None:
    over = run_cli(["context", "--budget", "10"], cwd=ws)
    assert over.returncode == 1 and over.stderr.startswith("error: the required context is")
    assert "hint: " in over.stderr and over.stdout == ""
    bad = run_cli(["context", "--budget", "ten"], cwd=ws)
    assert bad.returncode == 2 and "Invalid value for '--budget'" in bad.stderr  # click's own words
    helped = run_cli(["context", "--help"], cwd=ws)
    assert helped.returncode == 0 and "--task" in helped.stdout


def test_an_agent_hook_without_click(ws: Path) -> None:
    payload = json.dumps({"session_id": "s-1", "cwd": str(ws), "hook_event_name": "SessionStart"})
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hippo_git", "hook", "session-start"],
        cwd=ws,
        input=payload,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout)
    assert out["hookSpecificOutput"]["additionalContext"].startswith("# Context from hippo_git")
    assert not {m for m in _loaded(proc.stderr) if m.split(".")[0] == "click"}
