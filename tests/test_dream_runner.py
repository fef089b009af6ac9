"""Invariant 4: a model runs only through model_command, on stdin, in a scratch folder, scrubbed env."""

from __future__ import annotations

import os
import stat
import sys
import time
from pathlib import Path

import pytest

from hippo_git.dream.runner import (
    ALLOWED_ENV,
    CLAUDE_ARGV,
    ModelRunError,
    default_model_command,
    heuristic_argv,
    is_heuristic,
    run_model,
)
from tests.conftest import make_repo
from tests.scripted_model import calls, scripted_argv, write_script

SET_BY_HIPPO = {"PWD", "TMPDIR", "HIPPO_INTERNAL", "PYTHONDONTWRITEBYTECODE", "GIT_CEILING_DIRECTORIES"}


def _home() -> Path:
    return Path(os.environ["HIPPO_HOME"])


def test_a_model_cannot_see_the_workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(
        tmp_path / "repo",
        files={"notes/index.md": "# secret note\n", ".hippo/hippo.toml": "", "secret.txt": "s3cret"},
    )
    monkeypatch.chdir(repo)  # hippo itself runs inside the workspace
    script = write_script(
        tmp_path / "probe.json",
        [{"task": "propose", "json": {"proposals": []}}],
        probe=["notes/index.md", ".hippo/hippo.toml", "secret.txt", "../secret.txt", "../../secret.txt"],
    )
    parent = dict(os.environ)
    parent.update(
        {
            "PWD": str(repo),
            "OLDPWD": str(repo),
            "GIT_DIR": str(repo / ".git"),
            "GIT_WORK_TREE": str(repo),
            "SOME_TOKEN": "hunter2",
            "ANTHROPIC_API_KEY": "sk-test-key",
        }
    )
    out = run_model(
        scripted_argv(script),
        'HIPPO-REQUEST {"task": "propose"}\n',
        home=_home(),
        run_id="r1",
        parent_env=parent,
        timeout_s=60,
    )
    assert out.stdout == '{"proposals": []}'
    (seen,) = calls(script)
    scratch = Path(seen["cwd"])
    assert scratch.parent == _home() / "model-runs" / "r1" and seen["cwd_listing"] == []
    assert not scratch.exists()  # removed afterwards
    env = seen["env"]
    assert env["HIPPO_INTERNAL"] == "1" and env["PWD"] == str(scratch) and env["TMPDIR"] == str(scratch)
    assert env["ANTHROPIC_API_KEY"] == "sk-test-key"  # a model CLI's key passes when present
    unexpected = (
        set(env) - set(ALLOWED_ENV) - SET_BY_HIPPO - {"LC_ALL", "LC_CTYPE", "__CF_USER_TEXT_ENCODING"}
    )
    assert not unexpected, unexpected
    assert not any(str(repo) in value for value in env.values())  # no pointer to the workspace
    assert (
        "SOME_TOKEN" not in env and "HIPPO_HOME" not in env and not any(k.startswith("GIT_DIR") for k in env)
    )
    probe = seen["probe"]
    for path in ("notes/index.md", ".hippo/hippo.toml", "secret.txt", "../secret.txt", "../../secret.txt"):
        assert probe[path] == {"error": "FileNotFoundError"}, path
    assert probe["git rev-parse --show-toplevel"]["status"] != 0  # not inside any repository


def test_the_prompt_arrives_on_stdin_only(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [])
    prompt = 'HIPPO-REQUEST {"task": "review"}\n' + "é" * 100_000
    run_model(
        scripted_argv(script), prompt, home=_home(), run_id="r2", parent_env=dict(os.environ), timeout_s=60
    )
    (seen,) = calls(script)
    assert seen["prompt"] == prompt and seen["task"] == "review"


def test_failures_are_reported_not_raised_as_crashes(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"task": "propose", "exit": 3, "stderr": "quota exceeded\n"}])
    with pytest.raises(ModelRunError, match="status 3: quota exceeded"):
        run_model(
            scripted_argv(script),
            'HIPPO-REQUEST {"task": "propose"}\n',
            home=_home(),
            run_id="r3",
            parent_env=dict(os.environ),
            timeout_s=60,
        )
    with pytest.raises(ModelRunError, match="cannot start"):
        run_model(
            ["no-such-model-cli-x"], "x", home=_home(), run_id="r3", parent_env=dict(os.environ), timeout_s=60
        )
    with pytest.raises(ModelRunError, match="empty"):
        run_model([], "x", home=_home(), run_id="r3", parent_env=dict(os.environ), timeout_s=60)
    assert not (_home() / "model-runs" / "r3").exists()


def test_output_is_capped(tmp_path: Path) -> None:
    script = write_script(tmp_path / "s.json", [{"task": "propose", "big": 300_000}])
    with pytest.raises(ModelRunError, match="more than 100000 bytes"):
        run_model(
            scripted_argv(script),
            'HIPPO-REQUEST {"task": "propose"}\n',
            home=_home(),
            run_id="r4",
            parent_env=dict(os.environ),
            timeout_s=60,
            output_cap=100_000,
        )


def test_a_timeout_kills_the_whole_process_group(tmp_path: Path) -> None:
    marker = tmp_path / "child-survived"
    child = f"import time, pathlib; time.sleep(1.5); pathlib.Path({str(marker)!r}).write_text('x')"
    parent = (
        f"import subprocess, sys, time; subprocess.Popen([sys.executable, '-c', {child!r}]); time.sleep(60)"
    )
    started = time.monotonic()
    with pytest.raises(ModelRunError, match="longer than 1 s"):
        run_model(
            [sys.executable, "-c", parent],
            "x",
            home=_home(),
            run_id="r5",
            parent_env=dict(os.environ),
            timeout_s=1,
        )
    assert time.monotonic() - started < 30
    time.sleep(2)
    assert not marker.exists()  # the model's child died with it


def test_default_model_command(tmp_path: Path) -> None:
    assert default_model_command(["llm", "-m", "x"], "/nowhere") == ("llm", "-m", "x")
    assert default_model_command([], str(tmp_path)) == heuristic_argv()
    fake = tmp_path / "claude"
    fake.write_text("#!/bin/sh\nexit 0\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    argv = default_model_command([], str(tmp_path))
    assert argv == CLAUDE_ARGV
    for flag in ("-p", "--tools", "--strict-mcp-config", "--no-session-persistence", "--setting-sources"):
        assert flag in argv
    assert '{"disableAllHooks": true}' in argv
    assert is_heuristic(heuristic_argv()) and not is_heuristic(CLAUDE_ARGV)
