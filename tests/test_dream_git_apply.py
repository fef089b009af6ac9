"""Proposal commits, receipts and the apply gate: invariants 1 and 5, replay, dirty notes."""

from __future__ import annotations

from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.dream import apply as apply_mod
from hippo_git.dream.apply import ConfirmedChange, apply_run, confirm, fast_forward
from hippo_git.dream.proposals import ProposalBranch, commit_proposal, proposals_ref, run_commits
from hippo_git.dream.receipts import list_receipts, receipts_for, write_receipt
from hippo_git.dream.records import Receipt, parse_trailers
from hippo_git.errors import HippoError, StaleRefError
from hippo_git.git.objects import GitStore
from hippo_git.git.worktree import DirtyNoteError
from tests.conftest import git
from tests.dream_git_support import (
    NOTES,
    REVIEWER,
    THREE,
    fsck_clean,
    log_subjects,
    notes_repo,
    prop,
    propose,
    receipt_lines,
    review,
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return notes_repo(tmp_path / "repo")


def test_each_proposal_is_one_commit_changing_one_note_with_trailers(root: Path) -> None:
    pcs = propose(root, "r1", THREE)
    assert git(root, "rev-parse", proposals_ref("r1")) == pcs[-1].commit
    for pc, p in zip(pcs, THREE):
        assert git(root, "diff-tree", "--no-commit-id", "--name-only", "-r", pc.commit) == p.path
        trailers = parse_trailers(git(root, "log", "-1", "--format=%B", pc.commit))
        assert trailers is not None and trailers.proposal == p.id and trailers.run == "r1"
        assert trailers.before == pc.before
    assert git(root, "status", "--porcelain") == ""
    assert (root / "notes/build.md").read_text() == NOTES["notes/build.md"]


def test_committing_a_proposal_again_returns_the_existing_commit(root: Path) -> None:
    first = propose(root, "r1", THREE)
    again = propose(root, "r1", THREE)
    assert [pc.commit for pc in again] == [pc.commit for pc in first]
    assert not any(pc.created for pc in again)
    one = commit_proposal(root, proposals_ref("r1"), None, THREE[1], "r1")
    assert one.commit == first[1].commit
    assert len(run_commits(GitStore(root), "r1")) == 3


def test_a_receipt_is_written_once_and_found_by_proposal_id_on_any_commit(root: Path) -> None:
    pcs = propose(root, "r1", THREE[:1])
    receipt = pcs[0].receipt("confirm", REVIEWER, reason="fine")
    assert write_receipt(root, receipt)
    assert not write_receipt(root, receipt.model_copy(update={"time": "2030-01-01T00:00:00Z"}))
    assert len(receipt_lines(root)) == 1
    # a "rebase and merge" rewrote the commit: its receipt is still found by proposal id
    assert receipts_for(root, commit="f" * 40, proposal_id=pcs[0].proposal_id) == [receipt]
    assert receipts_for(root, commit=pcs[0].commit) == [receipt]


def test_apply_fast_forwards_a_branch_that_is_not_checked_out_ref_only(root: Path) -> None:
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    git(root, "switch", "-q", "-c", "elsewhere")
    result = apply_run(root, load_config(root), "r1")
    assert result.moved and result.worktree is None
    assert git(root, "rev-parse", "main") == pcs[-1].commit
    assert (root / "notes/build.md").read_text() == NOTES["notes/build.md"]  # this worktree is on `elsewhere`
    assert git(root, "status", "--porcelain") == ""
    assert "Run `make -j4` to build." in git(root, "show", "main:notes/build.md")


def test_apply_updates_the_checked_out_target_like_merge_ff_only(root: Path) -> None:
    (root / "scratch.txt").write_text("unrelated local edit\n")  # untouched paths may be dirty
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    result = apply_run(root, load_config(root), None)  # default: the latest run
    assert result.run == "r1" and result.worktree == str(root)
    assert [a.commit for a in result.applied] == [pc.commit for pc in pcs]
    build = (root / "notes/build.md").read_text()
    assert "Run `make -j4` to build." in build and "- `make lint` runs ruff." in build
    assert git(root, "status", "--porcelain") == "?? scratch.txt"
    assert git(root, "rev-parse", "HEAD") == pcs[-1].commit
    fsck_clean(root)


def test_a_dirty_note_stops_apply_with_a_message_naming_it(root: Path, hippo: object) -> None:
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    head = git(root, "rev-parse", "HEAD")
    (root / "notes/deploy.md").write_text("my own edit\n")
    with pytest.raises(DirtyNoteError, match="notes/deploy.md"):
        apply_run(root, load_config(root), "r1")
    assert git(root, "rev-parse", "HEAD") == head
    assert (root / "notes/deploy.md").read_text() == "my own edit\n"
    assert git(root, "diff", "--cached", "--name-only") == ""
    result = hippo(["apply", "r1"], cwd=root)  # type: ignore[operator]
    assert (
        result.exit_code == 1 and "notes/deploy.md" in result.output and "git hippo apply r1" in result.output
    )


def test_invariant_1_nothing_lands_without_a_confirming_receipt(root: Path) -> None:
    """Invariant 1: unreviewed and rejected proposals never reach the target."""
    pcs = propose(root, "r1", THREE)
    review(root, pcs[:1], ["reject"])
    head = git(root, "rev-parse", "main")
    result = apply_run(root, load_config(root), "r1")
    assert not result.moved and git(root, "rev-parse", "main") == head
    reasons = sorted(r.reason for r in result.refused)
    assert reasons == [
        "no confirming review receipt names this proposal and commit",
        "no confirming review receipt names this proposal and commit",
        "rejected by review",
    ]


def test_invariant_1_a_receipt_for_another_proposal_does_not_count(root: Path) -> None:
    """Invariant 1: a confirm written on this commit but naming another proposal is no confirmation."""
    pcs = propose(root, "r1", THREE[:2])
    forged = pcs[1].receipt("confirm", REVIEWER).model_copy(update={"commit": pcs[0].commit})
    write_receipt(root, forged, on=pcs[0].commit)
    gate = confirm(root, "main", [pcs[0].commit])
    assert gate.confirmed == [] and "no confirming review receipt" in gate.refused[0].reason


def test_invariant_1_a_receipt_that_does_not_match_the_commit_does_not_count(root: Path) -> None:
    """Invariant 1: the receipt's blobs and patch-id must be the commit's."""
    pcs = propose(root, "r1", THREE[:1])
    wrong = pcs[0].receipt("confirm", REVIEWER).model_copy(update={"after": "b" * 40})
    write_receipt(root, wrong)
    gate = confirm(root, "main", [pcs[0].commit])
    assert gate.confirmed == [] and "do not match" in gate.refused[0].reason


@pytest.mark.parametrize("field", ["patch_id", "after", "before", "path"])
def test_invariant_1_each_fact_of_the_receipt_is_compared_on_its_own(root: Path, field: str) -> None:
    """Invariant 1: forging only one fact (above all the patch-id, which binds the review to exactly
    this change) is enough to refuse the commit; the true receipt passes."""
    pcs = propose(root, "r1", THREE[:1])
    true = pcs[0].receipt("confirm", REVIEWER)
    forged_value = {"path": "notes/deploy.md"}.get(field, "c" * 40)
    assert getattr(true, field) != forged_value
    write_receipt(root, true.model_copy(update={field: forged_value}))
    head = git(root, "rev-parse", "main")
    gate = confirm(root, "main", [pcs[0].commit])
    assert gate.confirmed == [] and "do not match" in gate.refused[0].reason
    result = apply_run(root, load_config(root), "r1")
    assert not result.moved and git(root, "rev-parse", "main") == head
    write_receipt(root, true)
    assert [c.commit for c in confirm(root, "main", [pcs[0].commit]).confirmed] == [pcs[0].commit]


def test_invariant_1_before_must_equal_the_notes_current_blob(root: Path) -> None:
    """Invariant 1: the note changed on the target since the proposal → stale, nothing lands."""
    pcs = propose(root, "r1", THREE[:1])
    review(root, pcs)
    (root / "notes/build.md").write_text("# Build\n\nRewritten by a person.\n")
    git(root, "commit", "-qam", "human edit")
    head = git(root, "rev-parse", "main")
    result = apply_run(root, load_config(root), "r1")
    assert not result.moved and git(root, "rev-parse", "main") == head
    assert [s.stale for s in result.stale] == [True] and "notes/build.md changed" in result.stale[0].reason


def test_invariant_1_a_two_file_commit_never_passes_even_with_a_forged_receipt(root: Path) -> None:
    """Invariant 1: a commit changing two notes is refused, trailers and receipt notwithstanding."""
    pcs = propose(root, "r1", THREE[:1])
    message = git(root, "log", "-1", "--format=%B", pcs[0].commit)
    (root / "notes/build.md").write_text("sneaky 1\n")
    (root / "notes/deploy.md").write_text("sneaky 2\n")
    git(root, "switch", "-q", "-c", "evil")
    git(root, "commit", "-qam", message)
    evil = git(root, "rev-parse", "HEAD")
    git(root, "switch", "-q", "main")
    write_receipt(root, Receipt(**{**pcs[0].receipt("confirm", REVIEWER).model_dump(), "commit": evil}))
    gate = confirm(root, "main", [evil])
    assert gate.confirmed == [] and "exactly one note" in gate.refused[0].reason


def test_invariant_1_the_gate_value_cannot_be_forged_or_altered(root: Path) -> None:
    """Invariant 1: only the gate constructs ConfirmedChange, and it is read-only."""
    pcs = propose(root, "r1", THREE[:1])
    review(root, pcs)
    with pytest.raises(TypeError):
        ConfirmedChange(object(), pcs[0], pcs[0].receipt("confirm", REVIEWER))
    change = confirm(root, "main", [pcs[0].commit]).confirmed[0]
    with pytest.raises(AttributeError):
        change.before = "0" * 40  # type: ignore[misc]
    with pytest.raises(TypeError):
        fast_forward(root, "main", [pcs[0]])  # type: ignore[list-item]


def test_invariant_5_a_concurrent_move_of_the_target_moves_nothing(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Invariant 5: the target moves between the check and the update → StaleRefError, nothing moves."""
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    git(root, "switch", "-q", "-c", "elsewhere")
    (root / "other.txt").write_text("teammate\n")
    git(root, "add", "other.txt")
    git(root, "commit", "-qm", "teammate's commit")
    theirs = git(root, "rev-parse", "HEAD")
    real = apply_mod.advance_branch

    def racing(*args: object, **kwargs: object) -> object:
        git(root, "update-ref", "refs/heads/main", theirs)
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(apply_mod, "advance_branch", racing)
    with pytest.raises(StaleRefError):
        apply_run(root, load_config(root), "r1")
    assert git(root, "rev-parse", "main") == theirs


def test_invariant_5_a_concurrent_move_of_a_checked_out_target_leaves_the_worktree(
    root: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Invariant 5 with the target checked out: nothing moves, the working tree is as it was."""
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    head = git(root, "rev-parse", "HEAD")
    real = GitStore.cas_ref

    def racing(self: GitStore, ref: str, new: str, old: str | None, message: str) -> None:
        if ref == "refs/heads/main":  # after the worktree was updated, before the ref moves
            assert "make lint" in (root / "notes/build.md").read_text()
            git(root, "update-ref", "refs/heads/main", _teammate_commit(root, head))
        real(self, ref, new, old, message)

    monkeypatch.setattr(GitStore, "cas_ref", racing)
    with pytest.raises(StaleRefError):
        apply_run(root, load_config(root), "r1")
    assert git(root, "rev-parse", "main") != pcs[-1].commit
    for path, text in NOTES.items():
        assert (root / path).read_text() == text
    assert git(root, "diff", "--cached", "--name-only", head) == ""


def _teammate_commit(root: Path, parent: str) -> str:
    tree = git(root, "rev-parse", f"{parent}^{{tree}}")
    return git(root, "commit-tree", tree, "-p", parent, "-m", "teammate")


def test_invariant_5_proposals_branch_moved_by_someone_else_is_not_overwritten(root: Path) -> None:
    """Invariant 5: the proposals branch only moves from the tip we read."""
    store = GitStore(root)
    branch = ProposalBranch(root, "r1", base=store.ref_target("refs/heads/main"), store=store)
    branch.commit(THREE[0])
    intruder = _teammate_commit(root, branch.head)
    git(root, "update-ref", proposals_ref("r1"), intruder)
    with pytest.raises(StaleRefError):
        branch.commit(THREE[1])
    assert git(root, "rev-parse", proposals_ref("r1")) == intruder


def test_target_moved_on_confirmed_proposals_are_replayed_where_the_note_is_unchanged(root: Path) -> None:
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    (root / "notes/deploy.md").write_text("# Deploy\n\nA person rewrote this.\n")
    git(root, "commit", "-qam", "human edit of deploy")
    result = apply_run(root, load_config(root), "r1")
    assert [a.replayed_from for a in result.applied] == [pcs[0].commit, pcs[2].commit]
    assert [s.commit for s in result.stale] == [pcs[1].commit]
    assert log_subjects(root)[:3] == [
        "hippo: replace notes/build.md (core/facts)",
        "hippo: append notes/build.md (core/facts)",
        "human edit of deploy",
    ]
    for landed in result.applied:
        trailers = parse_trailers(git(root, "log", "-1", "--format=%B", landed.commit))
        assert trailers is not None and trailers.replayed_from == landed.replayed_from
        mine = receipts_for(root, commit=landed.commit)
        assert [(r.kind, r.verdict, r.reason) for r in mine] == [
            ("review", "confirm", f"replayed from {landed.replayed_from}")
        ]
    assert git(root, "status", "--porcelain") == ""
    again = apply_run(root, load_config(root), "r1")
    assert not again.moved and len(again.already) == 2 and len(again.stale) == 1
    fsck_clean(root)


def test_a_rejected_proposal_in_the_middle_is_left_out_and_the_rest_replayed(root: Path) -> None:
    pcs = propose(root, "r1", THREE)
    review(root, pcs, ["confirm", "reject", "confirm"])
    result = apply_run(root, load_config(root), "r1")
    assert [a.commit for a in result.applied][0] == pcs[0].commit
    assert result.applied[1].replayed_from == pcs[2].commit
    assert (root / "notes/deploy.md").read_text() == NOTES["notes/deploy.md"]
    assert [r.reason for r in result.refused] == ["rejected by review"]
    kinds = [(e.receipt.commit, e.receipt.verdict) for e in list_receipts(root)]
    assert (result.applied[1].commit, "confirm") in kinds


def test_the_same_run_continues_after_an_apply(root: Path) -> None:
    """A run applies after each chunk; the next chunk's proposals follow on the same branch."""
    store = GitStore(root)
    branch = ProposalBranch(root, "r1", base=store.ref_target("refs/heads/main"), store=store)
    first = branch.commit(THREE[0])
    review(root, [first])
    assert apply_run(root, load_config(root), "r1").applied[0].commit == first.commit
    second = branch.commit(prop("notes/index.md", "- more", turn=9))
    review(root, [second])
    result = apply_run(root, load_config(root), "r1")
    assert [a.commit for a in result.applied] == [second.commit] and result.already == [first.proposal_id]


def test_apply_with_no_runs_or_unknown_run_is_a_clear_error(root: Path) -> None:
    with pytest.raises(HippoError, match="no dream runs"):
        apply_run(root, load_config(root))
    with pytest.raises(HippoError, match="no proposals branch"):
        apply_run(root, load_config(root), "nope")


def test_apply_updates_a_linked_worktree_that_has_the_target_checked_out(root: Path, tmp_path: Path) -> None:
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    git(root, "switch", "-q", "-c", "elsewhere")
    linked = tmp_path / "linked"
    git(root, "worktree", "add", "-q", str(linked), "main")
    result = apply_run(root, load_config(root), "r1")
    assert result.worktree == str(linked)
    assert "- Deploys need the release tag." in (linked / "notes/deploy.md").read_text()
    assert git(linked, "status", "--porcelain") == "" and git(root, "status", "--porcelain") == ""
    assert (root / "notes/deploy.md").read_text() == NOTES["notes/deploy.md"]
