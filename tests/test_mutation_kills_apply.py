"""The apply gate's edges that mutation testing found unguarded (issue 21): each refusal exactly,
a receipt binding only the commit it names, `before` compared both ways, a change the target
already has, and what an apply leaves in the result, the reflog and the errors."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.dream.apply import (
    UNREVIEWED,
    ApplyResult,
    Landed,
    Refusal,
    applied_proposals,
    apply_run,
    confirm,
    fast_forward,
)
from hippo_git.dream.proposals import ProposalCommit
from hippo_git.dream.receipts import write_receipt
from hippo_git.errors import HippoError
from hippo_git.git.objects import GitStore
from hippo_git.git.worktree import DirtyNoteError
from tests.conftest import git
from tests.dream_git_support import REVIEWER, THREE, notes_repo, prop, propose, review


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return notes_repo(tmp_path / "repo")


def _human_edit(root: Path, path: str, text: str, branch: str = "main") -> str:
    """Commit `text` as `path` on `branch` without touching the checkout; the new tip."""
    store = GitStore(root)
    tip = store.ref_target(f"refs/heads/{branch}")
    assert tip is not None
    blob = store.write_blob(text.encode())
    tree = store.tree_with(tip, path, blob)
    new = git(root, "commit-tree", tree, "-p", tip, "-m", "human edit")
    git(root, "update-ref", f"refs/heads/{branch}", new)
    return new


def test_a_receipt_confirms_only_the_commit_it_names_whichever_sorts_first(root: Path) -> None:
    """The same proposal committed in two runs: the same path, blobs and patch-id, two commits.
    A confirm (or a reject) of one says nothing about the other, in either order of their ids."""
    one = propose(root, "r1", THREE[:1])[0]
    two = propose(root, "r2", THREE[:1])[0]
    assert one.commit != two.commit and (one.patch_id, one.after) == (two.patch_id, two.after)
    low, high = sorted([one, two], key=lambda pc: pc.commit)
    review(root, [high])
    gate = confirm(root, "main", [low.commit])
    assert gate.confirmed == [] and [r.reason for r in gate.refused] == [UNREVIEWED]
    review(root, [low], ["reject"])
    gate = confirm(root, "main", [high.commit])
    assert [c.commit for c in gate.confirmed] == [high.commit] and gate.refused == []


def test_a_before_that_is_not_the_targets_blob_is_refused_whichever_sorts_first(root: Path) -> None:
    """The gate compares the receipt's before with the note's blob on the target for equality:
    a person's edit is refused whether its blob id sorts above or below the receipt's."""
    pc = propose(root, "r1", THREE[:1])[0]
    review(root, [pc])
    seen = set()
    for n in range(8):
        _human_edit(root, "notes/build.md", f"# Build\n\nEdit {n} by a person.\n")
        now = GitStore(root).blob_at(git(root, "rev-parse", "main"), "notes/build.md")
        seen.add(now < pc.before)
        gate = confirm(root, "main", [pc.commit])
        reason = "notes/build.md changed on the target since the proposal"
        assert gate.confirmed == []
        assert gate.refused == [Refusal(pc.proposal_id, pc.commit, pc.path, reason, stale=True)]
    assert seen == {True, False}  # both orders were tried


def test_a_change_built_on_one_awaiting_review_is_waiting_not_stale(root: Path) -> None:
    pcs = propose(root, "r1", THREE)
    review(root, pcs[1:])  # the first change to build.md has no review yet
    gate = confirm(root, "main", [pc.commit for pc in pcs])
    first, third = pcs[0], pcs[2]
    assert [c.commit for c in gate.confirmed] == [pcs[1].commit]
    assert gate.refused == [
        Refusal(first.proposal_id, first.commit, first.path, UNREVIEWED),
        Refusal(
            third.proposal_id,
            third.commit,
            third.path,
            f"it builds on proposal {first.proposal_id[:12]}, which awaits its review",
            builds_on=first.proposal_id,
        ),
    ]
    result = apply_run(root, load_config(root), "r1")
    assert [r.commit for r in result.refused] == [first.commit, third.commit] and result.stale == []


def test_a_change_built_on_a_rejected_one_is_stale(root: Path) -> None:
    pcs = propose(root, "r1", THREE)
    review(root, pcs, ["reject", "confirm", "confirm"])
    gate = confirm(root, "main", [pc.commit for pc in pcs])
    first, third = pcs[0], pcs[2]
    assert gate.refused == [
        Refusal(first.proposal_id, first.commit, first.path, "rejected by review"),
        Refusal(
            third.proposal_id,
            third.commit,
            third.path,
            f"it builds on proposal {first.proposal_id[:12]}, which did not land",
            stale=True,
            builds_on=first.proposal_id,
        ),
    ]
    result = apply_run(root, load_config(root), "r1")
    assert [r.commit for r in result.stale] == [third.commit]
    assert [r.commit for r in result.refused] == [first.commit]


def test_a_reverted_proposal_and_a_commit_that_is_no_proposal_are_refused(root: Path) -> None:
    pc = propose(root, "r1", THREE[:1])[0]
    review(root, [pc])
    write_receipt(root, pc.receipt("confirm", REVIEWER, kind="revert"))
    plain = git(root, "rev-parse", "main")
    gate = confirm(root, "main", [pc.commit, plain])
    assert gate.refused == [
        Refusal(pc.proposal_id, pc.commit, pc.path, "a human reverted this proposal"),
        Refusal("", plain, "", "not a proposal commit that changes exactly one note"),
    ]


def test_a_confirmed_change_already_on_the_target_is_reported_as_already(root: Path) -> None:
    pcs = propose(root, "r1", THREE[:2])
    review(root, pcs)
    gate = confirm(root, "main", [pc.commit for pc in pcs])
    first = fast_forward(root, "main", gate.confirmed)
    assert first.moved and first.new == pcs[-1].commit and first.already == []
    again = fast_forward(root, "main", gate.confirmed)
    assert again.already == [pc.proposal_id for pc in pcs]
    assert (again.stale, again.applied, again.moved, again.worktree) == ([], [], False, None)


def test_a_note_edited_after_the_gate_is_stale_naming_the_target_branch(root: Path) -> None:
    pcs = propose(root, "r1", THREE[:1])
    review(root, pcs)
    gate = confirm(root, "main", [pcs[0].commit])
    tip = _human_edit(root, "notes/build.md", "# Build\n\nA person was faster.\n")
    result = fast_forward(root, "main", gate.confirmed)
    reason = "notes/build.md changed on main since the proposal"
    assert result.stale == [Refusal(pcs[0].proposal_id, pcs[0].commit, pcs[0].path, reason, stale=True)]
    assert (result.old, result.new, result.moved) == (tip, tip, False)


def test_the_result_the_reflog_and_the_worktree_of_an_apply(root: Path) -> None:
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    old = git(root, "rev-parse", "main")
    result = apply_run(root, load_config(root), "r1")
    assert (result.old, result.new, result.run, result.worktree) == (old, pcs[-1].commit, "r1", str(root))
    data = result.as_dict()
    assert data["moved"] is True and data["applied"][0]["proposal"] == pcs[0].proposal_id
    assert data["applied"][0]["replayed_from"] is None
    assert (
        git(root, "reflog", "-1", "--format=%gs", "refs/heads/main") == "hippo apply: 3 confirmed proposal(s)"
    )
    assert not ApplyResult("main", old, old).moved and ApplyResult("main", None, old).moved


def test_an_applied_branch_that_is_not_checked_out_names_no_worktree(root: Path) -> None:
    git(root, "switch", "-q", "-c", "elsewhere")
    pcs = propose(root, "r1", THREE[:1])
    review(root, pcs)
    result = apply_run(root, load_config(root), "r1")
    assert result.moved and result.worktree is None


def test_a_dirty_note_names_the_run_to_apply_again(root: Path) -> None:
    pcs = propose(root, "r1", THREE[:1])
    review(root, pcs)
    (root / "notes/build.md").write_text("mine\n")
    with pytest.raises(DirtyNoteError) as caught:
        apply_run(root, load_config(root), "r1")
    assert caught.value.hint is not None and "`git hippo apply r1`" in caught.value.hint


def test_the_errors_say_what_to_do(root: Path) -> None:
    cfg = load_config(root)
    with pytest.raises(HippoError) as caught:
        apply_run(root, cfg)
    assert (caught.value.message, caught.value.hint) == (
        "there are no dream runs to apply",
        "run `git hippo dream` first",
    )
    propose(root, "r1", THREE[:1])
    with pytest.raises(HippoError) as caught:
        apply_run(root, cfg, "r9")
    assert (caught.value.message, caught.value.hint) == (
        "no proposals branch for run 'r9'",
        "`git hippo proposals` lists the runs",
    )
    with pytest.raises(HippoError) as caught:
        confirm(root, "nope", [])
    assert (caught.value.message, caught.value.hint) == (
        "the target branch 'nope' does not exist",
        "set target_branch in .hippo/hippo.toml",
    )


def test_a_confirmed_change_shows_itself_and_cannot_be_deleted(root: Path) -> None:
    pc: ProposalCommit = propose(root, "r1", THREE[:1])[0]
    review(root, [pc])
    change = confirm(root, "main", [pc.commit]).confirmed[0]
    assert repr(change) == f"ConfirmedChange({pc.proposal_id[:12]} {pc.commit[:12]} {pc.path})"
    assert (change.path, change.before, change.after, change.run) == (pc.path, pc.before, pc.after, "r1")
    with pytest.raises(AttributeError):
        del change.path


def test_applied_proposals_of_a_run_the_target_forked_from_and_of_none(root: Path) -> None:
    store = GitStore(root)
    pcs = propose(root, "r1", THREE)
    review(root, pcs[:1])
    apply_run(root, load_config(root), "r1")
    tip = git(root, "rev-parse", "main")
    assert applied_proposals(store, tip, "r1") == {pcs[0].proposal_id}
    assert applied_proposals(store, tip, "r-none") == set()
    later = prop("notes/index.md", "- one more", turn=7)
    assert later.id not in applied_proposals(store, tip, "r1")


def test_a_landed_change_whose_note_was_edited_since_is_stale_not_already(root: Path) -> None:
    """`already` needs the note to hold exactly the change's `after`: an edit since, whether its
    blob id sorts above or below that `after`, makes it stale."""
    pcs = propose(root, "r1", THREE[:1])
    review(root, pcs)
    gate = confirm(root, "main", [pcs[0].commit])
    assert fast_forward(root, "main", gate.confirmed).moved
    seen = set()
    for n in range(8):
        tip = _human_edit(root, "notes/build.md", f"# Build\n\nEdited {n} after it landed.\n")
        seen.add(GitStore(root).blob_at(tip, "notes/build.md") < pcs[0].after)
        result = fast_forward(root, "main", gate.confirmed)
        assert result.already == [] and [s.commit for s in result.stale] == [pcs[0].commit]
    assert seen == {True, False}


@pytest.mark.parametrize("forged", ["0" * 40, "f" * 40])
def test_a_hippo_before_trailer_above_or_below_the_parents_blob_is_refused(root: Path, forged: str) -> None:
    """The trailer must equal the note's blob in the parent, even with a receipt that matches."""
    pc = propose(root, "r1", THREE[:1])[0]
    store = GitStore(root)
    info = store.commit_info(pc.commit)
    message = info.message.replace(f"Hippo-Before: {pc.before}", f"Hippo-Before: {forged}")
    assert message != info.message
    tree = git(root, "rev-parse", f"{pc.commit}^{{tree}}")
    sha = git(root, "commit-tree", tree, "-p", pc.parent, "-m", message)
    write_receipt(root, pc.receipt("confirm", REVIEWER).model_copy(update={"commit": sha}))
    gate = confirm(root, "main", [sha])
    reason = "its Hippo-Before trailer does not match its parent"
    assert gate.confirmed == [] and gate.refused == [Refusal(pc.proposal_id, sha, pc.path, reason)]


