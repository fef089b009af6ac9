"""Finding the repository and its places: worktree, git dirs, hooks dir, current branch, config.

The git binary is run only through `run_git`, which disables hooks so internal git calls never
trigger the user's (or our own) hooks (DESIGN §3, Hooks).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

from hippo_git.errors import GitError, NotARepoError

# Keeps internal git calls from running hooks, pagers or prompts.
_GIT_FLAGS = ("-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat")


@dataclass(frozen=True)
class RepoInfo:
    """Where a repository's work tree, git folders and hooks are, and what is checked out."""

    workdir: Path  # the working tree root
    git_dir: Path  # this worktree's git dir (.git, or .git/worktrees/<name> for linked worktrees)
    common_dir: Path  # the shared git dir
    hooks_dir: Path  # where git looks for hooks (core.hooksPath honoured)
    hooks_path_set: bool  # core.hooksPath is configured
    branch: str | None  # current branch name (also on an unborn branch); None when detached
    unborn: bool  # no commits yet


def run_git(
    args: list[str],
    cwd: Path,
    *,
    check: bool = True,
    input: str | None = None,
    env: dict[str, str] | None = None,
    hooks_off: bool = True,
) -> subprocess.CompletedProcess[str]:
    """Run the git binary with hooks disabled; raise GitError with git's own words on failure.

    `hooks_off=False` only for reading config, where the override would shadow core.hooksPath.
    """
    full_env = dict(os.environ)
    full_env.update({"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"})
    if env:
        full_env.update(env)
    try:
        proc = subprocess.run(
            ["git", *(_GIT_FLAGS if hooks_off else ()), *args],
            cwd=cwd,
            capture_output=True,
            text=True,
            input=input,
            env=full_env,
        )
    except FileNotFoundError:
        raise GitError("the git binary was not found on PATH", hint="install git") from None
    if check and proc.returncode != 0:
        said = (proc.stderr or proc.stdout).strip().splitlines()
        raise GitError(f"git {args[0]} failed: {said[-1] if said else f'exit {proc.returncode}'}")
    return proc


def discover(start: Path) -> RepoInfo:
    """The repository containing `start`; refuses bare repositories and non-repositories."""
    proc = run_git(
        ["rev-parse", "--is-bare-repository", "--absolute-git-dir", "--git-common-dir", "--show-toplevel"],
        cwd=start,
        check=False,
    )
    if proc.returncode != 0:
        if "--show-toplevel" in proc.stderr or "must be run in a work tree" in proc.stderr:
            raise NotARepoError(
                f"{start} is a bare repository (no working tree)",
                hint="run hippo in a clone with a working tree; notes live in files",
            )
        raise NotARepoError(
            f"not a git repository: {start}", hint="run `git init` first, or cd into a repository"
        )
    lines = proc.stdout.splitlines()
    if lines[0] == "true" or len(lines) < 4:
        raise NotARepoError(
            f"{start} is a bare repository (no working tree)",
            hint="run hippo in a clone with a working tree; notes live in files",
        )
    git_dir = Path(lines[1])
    common = Path(lines[2])
    if not common.is_absolute():
        common = (start / common).resolve()
    workdir = Path(lines[3])
    hooks_path = config_get(workdir, "core.hooksPath")
    if hooks_path:
        hp = Path(os.path.expanduser(hooks_path))
        hooks_dir = hp if hp.is_absolute() else workdir / hp
    else:
        hooks_dir = common / "hooks"
    head = run_git(["symbolic-ref", "-q", "HEAD"], cwd=workdir, check=False).stdout.strip()
    branch = head.removeprefix("refs/heads/") if head.startswith("refs/heads/") else None
    unborn = run_git(["rev-parse", "-q", "--verify", "HEAD"], cwd=workdir, check=False).returncode != 0
    return RepoInfo(
        workdir=workdir,
        git_dir=git_dir,
        common_dir=common,
        hooks_dir=hooks_dir,
        hooks_path_set=bool(hooks_path),
        branch=branch,
        unborn=unborn,
    )


def config_get(cwd: Path, key: str) -> str | None:
    proc = run_git(["config", "--get", key], cwd=cwd, check=False, hooks_off=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None


def config_get_all(cwd: Path, key: str) -> list[str]:
    proc = run_git(["config", "--get-all", key], cwd=cwd, check=False, hooks_off=False)
    return [line for line in proc.stdout.splitlines() if line] if proc.returncode == 0 else []


def config_set(cwd: Path, key: str, value: str) -> bool:
    """Set a single-valued local config key; True when it changed."""
    if config_get(cwd, key) == value:
        return False
    run_git(["config", "--local", key, value], cwd=cwd, hooks_off=False)
    return True


def config_add(cwd: Path, key: str, value: str) -> bool:
    """Add a value to a multi-valued local config key unless present; True when added."""
    if value in config_get_all(cwd, key):
        return False
    run_git(["config", "--local", "--add", key, value], cwd=cwd, hooks_off=False)
    return True


def remotes(cwd: Path) -> list[str]:
    return [r for r in run_git(["remote"], cwd=cwd).stdout.split() if r]
