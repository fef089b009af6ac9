"""hippo's hook beside the pre-commit framework (https://pre-commit.com), installed in either order:
real `pre-commit install`, real `git commit`, and doctor telling the truth about what runs."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_git.git import hookfiles
from hippo_git.team.doctor import run_doctor
from hippo_git.team.setup import init_workspace
from tests.conftest import git

pytestmark = pytest.mark.skipif(
    importlib.util.find_spec("pre_commit") is None, reason="needs the pre-commit package (dev extra)"
)

# A local hook: the framework needs no network to run it.
CONFIG = """repos:
- repo: local
  hooks:
  - id: mark
    name: mark
    entry: sh -c 'echo framework >> "$0"' {marker}
    language: system
    pass_filenames: false
    always_run: true
"""


def _framework(repo: Path, marker: Path) -> None:
    (repo / ".pre-commit-config.yaml").write_text(CONFIG.format(marker=marker))
    git(repo, "add", ".pre-commit-config.yaml")
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr + proc.stdout


def _commit(repo: Path, name: str, text: str) -> subprocess.CompletedProcess[str]:
    (repo / "notes").mkdir(exist_ok=True)
    (repo / "notes" / name).write_text(text)
    git(repo, "add", "-A")
    return subprocess.run(["git", "commit", "-m", f"add {name}"], cwd=repo, capture_output=True, text=True)


def _hook_check(repo: Path) -> tuple[str, str]:
    check = next(c for c in run_doctor(repo, probe=False).checks if c.name == "hook pre-commit")
    return check.status, check.saw


def _both_run(repo: Path, marker: Path) -> None:
    ok = _commit(repo, "build.md", "# Build\n\nRun `make`.\n")
    assert ok.returncode == 0, ok.stderr + ok.stdout
    assert marker.read_text() == "framework\n"
    secret = _commit(repo, "keys.md", "# Keys\n\naws AKIAIOSFODNN7EXAMPLE\n")
    assert secret.returncode != 0 and "looks like a secret" in secret.stderr
    status, saw = _hook_check(repo)
    assert status == "green" and "pre-commit framework" in saw, saw


def test_pre_commit_first_then_hippo(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    _framework(repo, marker)
    changes = init_workspace(repo).hooks
    assert {c.hook: c.action for c in changes}["pre-commit"] == "beside-pre-commit"
    assert hookfiles.is_pre_commit_framework(repo / ".git/hooks/pre-commit")
    _both_run(repo, marker)


def test_hippo_first_then_pre_commit_and_init_again(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    init_workspace(repo)
    _framework(repo, marker)
    assert {c.hook: c.action for c in init_workspace(repo).hooks}["pre-commit"] == "unchanged"
    _both_run(repo, marker)


def test_a_foreign_hook_kept_by_the_framework_still_runs(repo: Path, tmp_path: Path) -> None:
    marker = tmp_path / "ran.txt"
    old = repo / ".git/hooks/pre-commit"
    old.write_text(f"#!/bin/sh\necho old >> {marker}\n")
    old.chmod(0o755)
    _framework(repo, marker)  # keeps the old hook as pre-commit.legacy
    init_workspace(repo)
    assert (repo / ".git/hooks/pre-commit.legacy.legacy").exists()
    ok = _commit(repo, "build.md", "# Build\n")
    assert ok.returncode == 0, ok.stderr
    assert marker.read_text().splitlines() == ["old", "framework"]


def test_an_older_install_that_chained_the_framework_is_red_and_init_repairs_it(
    repo: Path, tmp_path: Path
) -> None:
    marker = tmp_path / "ran.txt"
    _framework(repo, marker)
    hooks = repo / ".git/hooks"
    # What hippo did before it knew the framework: its script moved aside as .legacy.
    (hooks / "pre-commit").rename(hooks / "pre-commit.legacy")
    (hooks / "pre-commit").write_text(hookfiles.shim_text("pre-commit"))
    (hooks / "pre-commit").chmod(0o755)
    broken = _commit(repo, "build.md", "# Build\n")
    assert broken.returncode != 0 and "migration mode" in broken.stderr + broken.stdout
    status, saw = _hook_check(repo)
    assert status == "red" and "migration mode" in saw
    init_workspace(repo)
    git(repo, "reset", "-q")
    marker.unlink(missing_ok=True)
    _both_run(repo, marker)


def test_the_framework_without_its_config_is_red(repo: Path, tmp_path: Path) -> None:
    _framework(repo, tmp_path / "ran.txt")
    init_workspace(repo)
    git(repo, "rm", "-q", "--cached", ".pre-commit-config.yaml")
    (repo / ".pre-commit-config.yaml").unlink()
    status, saw = _hook_check(repo)
    assert status == "red" and ".pre-commit-config.yaml" in saw


HIPPO_LINT = """repos:
- repo: local
  hooks:
  - id: hippo-lint
    name: hippo notes check
    entry: git-hippo hook pre-commit
    language: system
    pass_filenames: false
    always_run: true
"""


def test_a_framework_config_running_hippo_lint_gets_no_second_shim(repo: Path) -> None:
    init_workspace(repo)  # hippo's own shim first, as before the team adopted the framework
    (repo / ".pre-commit-config.yaml").write_text(HIPPO_LINT)
    git(repo, "add", ".pre-commit-config.yaml")
    proc = subprocess.run(
        [sys.executable, "-m", "pre_commit", "install"], cwd=repo, capture_output=True, text=True
    )
    assert proc.returncode == 0, proc.stderr
    changes = {c.hook: c.action for c in init_workspace(repo).hooks}
    assert changes == {"pre-commit": "via-pre-commit-config", "post-merge": "unchanged"}
    assert not (repo / ".git/hooks/pre-commit.legacy").exists()
    ok = _commit(repo, "build.md", "# Build\n")
    assert ok.returncode == 0, ok.stderr + ok.stdout
    secret = _commit(repo, "keys.md", "# Keys\n\naws AKIAIOSFODNN7EXAMPLE\n")
    assert secret.returncode != 0
    assert (secret.stdout + secret.stderr).count("looks like a secret") == 1  # run once, not twice
    status, saw = _hook_check(repo)
    assert status == "green" and "hippo-lint" in saw, saw
