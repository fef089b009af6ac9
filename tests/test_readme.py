"""The README's command reference equals what `--help` prints, command by command."""

from __future__ import annotations

import re
from pathlib import Path

from click.testing import CliRunner

from hippo_git.cli.main import cli
from hippo_git.cli.reference import END, START, render

README = Path(__file__).resolve().parent.parent / "README.md"
BLOCK = re.compile(r"#### `git hippo ([^`]*)`\n\n```text\n(.*?)\n```", re.S)


def _section() -> str:
    text = README.read_text(encoding="utf-8")
    assert START in text and END in text, "README.md lost its reference markers"
    return text[text.index(START) : text.index(END) + len(END)]


def test_reference_is_up_to_date() -> None:
    assert _section() == render(), "run: python -m hippo_git.cli.reference --write README.md"


def test_every_block_matches_real_help() -> None:
    blocks = BLOCK.findall(_section())
    assert len(blocks) >= 5
    runner = CliRunner()
    for path, expected in blocks:
        result = runner.invoke(cli, [*path.split(), "--help"], prog_name="git hippo", terminal_width=100)
        assert result.exit_code == 0, path
        assert result.output.rstrip() == expected, f"README block for `git hippo {path}` differs from --help"


def test_quick_start_has_exactly_two_commands() -> None:
    text = README.read_text(encoding="utf-8")
    quick = text.split("## Quick start", 1)[1].split("\n## ", 1)[0]
    commands = re.findall(r"```(?:sh|bash)\n(.*?)\n```", quick, re.S)
    assert len(commands) == 2


def test_man_page_is_current_and_git_shows_it(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess

    from hippo_git.cli.reference import MAN_PAGE, render_man

    page = README.parent / MAN_PAGE
    assert page.read_text(encoding="utf-8") == render_man(), (
        "run: python -m hippo_git.cli.reference --write README.md"
    )
    import sys

    bindir = Path(sys.executable).parent
    if shutil.which("man") is None or not (bindir / "git-hippo").exists():
        return  # git help needs man and git-hippo to show the page; the text check above still holds
    env = dict(
        os.environ,
        PATH=f"{bindir}{os.pathsep}{os.environ['PATH']}",
        MANPATH=str(page.parent.parent),
        MANPAGER="cat",
        PAGER="cat",
        MANWIDTH="100",
    )
    proc = subprocess.run(["git", "hippo", "--help"], cwd=tmp_path, capture_output=True, text=True, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "Usage: git hippo [OPTIONS] COMMAND" in proc.stdout
