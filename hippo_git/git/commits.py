"""Reading the commits of a range with one git call (verify, post-merge)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hippo_git.git.repo import run_git

NULL = "0" * 40


@dataclass(frozen=True)
class FileChange:
    """One file a commit changed: its path, blobs before and after, and status letter."""

    path: str
    old_blob: str  # NULL when added
    new_blob: str  # NULL when deleted
    status: str  # A, M, D, T


@dataclass(frozen=True)
class CommitInfo:
    """A commit in a range, with its parents, message and file changes."""

    sha: str
    parents: tuple[str, ...]
    message: str
    changes: tuple[FileChange, ...]

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]


def commits_in_range(root: Path, rev_range: str) -> list[CommitInfo]:
    """Commits of `rev_range` oldest first, each with its files changed against its first parent."""
    out = run_git(
        [
            "-c",
            "core.quotePath=false",
            "log",
            "--reverse",
            "--no-renames",
            "--raw",
            "--no-abbrev",
            "--format=%x1e%H%x1f%P%x1f%B%x1f",
            rev_range,
            "--",
        ],
        cwd=root,
    ).stdout
    commits: list[CommitInfo] = []
    for record in out.split("\x1e")[1:]:
        sha, parents, message, raw = record.split("\x1f", 3)
        changes = []
        for line in raw.splitlines():
            if not line.startswith(":"):
                continue
            meta, _, path = line.partition("\t")
            fields = meta.split()
            changes.append(FileChange(path=path, old_blob=fields[2], new_blob=fields[3], status=fields[4][0]))
        commits.append(CommitInfo(sha, tuple(parents.split()), message.strip("\n") + "\n", tuple(changes)))
    return commits


def rev_parse(root: Path, rev: str) -> str | None:
    proc = run_git(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], cwd=root, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None
