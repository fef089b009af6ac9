"""Failure injection: each step of commit → receipt → apply (with replay) fails in turn; the rerun
finishes with exactly the state of a run that never failed: nothing duplicated, `git fsck` clean."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import load_config
from hippo_git.dream import apply as apply_mod
from hippo_git.dream.apply import ApplyResult, apply_run
from hippo_git.dream.receipts import receipt_identity, write_receipt
from hippo_git.git.objects import GitStore
from tests.conftest import REPO_ROOT, git
from tests.dream_git_support import REVIEWER, THREE, fsck_clean, notes_repo, propose, receipt_lines

VERDICTS = ("confirm", "reject", "confirm")


class Boom(RuntimeError):
    """The injected failure (not a HippoError: it stands for a crash)."""


def _flow(root: Path, *, human_edit: bool) -> ApplyResult:
    """One dream run as a fresh process would do it: propose, review, apply."""
    store = GitStore(root)
    pcs = propose(root, "r1", THREE, store)
    for pc, verdict in zip(pcs, VERDICTS):
        write_receipt(root, pc.receipt(verdict, REVIEWER, reason=f"{verdict} by script"), store=store)  # type: ignore[arg-type]
    if human_edit and "human" not in git(root, "log", "--format=%s", "main"):  # the target moves on
        (root / "notes/index.md").write_text("# Index\n\nEdited by a person.\n")
        git(root, "commit", "-qam", "human edit")
    return apply_run(root, load_config(root), "r1", store=store)


def _state(root: Path) -> dict[str, Any]:
    return {
        "main": git(root, "rev-parse", "main"),
        "branch": git(root, "rev-parse", "refs/heads/hippo/proposals/r1"),
        "receipts": git(root, "rev-parse", "refs/notes/hippo/receipts^{tree}"),
        "status": git(root, "status", "--porcelain"),
        "files": {p.name: p.read_text() for p in sorted((root / "notes").iterdir())},
    }


def _fail_on_call(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, when: Callable[..., bool]) -> None:
    real = getattr(owner, name)
    fired: list[bool] = []

    def wrapper(*args: Any, **kwargs: Any) -> Any:
        if not fired and when(*args, **kwargs):
            fired.append(True)
            raise Boom(f"injected failure in {name}")
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, wrapper)


def _nth(n: int) -> Callable[..., bool]:
    calls: list[int] = []

    def when(*_args: Any, **_kwargs: Any) -> bool:
        calls.append(1)
        return len(calls) == n

    return when


def _ref_is(prefix: str) -> Callable[..., bool]:
    return lambda _self, ref, *_a, **_k: str(ref).startswith(prefix)


INJECTIONS: dict[str, tuple[Any, str, Callable[..., bool], bool]] = {
    # name: (owner, attribute, when to fail, target moved on so apply replays)
    "commit object made, branch not moved": (
        GitStore,
        "cas_ref",
        lambda _s, ref, *a, **k: "proposals" in ref and _second(),
        False,
    ),
    "between commit and receipt": (GitStore, "append_note_lines", _nth(2), False),
    "between receipt and apply": (apply_mod, "confirm", _nth(1), False),
    "mid-replay, before the replay receipts": (apply_mod, "write_receipts", _nth(1), True),
    "mid-replay, receipts written, before the target moves": (apply_mod, "advance_branch", _nth(1), True),
    "worktree updated, before the target ref moves": (GitStore, "cas_ref", _ref_is("refs/heads/main"), True),
}

_seen_second: list[int] = []


def _second() -> bool:
    _seen_second.append(1)
    return len(_seen_second) == 2


@pytest.mark.parametrize("name", list(INJECTIONS))
def test_a_failure_at_each_step_then_a_rerun_leaves_the_clean_state(tmp_path: Path, name: str) -> None:
    owner, attr, when, replay = INJECTIONS[name]
    _seen_second.clear()
    clean = notes_repo(tmp_path / "clean")
    _flow(clean, human_edit=replay)
    expected = _state(clean)

    root = notes_repo(tmp_path / "failing")
    with pytest.MonkeyPatch.context() as patch, pytest.raises(Boom):  # not `monkeypatch`: it pins the env
        _fail_on_call(patch, owner, attr, when)
        _flow(root, human_edit=replay)
    result = _flow(root, human_edit=replay)
    assert _state(root) == expected
    assert result.refused and result.refused[0].reason == "rejected by review"
    lines = receipt_lines(root)
    assert sorted(lines) == sorted(receipt_lines(clean))
    assert (
        len(lines) == len({receipt_identity(line) for line in lines}) == (5 if replay else 4)
    )  # 3 reviews + replays
    subjects = git(root, "log", "--format=%s", "refs/heads/hippo/proposals/r1").splitlines()
    assert len([s for s in subjects if s.startswith("hippo:")]) == 3
    fsck_clean(root)


_KILL = """
import os, sys
from pathlib import Path
from hippo_git.git.objects import GitStore
from tests.test_dream_git_failures import _flow
real = GitStore.cas_ref
def dying(self, ref, *args, **kwargs):
    if ref == "refs/heads/main":
        os._exit(9)  # killed after the worktree moved, before the ref did
    return real(self, ref, *args, **kwargs)
GitStore.cas_ref = dying
_flow(Path(sys.argv[1]), human_edit=True)
"""


def test_a_kill_between_worktree_update_and_ref_update_is_picked_up(tmp_path: Path) -> None:
    """The state a kill can leave (index and files at the new tip, the ref at the old one) is not
    mistaken for a dirty note: the rerun finishes the apply."""
    clean = notes_repo(tmp_path / "clean")
    _flow(clean, human_edit=True)

    root = notes_repo(tmp_path / "killed")
    proc = subprocess.run(
        [sys.executable, "-c", _KILL, str(root)], cwd=REPO_ROOT, capture_output=True, text=True
    )
    assert proc.returncode == 9, proc.stderr
    assert (
        git(root, "status", "--porcelain") == "M  notes/build.md"
    )  # staged: the worktree moved, main did not
    _flow(root, human_edit=True)
    assert _state(root) == _state(clean)
    fsck_clean(root)
