"""The generated reference pages equal what the code says, and the README keeps its quick start."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from hippo_git.cli.main import cli
from hippo_git.cli.reference import (
    COMMANDS_PAGE,
    CONFIG_PAGE,
    MAN_PAGE,
    render_commands_page,
    render_config_page,
    render_man,
)

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
BLOCK = re.compile(r"#### `git hippo ([^`]*)`\n\n```text\n(.*?)\n```", re.S)
FIX = "run: python -m hippo_git.cli.reference --write README.md"


def test_generated_pages_are_up_to_date() -> None:
    assert (ROOT / COMMANDS_PAGE).read_text(encoding="utf-8") == render_commands_page(), FIX
    assert (ROOT / CONFIG_PAGE).read_text(encoding="utf-8") == render_config_page(), FIX
    assert (ROOT / MAN_PAGE).read_text(encoding="utf-8") == render_man(), FIX


def test_every_block_matches_real_help() -> None:
    blocks = BLOCK.findall((ROOT / COMMANDS_PAGE).read_text(encoding="utf-8"))
    assert len(blocks) >= 20
    runner = CliRunner()
    for path, expected in blocks:
        result = runner.invoke(cli, [*path.split(), "--help"], prog_name="git hippo", terminal_width=100)
        assert result.exit_code == 0, path
        assert result.output.rstrip() == expected, f"docs block for `git hippo {path}` differs from --help"


def test_every_config_key_is_documented() -> None:
    from hippo_git.config import SCHEMA

    page = (ROOT / CONFIG_PAGE).read_text(encoding="utf-8")
    documented = set(re.findall(r"^\| `([a-z_.]+)` \|", page, re.M))
    assert documented == {k.name for k in SCHEMA}


def test_quick_start_has_exactly_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```(?:sh|bash)\n(.*?)\n```", quick, re.S)
    assert len(commands) == 2


def test_man_page_shows_in_git_help(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess
    import sys

    bindir = Path(sys.executable).parent
    if shutil.which("man") is None or not (bindir / "git-hippo").exists():
        return  # git help needs man and git-hippo to show the page; the text check above still holds
    env = dict(
        os.environ,
        PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}",
        MANPATH=str((ROOT / MAN_PAGE).parent.parent),
        MANPAGER="cat",
        PAGER="cat",
        MANWIDTH="100",
    )
    proc = subprocess.run(["git", "hippo", "--help"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Usage: git hippo [OPTIONS] COMMAND" in proc.stdout
