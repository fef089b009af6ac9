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
    hook: str
    path: Path
    action: str  # installed | updated | unchanged | chained-legacy | removed | restored-legacy | foreign-left | absent


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


def _write_executable(path: Path, text: str) -> None:
    write_text_atomic(path, text, mode=0o755)


def install_hooks(info: RepoInfo, hooks: tuple[str, ...] = GIT_HOOKS) -> list[HookChange]:
    info.hooks_dir.mkdir(parents=True, exist_ok=True)
    changes: list[HookChange] = []
    for hook in hooks:
        path = info.hooks_dir / hook
        legacy = path.with_name(hook + ".legacy")
        text = shim_text(hook)
        if path.exists() and not is_ours(path):
            if legacy.exists():
                raise HippoError(
                    f"{path} is a foreign hook and {legacy} already exists",
                    hint=f"merge the two by hand (or remove {legacy.name}), then run `git hippo init` again",
                )
            os.replace(path, legacy)
            _write_executable(path, text)
            changes.append(HookChange(hook, path, "chained-legacy"))
        elif path.exists():
            if path.read_text(encoding="utf-8") == text:
                changes.append(HookChange(hook, path, "unchanged"))
            else:
                _write_executable(path, text)
                changes.append(HookChange(hook, path, "updated"))
        else:
            _write_executable(path, text)
            changes.append(HookChange(hook, path, "installed"))
    return changes


def uninstall_hooks(info: RepoInfo, hooks: tuple[str, ...] = GIT_HOOKS) -> list[HookChange]:
    changes: list[HookChange] = []
    for hook in hooks:
        path = info.hooks_dir / hook
        legacy = path.with_name(hook + ".legacy")
        if path.exists() and not is_ours(path):
            changes.append(HookChange(hook, path, "foreign-left"))
            continue
        if legacy.exists():
            os.replace(legacy, path)
            changes.append(HookChange(hook, path, "restored-legacy"))
        elif path.exists():
            path.unlink()
            changes.append(HookChange(hook, path, "removed"))
        else:
            changes.append(HookChange(hook, path, "absent"))
    return changes


def hook_state(info: RepoInfo, hook: str) -> str:
    """ours | ours+legacy | foreign | missing — for doctor."""
    path = info.hooks_dir / hook
    if not path.exists():
        return "missing"
    if not is_ours(path):
        return "foreign"
    return "ours+legacy" if path.with_name(hook + ".legacy").exists() else "ours"
