"""Installing and removing the git hook shims, chaining any foreign hook as `<hook>.legacy`."""

from __future__ import annotations

import os
import shlex
import sys
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

from hippo_git.errors import HippoError
from hippo_git.files import write_text_atomic
from hippo_git.git.repo import RepoInfo

MARKER = "hippo-git managed hook"
GIT_HOOKS = ("pre-commit", "post-merge")


@dataclass(frozen=True)
class HookChange:
    """What installing or removing hippo's shim did to one git hook file."""

    hook: str
    path: Path
    # installed | updated | unchanged | chained-legacy | beside-pre-commit | removed | restored-legacy
    # | foreign-left | absent
    action: str


def shim_text(hook: str) -> str:
    template = resources.files("hippo_git._hooks").joinpath("git-shim.sh").read_text(encoding="utf-8")
    pkgdir = Path(__file__).resolve().parent.parent
    return (
        template.replace("@HOOK@", shlex.quote(hook))
        .replace("@PYTHON@", shlex.quote(sys.executable))
        .replace("@PKGDIR@", shlex.quote(str(pkgdir)))
    )


def is_ours(path: Path) -> bool:
    try:
        return MARKER in path.read_text(encoding="utf-8", errors="replace")[:400]
    except OSError:
        return False


# The pre-commit framework (https://pre-commit.com) marks its hook script with one of these ids and
# runs `<hook>.legacy` first ("migration mode"); it must stay at the hook path, because its script
# looks for `.legacy` beside itself and fails when it is itself the `.legacy` of another hook.
PRE_COMMIT_IDS = (
    "138fd403232d2ddd5efb44317e38bf03",
    "4d9958c90bc262f47553e2c073f14cfe",
    "d8ee923c46731b42cd95cc869add4062",
    "49fd668cb42069aa1b6048464be5d395",
    "79f09a650522a87b0da915d0d983b2de",
    "e358c9dae00eac5d06b38dfdb1e33a8c",
)


def is_pre_commit_framework(path: Path) -> bool:
    try:
        head = path.read_text(encoding="utf-8", errors="replace")[:600]
    except OSError:
        return False
    return any(marker in head for marker in PRE_COMMIT_IDS)


def _write_executable(path: Path, text: str) -> None:
    write_text_atomic(path, text, mode=0o755)


def _legacy(path: Path) -> Path:
    return path.with_name(path.name + ".legacy")


def _place(path: Path, text: str, hook: str, chained: str) -> HookChange:
    """Writes the shim at `path`, keeping a foreign hook found there as `<path>.legacy`."""
    legacy = _legacy(path)
    if path.exists() and not is_ours(path):
        if legacy.exists():
            raise HippoError(
                f"{path} is a foreign hook and {legacy} already exists",
                hint=f"merge the two by hand (or remove {legacy.name}), then run `git hippo init` again",
            )
        os.replace(path, legacy)
        _write_executable(path, text)
        return HookChange(hook, path, chained)
    if path.exists():
        if path.read_text(encoding="utf-8") == text and os.access(path, os.X_OK):
            return HookChange(hook, path, "unchanged")
        _write_executable(path, text)
        return HookChange(hook, path, "updated")
    _write_executable(path, text)
    return HookChange(hook, path, "installed")


def install_hooks(info: RepoInfo, hooks: tuple[str, ...] = GIT_HOOKS) -> list[HookChange]:
    info.hooks_dir.mkdir(parents=True, exist_ok=True)
    changes: list[HookChange] = []
    for hook in hooks:
        path = info.hooks_dir / hook
        legacy = _legacy(path)
        text = shim_text(hook)
        if is_ours(path) and is_pre_commit_framework(legacy):
            # An older hippo chained the framework's script as .legacy, where it fails in migration
            # mode: give the framework its place back and sit behind it.
            os.replace(legacy, path)
        if is_pre_commit_framework(path):
            change = _place(legacy, text, hook, "beside-pre-commit")
            action = (
                "beside-pre-commit" if change.action in ("installed", "beside-pre-commit") else change.action
            )
            changes.append(HookChange(hook, legacy, action))
        else:
            changes.append(_place(path, text, hook, "chained-legacy"))
    return changes


def _remove_shim(path: Path, hook: str) -> HookChange:
    legacy = _legacy(path)
    if path.exists() and not is_ours(path):
        return HookChange(hook, path, "foreign-left")
    if legacy.exists():
        os.replace(legacy, path)
        return HookChange(hook, path, "restored-legacy")
    if path.exists():
        path.unlink()
        return HookChange(hook, path, "removed")
    return HookChange(hook, path, "absent")


def uninstall_hooks(info: RepoInfo, hooks: tuple[str, ...] = GIT_HOOKS) -> list[HookChange]:
    changes: list[HookChange] = []
    for hook in hooks:
        path = info.hooks_dir / hook
        if is_pre_commit_framework(path) and is_ours(_legacy(path)):
            changes.append(_remove_shim(_legacy(path), hook))
        else:
            changes.append(_remove_shim(path, hook))
    return changes


def hook_state(info: RepoInfo, hook: str) -> str:
    """For doctor: ours | ours+legacy | pre-commit+ours | pre-commit+ours+legacy | ours+pre-commit
    (the framework's script chained behind hippo's, which fails) | foreign | missing."""
    path = info.hooks_dir / hook
    legacy = _legacy(path)
    if not path.exists():
        return "missing"
    if is_pre_commit_framework(path) and is_ours(legacy):
        return "pre-commit+ours+legacy" if _legacy(legacy).exists() else "pre-commit+ours"
    if not is_ours(path):
        return "foreign"
    if is_pre_commit_framework(legacy):
        return "ours+pre-commit"
    return "ours+legacy" if legacy.exists() else "ours"
