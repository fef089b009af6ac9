"""Reading commits of a range and whole notes refs with few git calls (verify, post-merge)."""

from __future__ import annotations

import subprocess
from dataclasses import dataclass
from pathlib import Path

from hippo_git.git.repo import run_git

NULL = "0" * 40


@dataclass(frozen=True)
class FileChange:
    path: str
    old_blob: str  # NULL when added
    new_blob: str  # NULL when deleted
    status: str  # A, M, D, T


@dataclass(frozen=True)
class CommitInfo:
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


def read_notes(root: Path, notes_ref: str) -> dict[str, str]:
    """Every note on `notes_ref` as {annotated commit: note text}."""
    proc = run_git(["notes", f"--ref={notes_ref}", "list"], cwd=root, check=False)
    if proc.returncode != 0:
        return {}
    pairs = [line.split() for line in proc.stdout.splitlines() if line.strip()]
    if not pairs:
        return {}
    request = "".join(f"{blob}\n" for blob, _ in pairs).encode()
    data = subprocess.run(
        ["git", "cat-file", "--batch"], cwd=root, input=request, capture_output=True, check=True
    ).stdout
    notes: dict[str, str] = {}
    pos = 0
    for _, commit in pairs:
        nl = data.index(b"\n", pos)
        size = int(data[pos:nl].split()[2])
        notes[commit] = data[nl + 1 : nl + 1 + size].decode("utf-8", errors="replace")
        pos = nl + 1 + size + 1
    return notes


def rev_parse(root: Path, rev: str) -> str | None:
    proc = run_git(["rev-parse", "-q", "--verify", f"{rev}^{{commit}}"], cwd=root, check=False)
    return proc.stdout.strip() or None if proc.returncode == 0 else None
