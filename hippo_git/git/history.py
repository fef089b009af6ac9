"""When each file last changed, from one `git log` run (not one git call per file)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hippo_git.git.repo import run_git

_COMMIT_MARK = "\x1e"  # starts each commit's header line in the log output
_FIELD = "\x1f"


@dataclass(frozen=True)
class LastChange:
    """The last commit that changed a file: its id, author date and subject."""

    commit: str
    date: str  # author date, ISO 8601
    subject: str


def last_changes(root: Path, pathspec: str) -> dict[str, LastChange]:
    """Repo-relative path → its newest commit touching it, for every file under `pathspec`.

    Renames are not followed: a renamed note's last change is the rename. An unborn branch
    (no commits yet) gives an empty map.
    """
    has_head = run_git(["rev-parse", "-q", "--verify", "HEAD"], cwd=root, check=False).returncode == 0
    if not has_head:
        return {}
    out = run_git(
        [
            "log",
            "--no-renames",
            "--name-only",
            f"--format={_COMMIT_MARK}%H{_FIELD}%aI{_FIELD}%s",
            "HEAD",
            "--",
            pathspec,
        ],
        cwd=root,
        # Non-ASCII note names come out verbatim instead of C-quoted.
        env={"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "core.quotePath", "GIT_CONFIG_VALUE_0": "false"},
    ).stdout
    found: dict[str, LastChange] = {}
    current: LastChange | None = None
    for line in out.split("\n"):  # not splitlines(): it splits at \x1e too
        if line.startswith(_COMMIT_MARK):
            commit, date, subject = (line[1:].split(_FIELD) + ["", ""])[:3]
            current = LastChange(commit=commit, date=date, subject=subject)
        elif line and current is not None and line not in found:
            found[line] = current
    return found


def file_history(root: Path, path: str, *, limit: int = 50) -> list[LastChange]:
    """The newest `limit` commits that changed `path` (following renames), newest first."""
    proc = run_git(
        ["log", f"-{limit}", "--follow", f"--format=%H{_FIELD}%aI{_FIELD}%s", "HEAD", "--", path],
        cwd=root,
        check=False,
    )
    if proc.returncode != 0:
        return []
    out = []
    for line in proc.stdout.splitlines():
        commit, date, subject = (line.split(_FIELD) + ["", ""])[:3]
        out.append(LastChange(commit=commit, date=date, subject=subject))
    return out