def test_moved_compares_the_tips_values(root: Path) -> None:
    """Two reads of the same tip are two equal strings, not one object: not a move."""
    first, second = git(root, "rev-parse", "main"), git(root, "rev-parse", "main")
    assert first == second and first is not second
    assert not ApplyResult("main", first, second).moved
    assert ApplyResult("main", first, None).moved


def test_the_gates_results_are_read_only_values(root: Path) -> None:
    """What the gate and an apply report cannot be altered after the fact by whoever holds them."""
    pcs = propose(root, "r1", THREE[:2])
    review(root, pcs[:1])
    gate = confirm(root, "main", [pc.commit for pc in pcs])
    result = fast_forward(root, "main", gate.confirmed)
    [refusal], [landed] = gate.refused, result.applied
    assert len({refusal, Refusal(*dataclasses.astuple(refusal))}) == 1  # a value: hashable
    assert len({landed, Landed(landed.proposal, landed.commit, landed.path)}) == 1
    for value, name in ((refusal, "reason"), (landed, "commit"), (gate, "target_tip"), (result, "new")):
        with pytest.raises(dataclasses.FrozenInstanceError):
            setattr(value, name, "x")


def test_a_change_confirmed_twice_carries_the_earliest_confirming_receipt(root: Path) -> None:
    """Which review a replay copies is fixed: the first in time, whatever was written after."""
    pc = propose(root, "r1", THREE[:1])[0]
    first = pc.receipt("confirm", REVIEWER, reason="first").model_copy(
        update={"time": "2026-01-01T00:00:00Z"}
    )
    other = REVIEWER.model_copy(update={"persona": "core/second"})
    later = pc.receipt("confirm", other, reason="later").model_copy(update={"time": "2026-06-01T00:00:00Z"})
    write_receipt(root, later)
    write_receipt(root, first)
    [change] = confirm(root, "main", [pc.commit]).confirmed
    assert change.receipt == first


