"""Talking to remotes: fetch and push of named refs only, and merging receipts notes.

These are porcelain that must behave exactly like git against a remote, so they go through
GitPython's command wrapper (DESIGN §5). Pushes are never forced.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from hippo_git.errors import GitError
from hippo_git.git.repo import run_git


@dataclass(frozen=True)
class PushOutcome:
    ok: bool
    rejected: bool  # the remote moved on (non-fast-forward / fetch first)
    message: str


def _run(root: Path, *args: str) -> tuple[int, str, str]:
    import git as gitpython  # imported here: heavy, and only remote work needs it

    status, stdout, stderr = gitpython.Git(str(root)).execute(
        ["git", "-c", "core.hooksPath=/dev/null", *args],
        with_extended_output=True,
        with_exceptions=False,
        env={"GIT_TERMINAL_PROMPT": "0", "LC_ALL": "C"},
    )
    return int(status), str(stdout), str(stderr)


def remote_has_ref(root: Path, remote: str, ref: str) -> bool:
    code, out, err = _run(root, "ls-remote", "--refs", remote, ref)
    if code != 0:
        raise GitError(
            f"cannot reach remote {remote!r}: {_last(err)}",
            hint=f"check `git remote -v` and access to {remote}",
        )
    return any(line.split("\t")[-1] == ref for line in out.splitlines())


def fetch_ref(root: Path, remote: str, src: str, dst: str) -> bool:
    """Fetch `src` from `remote` into the tracking ref `dst` (ours to move). False when absent remotely."""
    if not remote_has_ref(root, remote, src):
        return False
    code, _, err = _run(root, "fetch", "--no-tags", "--quiet", remote, f"+{src}:{dst}")
    if code != 0:
        raise GitError(f"git fetch {remote} {src} failed: {_last(err)}")
    return True


def push_ref(root: Path, remote: str, src: str, dst: str) -> PushOutcome:
    """Push without force; a rejection because the remote moved is reported, not raised."""
    code, out, err = _run(root, "push", "--porcelain", "--quiet", remote, f"{src}:{dst}")
    text = f"{out}\n{err}"
    if code == 0:
        return PushOutcome(True, False, "")
    rejected = any(
        word in text
        for word in ("[rejected]", "non-fast-forward", "fetch first", "stale info", "cannot lock ref")
    )
    return PushOutcome(False, rejected, _last(err) or _last(out))


def merge_notes(root: Path, notes_ref: str, other: str) -> None:
    """Merge `other` into the local notes ref with cat_sort_uniq: lines of both sides are kept."""
    code, _, err = _run(root, "notes", f"--ref={notes_ref}", "merge", "-q", "-s", "cat_sort_uniq", other)
    if code != 0:
        raise GitError(f"git notes merge of {other} failed: {_last(err)}")


def _last(text: str) -> str:
    lines = [line for line in text.strip().splitlines() if line.strip()]
    return lines[-1].strip() if lines else ""


def create_ref(root: Path, ref: str, target: str) -> None:
    """Create `ref` only if it does not exist (compare-and-swap against 'absent')."""
    run_git(["update-ref", ref, target, ""], cwd=root)
