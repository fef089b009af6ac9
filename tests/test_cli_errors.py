"""One place maps errors to exit codes: 1 user error, 2 usage, 3 unexpected, 130 on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from tests.conftest import run_cli


def test_help_and_version(tmp_path: Path) -> None:
    proc = run_cli(["--help"], cwd=tmp_path)
    assert proc.returncode == 0 and "init" in proc.stdout
    proc = run_cli(["--version"], cwd=tmp_path)
    from hippo_git import __version__

    assert proc.stdout.strip() == f"git hippo {__version__}"


def test_usage_error_exits_2(tmp_path: Path) -> None:
    proc = run_cli(["init", "--no-such-flag"], cwd=tmp_path)
    assert proc.returncode == 2 and "No such option" in proc.stderr
    proc = run_cli(["no-such-command"], cwd=tmp_path)
    assert proc.returncode == 2


def test_user_error_exits_1_without_traceback(tmp_path: Path) -> None:
    proc = run_cli(["notes", "list"], cwd=tmp_path)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: not inside a git working tree")
    assert "hint:" in proc.stderr and "Traceback" not in proc.stderr


def test_unreadable_config_is_a_user_error(repo: Path) -> None:
    (repo / ".hippo").mkdir()
    (repo / ".hippo" / "hippo.toml").mkdir()
    proc = run_cli(["config", "show"], cwd=repo)
    assert proc.returncode == 1
    assert "hippo.toml: cannot read" in proc.stderr and "Traceback" not in proc.stderr


def test_unexpected_error_exits_3_and_logs_the_traceback(hermetic_env: Path) -> None:
    from click.testing import CliRunner

    from hippo_git.cli.main import HippoGroup

    group = HippoGroup("probe")

    @group.command("boom")
    def boom() -> None:
        raise RuntimeError("the disk said no")

    result = CliRunner().invoke(group, ["boom"])
    assert result.exit_code == 3
    assert "error: unexpected RuntimeError: the disk said no" in result.output
    assert "git hippo doctor" in result.output
    log = Path(os.environ["HIPPO_HOME"]) / "logs" / "errors.log"
    assert "RuntimeError: the disk said no" in log.read_text()


def test_ctrl_c_exits_130(repo: Path) -> None:
    proc = subprocess.Popen(
        [sys.executable, "-m", "hippo_git", "hook", "session-start"],
        cwd=repo,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    time.sleep(1.0)  # let it start and block on stdin
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=20)
    assert proc.returncode == 130, err
    assert "Traceback" not in err
