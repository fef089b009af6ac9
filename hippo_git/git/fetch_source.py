"""Fetching a folder of files from a git URL at a ref, into a scratch folder, without running hooks.

Used for pack sources and registries: what is fetched is untrusted data that hippo only reads
(nothing in it is run), so the clone has no hooks, no submodules and no checkout filters.
"""

from __future__ import annotations

from pathlib import Path

from hippo_git.errors import GitError, HippoError
from hippo_git.git.repo import run_git

# A clone runs no hooks (run_git), follows no submodules, and reads no attributes-driven filters
# from the fetched content (core.attributesFile cannot come from it; filters need local config).
_SAFE = ["-c", "protocol.ext.allow=never", "-c", "core.symlinks=false"]


class SourceError(HippoError):
    """A pack or registry source cannot be fetched."""


def fetch_checkout(url: str, ref: str | None, dest: Path) -> str:
    """Clone `url` into the new folder `dest` and check out `ref` (default: the remote's HEAD);
    return the commit checked out. `dest` must not exist."""
    try:
        run_git([*_SAFE, "clone", "--quiet", "--no-checkout", "--", url, str(dest)], cwd=dest.parent)
    except GitError as exc:
        raise SourceError(
            f"cannot fetch {url}: {exc.message.split(' failed: ', 1)[-1]}",
            hint="check the URL or path, and that you can `git clone` it",
        ) from None
    target = ref or "HEAD"
    proc = run_git(["rev-parse", "--verify", "-q", f"{target}^{{commit}}"], cwd=dest, check=False)
    if proc.returncode != 0:
        proc = run_git(["rev-parse", "--verify", "-q", f"origin/{target}^{{commit}}"], cwd=dest, check=False)
    commit = proc.stdout.strip()
    if proc.returncode != 0 or not commit:
        raise SourceError(
            f"{url} has no ref {target!r}", hint="name a branch, tag or commit that exists there"
        )
    run_git([*_SAFE, "checkout", "--quiet", "--detach", commit], cwd=dest)
    return commit


def is_git_checkout(folder: Path) -> bool:
    return (folder / ".git").exists()
