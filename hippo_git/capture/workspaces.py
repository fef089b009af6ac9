"""The workspaces this machine captures for: `$HIPPO_HOME/workspaces.json`, a list of worktree roots.

The watcher and the nightly schedule work across every registered workspace; a workspace is
registered by `watch`, `schedule install` and the agent hooks. Light on purpose (json only): the
hooks call `register` on every session start.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from hippo_git.files import write_json_atomic

FILE = "workspaces.json"


def registry_path(home: Path) -> Path:
    return home / FILE


def _read(home: Path) -> list[str]:
    try:
        data = json.loads(registry_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    roots = data.get("workspaces") if isinstance(data, dict) else None
    return [r for r in roots if isinstance(r, str)] if isinstance(roots, list) else []


def register(home: Path, root: Path) -> bool:
    """Add `root` (a worktree root) once; True when it was new. Never raises on a full disk:
    registering is a convenience, the next session start tries again."""
    key = os.path.abspath(root)
    roots = _read(home)
    if key in roots:
        return False
    with contextlib.suppress(OSError):
        write_json_atomic(registry_path(home), {"version": 1, "workspaces": [*roots, key]})
        return True
    return False


def unregister(home: Path, root: Path) -> bool:
    key = os.path.abspath(root)
    roots = _read(home)
    if key not in roots:
        return False
    write_json_atomic(registry_path(home), {"version": 1, "workspaces": [r for r in roots if r != key]})
    return True


def registered(home: Path) -> list[Path]:
    """The registered roots that are still git working trees, in registration order."""
    return [Path(r) for r in _read(home) if (Path(r) / ".git").exists()]
