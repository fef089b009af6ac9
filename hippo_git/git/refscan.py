"""Whether any ref under a prefix exists, read from the git dir without loading a git library.

`recall` asks this on every call to learn whether proposals branches are there to read; most
of the time there are none, and then pygit2 is never imported.
"""

from __future__ import annotations

from pathlib import Path

from hippo_git.git.head import git_dir_of


def _common_dir(worktree: Path) -> Path | None:
    git_dir = git_dir_of(worktree)
    if git_dir is None:
        return None
    try:
        common = (git_dir / "commondir").read_text(encoding="utf-8").strip()
    except OSError:
        return git_dir
    path = Path(common)
    return path if path.is_absolute() else (git_dir / path).resolve()


def has_refs(worktree: Path, prefix: str) -> bool:
    """True when a loose or packed ref starts with `prefix` (e.g. "refs/heads/hippo/proposals/memories-")."""
    common = _common_dir(worktree)
    if common is None:
        return False
    folder, _, stem = prefix.rpartition("/")
    try:
        if any(p.name.startswith(stem) for p in (common / folder).iterdir()):
            return True
    except OSError:
        pass
    try:
        with (common / "packed-refs").open(encoding="utf-8", errors="replace") as fh:
            return any(f" {prefix}" in line for line in fh)
    except OSError:
        return False
