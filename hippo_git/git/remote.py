"""Talking to remotes: fetch and push of named refs only, and merging receipts notes.

These are porcelain that must behave exactly like git against a remote, so they go through
GitPython (DESIGN §5), and outcomes are read from its structured results (`PushInfo` and
`FetchInfo` flags), not from git's messages. Pushes are never forced; hooks never run.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hippo_git.errors import GitError
from hippo_git.git.repo import run_git

# GitPython logs a failed push's stderr as a warning; the outcome is reported by us instead.
logging.getLogger("git").addHandler(logging.NullHandler())


@dataclass(frozen=True)
class PushOutcome:
    """How a push went: accepted, rejected because the remote moved on, or already up to date."""

    ok: bool
    rejected: bool  # lost a race: the remote moved on (non-fast-forward, fetch first, ref locked)
    message: str
    up_to_date: bool = False


def _repo(root: Path) -> Any:
    import git as gitpython  # imported here: heavy, and only remote work needs it

    repo = gitpython.Repo(str(root))
    repo.git.update_environment(
        GIT_TERMINAL_PROMPT="0",
        LC_ALL="C",
        GIT_CONFIG_COUNT="1",
        GIT_CONFIG_KEY_0="core.hooksPath",
        GIT_CONFIG_VALUE_0="/dev/null",
    )
    return repo


def _said(exc: Exception) -> str:
    """git's own reason from a failed command: its first `fatal:`/`error:` line, without the prefix."""
    text = str(getattr(exc, "stderr", "") or exc)
    lines = [line.strip().strip("'").strip() for line in text.replace("stderr:", "\n").splitlines()]
    for line in lines:
        for prefix in ("fatal:", "error:"):
            if line.startswith(prefix):
                return line.removeprefix(prefix).strip()
    found = [line for line in lines if line]
    return found[0] if found else f"exit {getattr(exc, 'status', '?')}"


def _unreachable(repo: Any, remote: str, exc: Exception) -> GitError:
    try:
        url = " (" + ", ".join(repo.remote(remote).urls) + ")"
    except Exception:
        url = ""
    return GitError(
        f"cannot reach remote {remote!r}{url}: {_said(exc)}",
        hint=f"check `git remote -v` and that you can read and write {remote}",
    )


def remote_tip(root: Path, remote: str, ref: str) -> str | None:
    """The commit `ref` points at on `remote` (one round trip), or None when it has no such ref."""
    import git as gitpython

    repo = _repo(root)
    try:
        out = repo.git.ls_remote("--refs", remote, ref)
    except gitpython.GitCommandError as exc:
        raise _unreachable(repo, remote, exc) from None
    for line in str(out).splitlines():
        sha, _, name = line.partition("\t")
        if name == ref:
            return sha
    return None


def remote_has_ref(root: Path, remote: str, ref: str) -> bool:
    return remote_tip(root, remote, ref) is not None


def fetch_ref(root: Path, remote: str, src: str, dst: str, *, known: bool = False) -> bool:
    """Fetch `src` from `remote` into the tracking ref `dst` (ours to move). False when absent
    remotely; `known=True` skips asking first (the caller just saw it there)."""
    import git as gitpython

    if not known and not remote_has_ref(root, remote, src):
        return False
    repo = _repo(root)
    try:
        infos = repo.remote(remote).fetch(f"+{src}:{dst}", no_tags=True)
    except gitpython.GitCommandError as exc:
        raise GitError(f"git fetch {remote} {src} failed: {_said(exc)}") from None
    except ValueError as exc:  # no such remote in the config
        raise GitError(f"cannot fetch from {remote!r}: {exc}") from None
    failed = gitpython.FetchInfo.ERROR | gitpython.FetchInfo.REJECTED
    if not infos or any(info.flags & failed for info in infos):
        notes = "; ".join(str(info.note).strip() for info in infos) or "nothing fetched"
        raise GitError(f"git fetch {remote} {src} failed: {notes}")
    return True


# A "remote rejected" that names one of these lost a race with another push; anything else
# (a server hook, permissions) will not change by retrying.
_RACE = ("failed to update ref", "cannot lock ref", "incorrect old value", "stale info")


def push_ref(root: Path, remote: str, src: str, dst: str) -> PushOutcome:
    """Push without force; a rejection because the remote moved is reported, not raised."""
    import git as gitpython

    repo = _repo(root)
    try:
        infos = repo.remote(remote).push(f"{src}:{dst}", no_verify=True)
    except gitpython.GitCommandError as exc:
        raise _unreachable(repo, remote, exc) from None
    except ValueError as exc:
        raise GitError(f"cannot push to {remote!r}: {exc}") from None
    if not infos:
        return PushOutcome(False, False, _said(infos.error) if infos.error else "git push reported nothing")
    info = infos[0]
    summary = str(info.summary).strip()
    if info.flags & gitpython.PushInfo.UP_TO_DATE:
        return PushOutcome(True, False, "", up_to_date=True)
    if info.flags & gitpython.PushInfo.REJECTED:
        return PushOutcome(False, True, summary)
    if info.flags & gitpython.PushInfo.REMOTE_REJECTED:
        return PushOutcome(False, any(word in summary for word in _RACE), summary)
    if info.flags & (gitpython.PushInfo.ERROR | gitpython.PushInfo.REMOTE_FAILURE):
        return PushOutcome(False, False, summary or "git push failed")
    return PushOutcome(True, False, "")


def merge_notes(root: Path, notes_ref: str, other: str) -> None:
    """Merge `other` into the local notes ref with cat_sort_uniq: lines of both sides are kept."""
    import git as gitpython

    try:
        _repo(root).git.notes(f"--ref={notes_ref}", "merge", "-q", "-s", "cat_sort_uniq", other)
    except gitpython.GitCommandError as exc:
        raise GitError(f"git notes merge of {other} failed: {_said(exc)}") from None


def create_ref(root: Path, ref: str, target: str) -> None:
    """Create `ref` only if it does not exist (compare-and-swap against 'absent')."""
    run_git(["update-ref", ref, target, ""], cwd=root)
