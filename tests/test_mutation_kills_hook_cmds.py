"""`git hippo hook NAME` through the click command (issue 21, mutation testing of cli/hook_cmds.py).

`python -m hippo_git hook` answers before click (`fast_entry`, `git_hook_entry`); the click
command is what answers when that path hands over (an unexpected error in a git hook's check)
and what `git hippo hook` runs in process. It must behave the same: agent hooks exit 0 with the
harness's JSON, git hooks keep their exit code and report on stderr, nothing runs inside hippo's
own model runs."""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import Any

import pytest

from hippo_git.cli import hook_cmds
from tests.conftest import make_repo, run_cli


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "ws")
    assert run_cli(["init", "--no-hooks"], cwd=root).returncode == 0
    return root


def _stage_a_session_record(ws: Path) -> None:
    (ws / ".hippo" / "sessions").mkdir(parents=True, exist_ok=True)
    (ws / ".hippo" / "sessions" / "s1.json").write_text("{}")
    subprocess.run(["git", "add", "-f", ".hippo/sessions/s1.json"], cwd=ws, check=True)


def test_agent_hooks_print_the_harness_shape_once_and_exit_zero(ws: Path, hippo: Any) -> None:
    for name, out in (("gemini-prompt", "{}\n"), ("cursor-prompt", '{"continue": true}\n'), ("prompt", "")):
        result = hippo(["hook", name, "--verbose", "x"], cwd=ws, input="{}")
        assert (result.exit_code, result.stdout, result.stderr) == (0, out, ""), name


def test_a_git_hook_keeps_its_exit_code_and_reports_on_stderr(ws: Path, hippo: Any) -> None:
    assert hippo(["hook", "pre-commit"], cwd=ws).exit_code == 0
    _stage_a_session_record(ws)
    result = hippo(["hook", "pre-commit"], cwd=ws)
    assert result.exit_code == 1 and result.stdout == ""
    assert ".hippo/sessions/s1.json" in result.stderr
    assert result.stderr.endswith("\n") and not result.stderr.endswith("\n\n")


def test_a_git_hooks_own_output_is_printed_with_one_line_end(
    ws: Path, hippo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[tuple[Path, list[str]]] = []

    def check(root: Path, argv: list[str]) -> tuple[int, str, str]:
        seen.append((root, argv))
        return 3, "out\n" if argv else "out", "err" if argv else "err\n"

    monkeypatch.setitem(hook_cmds.GIT_HOOKS, "post-merge", f"{__name__}:_planted")
    monkeypatch.setitem(globals(), "_planted", check)
    result = hippo(["hook", "post-merge", "1"], cwd=ws)
    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")
    assert seen == [(ws, ["1"])]
    result = hippo(["hook", "post-merge"], cwd=ws)
    assert (result.exit_code, result.stdout, result.stderr) == (3, "out\n", "err\n")


def test_inside_hippos_own_model_runs_no_hook_runs(
    ws: Path, hippo: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    _stage_a_session_record(ws)  # the check would refuse this commit
    monkeypatch.setenv("HIPPO_INTERNAL", "1")
    for name in ("pre-commit", "gemini-prompt"):
        result = hippo(["hook", name], cwd=ws, input="{}")
        assert (result.exit_code, result.stdout, result.stderr) == (0, "", ""), name
