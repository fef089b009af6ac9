"""What a local checkout of some project is, as seen from elsewhere: its remote URL and commit."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hippo_git.git.repo import run_git


@dataclass(frozen=True)
class CheckoutOrigin:
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
