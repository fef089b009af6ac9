"""Which folders make up a workspace (the repository and its linked worktrees), and mapping paths
that sessions name onto repository-relative paths."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from hippo_git.config import Config


@dataclass(frozen=True)
class Workspace:
    """A repository's folders, which decide which sessions are its own."""

    root: Path
    worktrees: tuple[Path, ...]  # the repository's working trees, `root` first
    notes_dir: str  # relative to a worktree root, without slashes at either end

    @property
    def prefixes(self) -> tuple[str, ...]:
        """Every spelling of every worktree folder (as given and with symlinks resolved)."""
        out: list[str] = []
        for tree in self.worktrees:
            for spelling in (os.path.abspath(tree), os.path.realpath(tree)):
                if spelling not in out:
                    out.append(spelling)
        return tuple(out)

    @property
    def notes_prefixes(self) -> tuple[str, ...]:
        return tuple(os.path.join(p, self.notes_dir) for p in self.prefixes)

    def relative(self, path: str, cwd: str | None = None) -> str | None:
        """`path` relative to the worktree it lies in (resolved against `cwd` when relative), or None."""
        if not path:
            return None
        if path.startswith("~"):
            path = os.path.expanduser(path)
        if not os.path.isabs(path):
            if not cwd or not os.path.isabs(cwd):
                return None
            path = os.path.join(cwd, path)
        path = os.path.normpath(path)
        for prefix in self.prefixes:
            if path.startswith(prefix + os.sep):
                return path[len(prefix) + 1 :].replace(os.sep, "/")
        return None

    def is_note(self, rel: str) -> bool:
        return rel.startswith(self.notes_dir + "/") and rel.endswith(".md")

    def contains_cwd(self, cwd: str | None) -> bool:
        if not cwd:
            return False
        cwd = os.path.normpath(cwd)
        return any(cwd == p or cwd.startswith(p + os.sep) for p in self.prefixes)


def load_workspace(cfg: Config) -> Workspace:
    from hippo_git.git.worktrees import worktree_paths

    return Workspace(cfg.root, tuple(worktree_paths(cfg.root)), cfg.notes_dir.strip("/"))


def prefix_range(prefix: str) -> tuple[str, str]:
    """Bounds of the strings that start with `prefix + "/"`, for an index range scan:
    `col >= lo AND col < hi` (`0` follows `/` in code point order)."""
    return prefix + "/", prefix + "0"


def workspace_filter(cfg: Config) -> tuple[list[str], list[str]]:
    """(cwds, session ids) that make a session part of this workspace for `--workspace` filters:
    its cwd lies under one of the worktrees, or the workspace holds a record of it."""
    from hippo_git.index.records import read_records

    ws = load_workspace(cfg)
    return list(ws.prefixes), [str(r["id"]) for r in read_records(cfg.root)]
