"""`git hippo --help` shows the man page also under an editable install (which does not place it)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_git.cli.manpage import source_page


def _prefix(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    """A prefix like an editable install's venv: bin/git-hippo and no share/man."""
    bindir = tmp_path / "venv" / "bin"
    bindir.mkdir(parents=True)
    exe = bindir / "git-hippo"
    exe.write_text(f'#!/bin/sh\nexec "{sys.executable}" -m hippo_git "$@"\n')
    exe.chmod(0o755)
    env = {
        **os.environ,
        "PATH": f"{bindir}{os.pathsep}{os.environ['PATH']}",
        "MANPAGER": "cat",
        "PAGER": "cat",
    }
    env.pop("MANPATH", None)
    return tmp_path / "venv", env


def test_any_command_links_the_page_beside_git_hippo(tmp_path: Path, repo: Path) -> None:
    prefix, env = _prefix(tmp_path)
    page = prefix / "share/man/man1/git-hippo.1"
    assert not page.exists()
    proc = subprocess.run(["git", "hippo", "--version"], cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert page.resolve() == source_page()


@pytest.mark.skipif(shutil.which("man") is None, reason="needs man")
def test_git_hippo_help_shows_the_manual(tmp_path: Path, repo: Path) -> None:
    _, env = _prefix(tmp_path)
    subprocess.run(["git", "hippo", "--version"], cwd=repo, env=env, capture_output=True, check=True)
    proc = subprocess.run(["git", "hippo", "--help"], cwd=repo, env=env, capture_output=True, text=True)
    assert "No manual entry" not in proc.stderr
    assert "git-hippo - a memory for AI coding agents" in proc.stdout


@pytest.mark.skipif(shutil.which("man") is None, reason="needs man")
def test_editable_install_places_the_page_before_any_command_ran(tmp_path: Path, repo: Path) -> None:
    """`pip install -e .` (the README's setup), then `git hippo --help` as the very first command."""
    root = Path(__file__).resolve().parent.parent
    prefix = tmp_path / "venv"  # a fresh one: pip would uninstall the running venv's own editable install
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(prefix)], check=True)
    pip = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(prefix / "bin" / "python"),
        "install",
        "-q",
        "--no-deps",
    ]
    install = subprocess.run([*pip, "-e", str(root)], capture_output=True, text=True, timeout=600)
    assert install.returncode == 0, install.stderr
    assert (prefix / "share/man/man1/git-hippo.1").is_file()
    env = {**os.environ, "PATH": f"{prefix / 'bin'}{os.pathsep}{os.environ['PATH']}", "MANPAGER": "cat"}
    env.pop("MANPATH", None)
    proc = subprocess.run(["git", "hippo", "--help"], cwd=repo, env=env, capture_output=True, text=True)
    assert "No manual entry" not in proc.stderr
    assert "git-hippo - a memory for AI coding agents" in proc.stdout


def test_a_copy_older_than_the_checkout_page_is_replaced_by_a_link(tmp_path: Path, repo: Path) -> None:
    """An editable install copies the page once; regenerating it in the checkout must reach `man`."""
    prefix, env = _prefix(tmp_path)
    page = prefix / "share/man/man1/git-hippo.1"
    page.parent.mkdir(parents=True)
    page.write_text(".TH GIT-HIPPO 1\n.SH NAME\ngit-hippo - an old page\n")
    os.utime(page, (0, 0))
    proc = subprocess.run(["git", "hippo", "--version"], cwd=repo, env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert page.is_symlink() and page.resolve() == source_page()
