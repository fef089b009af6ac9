"""What a local checkout of some project is, as seen from elsewhere: its remote URL and commit."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hippo_git.git.repo import run_git


@dataclass(frozen=True)
class CheckoutOrigin:
    """Where a local checkout comes from: its remote and URL, HEAD, and whether HEAD is pushed and clean."""

    remote: str  # the remote's name ("" when the checkout has none)
    url: str  # that remote's fetch URL
    commit: str  # HEAD
    published: bool  # some remote-tracking branch contains HEAD
    dirty: bool  # tracked files differ from HEAD


def checkout_origin(path: Path) -> CheckoutOrigin | None:
    """None when `path` is not inside a git checkout with a commit."""
    head = run_git(["rev-parse", "--verify", "-q", "HEAD"], cwd=path, check=False)
    if head.returncode != 0:
        return None
    commit = head.stdout.strip()
    upstream = run_git(["rev-parse", "--abbrev-ref", "@{upstream}"], cwd=path, check=False).stdout.strip()
    names = run_git(["remote"], cwd=path, check=False).stdout.split()
    remote = (
        upstream.split("/", 1)[0]
        if upstream
        else ("origin" if "origin" in names else names[0] if names else "")
    )
    url = ""
    if remote:
        url = run_git(["remote", "get-url", remote], cwd=path, check=False).stdout.strip()
    contains = run_git(["branch", "-r", "--contains", commit], cwd=path, check=False).stdout.strip()
    dirty = run_git(["diff", "--quiet", "HEAD"], cwd=path, check=False).returncode == 1
    return CheckoutOrigin(remote, url, commit, bool(contains), dirty)


def uncommitted(root: Path, paths: list[str]) -> list[str]:
    """Those of `paths` (relative to `root`) that are untracked or differ from HEAD, in their order."""
    out = run_git(
        ["status", "--porcelain=v1", "-z", "--untracked-files=all", "--", *paths],
        cwd=root,
        env={"GIT_LITERAL_PATHSPECS": "1"},
    ).stdout
    changed: set[str] = set()
    entries = out.split("\0")
    i = 0
    while i < len(entries):
        entry = entries[i]
        if len(entry) > 3:
            changed.add(entry[3:])
            if entry[0] in "RC":  # a rename or copy names its source next
                i += 1
        i += 1
    return [p for p in paths if p in changed]