@pytest.mark.parametrize(
    ("field", "forged"),
    [("before", "0" * 40), ("after", "0" * 40), ("patch_id", "0" * 40), ("path", "notes/a.md")]
    + [("before", "f" * 40), ("after", "f" * 40), ("patch_id", "f" * 40), ("path", "notes/z.md")],
)
def test_a_receipt_fact_below_or_above_the_commits_does_not_match(
    root: Path, field: str, forged: str
) -> None:
    """The receipt's facts must equal the commit's, not merely sort on one side of them."""
    pc = propose(root, "r1", THREE[:1])[0]
    assert getattr(pc, field) != forged
    write_receipt(root, pc.receipt("confirm", REVIEWER).model_copy(update={field: forged}))
    gate = confirm(root, "main", [pc.commit])
    reason = "the receipt's path, blobs or patch-id do not match the commit"
    assert gate.confirmed == [] and gate.refused == [Refusal(pc.proposal_id, pc.commit, pc.path, reason)]


def test_applied_proposals_counts_every_run_commit_up_to_the_fork(root: Path) -> None:
    """Two of three proposals land as they are (a fast-forward): both are the target's."""
    store = GitStore(root)
    pcs = propose(root, "r1", THREE)
    review(root, pcs[:2])
    result = apply_run(root, load_config(root), "r1")
    assert result.new == pcs[1].commit and [a.replayed_from for a in result.applied] == [None, None]
    assert applied_proposals(store, pcs[1].commit, "r1") == {pcs[0].proposal_id, pcs[1].proposal_id}
