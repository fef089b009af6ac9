"""The apply gate (invariant 1) and the compare-and-swap fast-forward of the target (invariant 5).

`fast_forward` moves the target only through `ConfirmedChange` values, and only `confirm` (through
`_check`) makes them: every fact is read from git, never taken from the caller:
  (a) the commit is a well-formed proposal commit with one parent that changes exactly one note;
  (b) a confirming review receipt names this proposal id AND this commit, with the commit's path,
      before/after blobs and patch-id, and no receipt rejects this commit or reverts the proposal;
  (c) the receipt's `before` equals the note's blob where the change lands (the target tip, after
      the changes confirmed before it in the same batch).
`fast_forward` checks (c) again against the tip it actually moves, replays a change onto a newer tip
(a new commit with a `Hippo-Replayed-From` trailer and a copied receipt, itself re-checked by the
gate) when its note is unchanged there, reports the others as stale, then moves the branch by
compare-and-swap: if the target moved meanwhile, nothing moves (StaleRefError).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, NoReturn

from hippo_git.config import Config
from hippo_git.dream.proposals import (
    ProposalCommit,
    latest_run,
    proposal_commit,
    proposals_ref,
    run_commit_shas,
)
from hippo_git.dream.receipts import ReceiptBook, ReceiptEntry, write_receipts
from hippo_git.dream.records import Receipt, parse_trailers, replayed_message
from hippo_git.errors import GitError, HippoError
from hippo_git.git.objects import GitStore, now_iso
from hippo_git.git.worktree import advance_branch

UNREVIEWED = "no confirming review receipt names this proposal and commit"
_TOKEN = object()  # only this module holds it, so only `_check` constructs ConfirmedChange


class ConfirmedChange:
    """A proposal commit that passed the gate; read-only; made only by `confirm`."""

    __slots__ = ("proposal_id", "commit", "path", "before", "after", "receipt", "run")
    proposal_id: str
    commit: str
    path: str
    before: str
    after: str
    receipt: Receipt
    run: str

    def __init__(self, token: object, pc: ProposalCommit, receipt: Receipt) -> None:
        if token is not _TOKEN:
            raise TypeError("a ConfirmedChange is made only by hippo_git.dream.apply.confirm()")
        values: dict[str, object] = {"proposal_id": pc.proposal_id, "commit": pc.commit, "path": pc.path}
        values |= {"before": pc.before, "after": pc.after, "receipt": receipt, "run": pc.run}
        for name, value in values.items():
            object.__setattr__(self, name, value)

    def __setattr__(self, name: str, value: object) -> NoReturn:
        raise AttributeError("ConfirmedChange is read-only")

    def __delattr__(self, name: str) -> NoReturn:
        raise AttributeError("ConfirmedChange is read-only")

    def __repr__(self) -> str:
        return f"ConfirmedChange({self.proposal_id[:12]} {self.commit[:12]} {self.path})"


@dataclass(frozen=True)
class Refusal:
    """A proposal commit the gate would not land, and why (stale, or building on a refused change)."""

    proposal: str
    commit: str
    path: str
    reason: str
    # It cannot land as made: its note changed, or it builds on a change that did not land.
    stale: bool = False
    builds_on: str | None = None  # the proposal id of the change it builds on, when that was refused


@dataclass(frozen=True)
class Landed:
    """A proposal that reached the target, with the commit that carries it there."""

    proposal: str
    commit: str  # the commit now on the target
    path: str
    replayed_from: str | None = None


@dataclass(frozen=True)
class GateResult:
    """The gate's verdict on a list of proposal commits against the target's tip: confirmed and refused."""

    target_tip: str
    confirmed: list[ConfirmedChange]
    refused: list[Refusal]


@dataclass(frozen=True)
class ApplyResult:
    """What an apply did to the target: its old and new tip, and the proposals landed, stale or refused."""

    target: str
    old: str | None
    new: str | None
    run: str | None = None
    applied: list[Landed] = field(default_factory=list)
    already: list[str] = field(default_factory=list)  # proposal ids the target already has
    stale: list[Refusal] = field(default_factory=list)
    refused: list[Refusal] = field(default_factory=list)
    worktree: str | None = None  # the worktree updated with the target, if it is checked out

    @property
    def moved(self) -> bool:
        return self.old != self.new

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["moved"] = self.moved
        return data


def _target_tip(store: GitStore, target_branch: str) -> str:
    tip = store.ref_target(f"refs/heads/{target_branch}")
    if tip is None:
        raise HippoError(
            f"the target branch {target_branch!r} does not exist",
            hint="set target_branch in .hippo/hippo.toml",
        )
    return tip


def _check(
    store: GitStore,
    book: ReceiptBook,
    sha: str,
    landing: Callable[[str], str],
    unlanded: dict[tuple[str, str], tuple[str, bool]] | None = None,
) -> ConfirmedChange | Refusal:
    """The gate for one commit; `landing(path)` is the note's blob where the change would land.
    `unlanded` maps (path, blob) to the proposal whose refused change made that blob (and whether it
    still awaits its review); a refusal here adds to it, so a later change built on a refused one is
    told apart from a note edited since."""
    pc = proposal_commit(store, sha)
    trailers = parse_trailers(store.commit_info(sha).message)
    if pc is None or trailers is None:
        return Refusal("", sha, "", "not a proposal commit that changes exactly one note")
    outcome = _check_proposal(store, book, pc, trailers.before, landing, unlanded or {})
    if isinstance(outcome, Refusal) and unlanded is not None:
        awaiting = outcome.reason == UNREVIEWED or (outcome.builds_on is not None and not outcome.stale)
        unlanded[(pc.path, pc.after)] = (pc.proposal_id, awaiting)
    return outcome


def _check_proposal(
    store: GitStore,
    book: ReceiptBook,
    pc: ProposalCommit,
    trailer_before: str,
    landing: Callable[[str], str],
    unlanded: dict[tuple[str, str], tuple[str, bool]],
) -> ConfirmedChange | Refusal:
    sha = pc.commit
    if trailer_before != pc.before:
        return Refusal(pc.proposal_id, sha, pc.path, "its Hippo-Before trailer does not match its parent")
    about_proposal = book.for_proposal(pc.proposal_id)
    if any(r.kind == "revert" for r in about_proposal):
        return Refusal(pc.proposal_id, sha, pc.path, "a human reverted this proposal")
    reviews = [r for r in about_proposal if r.kind == "review" and r.commit == sha]
    if any(r.verdict == "reject" for r in reviews):
        return Refusal(pc.proposal_id, sha, pc.path, "rejected by review")
    confirms = [r for r in reviews if r.verdict == "confirm"]
    if not confirms:
        return Refusal(pc.proposal_id, sha, pc.path, UNREVIEWED)
    facts = (pc.path, pc.before, pc.after, pc.patch_id)
    matching = [r for r in confirms if (r.path, r.before, r.after, r.patch_id) == facts]
    if not matching:
        return Refusal(
            pc.proposal_id, sha, pc.path, "the receipt's path, blobs or patch-id do not match the commit"
        )
    if matching[0].before != landing(pc.path):
        under = unlanded.get((pc.path, matching[0].before))
        if under is not None:
            pid, awaiting = under
            if awaiting:  # not stale: it may land once the change it builds on is reviewed
                reason = f"it builds on proposal {pid[:12]}, which awaits its review"
                return Refusal(pc.proposal_id, sha, pc.path, reason, builds_on=pid)
            reason = f"it builds on proposal {pid[:12]}, which did not land"
            return Refusal(pc.proposal_id, sha, pc.path, reason, stale=True, builds_on=pid)
        return Refusal(
            pc.proposal_id, sha, pc.path, f"{pc.path} changed on the target since the proposal", stale=True
        )
    return ConfirmedChange(_TOKEN, pc, matching[0])


def _always(blob: str) -> Callable[[str], str]:
    return lambda _path: blob


def confirm(
    repo_root: Path,
    target_branch: str,
    commits: Sequence[str],
    *,
    store: GitStore | None = None,
    book: ReceiptBook | None = None,
) -> GateResult:
    """Pass proposal commits (oldest first) through the gate against the target's current tip.

    Checked in order: a confirmed change's `after` is the note's blob the next change must start from.
    """
    store = store or GitStore(repo_root)
    book = book or ReceiptBook.load(repo_root, store=store)
    tip = _target_tip(store, target_branch)
    current: dict[str, str] = {}
    confirmed: list[ConfirmedChange] = []
    refused: list[Refusal] = []
    unlanded: dict[tuple[str, str], tuple[str, bool]] = {}

    def landing(path: str) -> str:
        return current[path] if path in current else store.blob_at(tip, path)

    for sha in commits:
        outcome = _check(store, book, sha, landing, unlanded)
        if isinstance(outcome, ConfirmedChange):
            current[outcome.path] = outcome.after
            confirmed.append(outcome)
        else:
            refused.append(outcome)
    return GateResult(tip, confirmed, refused)


def fast_forward(
    repo_root: Path,
    target_branch: str,
    changes: Sequence[ConfirmedChange],
    *,
    store: GitStore | None = None,
    book: ReceiptBook | None = None,
    retry: str = "git hippo apply",
) -> ApplyResult:
    """Land confirmed changes (oldest first) on the target by compare-and-swap; see the module doc.

    Raises DirtyNoteError (naming the notes) when the target is checked out with uncommitted changes
    to a note it would change, and StaleRefError when the target moved during the apply; in both
    cases the target and the working tree are left as they were.
    """
    store = store or GitStore(repo_root)
    old = _target_tip(store, target_branch)
    base = old
    landed: list[Landed] = []
    stale: list[Refusal] = []
    already: list[str] = []
    replays: list[Receipt] = []
    for change in changes:
        if not isinstance(change, ConfirmedChange):
            raise TypeError("fast_forward takes only ConfirmedChange values from confirm()")
        now = store.blob_at(base, change.path)
        if now != change.before:
            if now == change.after and store.is_ancestor(change.commit, base):
                already.append(change.proposal_id)
            else:
                reason = f"{change.path} changed on {target_branch} since the proposal"
                stale.append(Refusal(change.proposal_id, change.commit, change.path, reason, stale=True))
            continue
        info = store.commit_info(change.commit)
        if info.parents == (base,):
            base = change.commit
            landed.append(Landed(change.proposal_id, change.commit, change.path))
            continue
        # Replayed with the original signatures, so a rerun after a failure makes the same commit.
        author, committer = store.signatures_of(change.commit)
        tree = store.tree_with(base, change.path, change.after)
        new = store.write_commit(
            tree, [base], replayed_message(info.message, change.commit), author=author, committer=committer
        )
        update = {
            "commit": new,
            "patch_id": store.patch_id(new),
            "time": now_iso(),
            "reason": f"replayed from {change.commit}",
        }
        replays.append(change.receipt.model_copy(update=update))
        base = new
        landed.append(Landed(change.proposal_id, new, change.path, replayed_from=change.commit))
    if replays:
        write_receipts(repo_root, [(receipt, None) for receipt in replays], store=store)
        book = book or ReceiptBook.load(repo_root, store=store)
        book.add([ReceiptEntry(on=receipt.commit, receipt=receipt) for receipt in replays])
        for receipt in replays:  # the replay's parent holds exactly the receipt's before-blob
            if not isinstance(_check(store, book, receipt.commit, _always(receipt.before)), ConfirmedChange):
                raise GitError(
                    f"the replayed commit {receipt.commit[:12]} did not pass the gate; nothing was applied"
                )
    result = ApplyResult(target_branch, old, base, applied=landed, already=already, stale=stale)
    if base == old:
        return result
    touched = sorted({item.path for item in landed})
    message = f"hippo apply: {len(landed)} confirmed proposal(s)"
    worktree = advance_branch(store, target_branch, base, old, touched, message=message, retry=retry)
    return replace(result, worktree=str(worktree) if worktree else None)


def applied_proposals(
    store: GitStore, target_tip: str, run_id: str, shas: list[str] | None = None
) -> set[str]:
    """Proposal ids of a run the target already has: run commits it contains, and replays of them
    (any proposal commit on the target since it forked from the run)."""
    run_tip = store.ref_target(proposals_ref(run_id))
    if run_tip is None:
        return set()
    shas = run_commit_shas(store, run_id) if shas is None else shas
    base = store.merge_base(target_tip, run_tip)
    ids: set[str] = set()
    if base is not None and base in shas:
        for sha in shas[: shas.index(base) + 1]:
            trailers = parse_trailers(store.commit_info(sha).message)
            ids.add(trailers.proposal if trailers else sha)
    for info in store.first_parents(target_tip, stop=base):
        trailers = parse_trailers(info.message)
        if trailers is not None:
            ids.add(trailers.proposal)
    return ids


def apply_run(
    repo_root: Path, cfg: Config, run_id: str | None = None, *, store: GitStore | None = None
) -> ApplyResult:
    """`git hippo apply [RUN]`: gate a run's proposals (default: the latest run) and fast-forward
    cfg.target_branch. Idempotent: proposals the target already has are listed under `already`.
    Runs whatever `dream.apply` says: asking for it is the person's decision."""
    store = store or GitStore(repo_root)
    run_id = run_id or latest_run(store)
    if run_id is None:
        raise HippoError("there are no dream runs to apply", hint="run `git hippo dream` first")
    run_tip = store.ref_target(proposals_ref(run_id))
    if run_tip is None:
        raise HippoError(
            f"no proposals branch for run {run_id!r}", hint="`git hippo proposals` lists the runs"
        )
    target_tip = _target_tip(store, cfg.target_branch)
    shas = run_commit_shas(store, run_id)
    done = applied_proposals(store, target_tip, run_id, shas)
    pending: list[str] = []
    already: list[str] = []
    for sha in shas:
        trailers = parse_trailers(store.commit_info(sha).message)
        proposal = trailers.proposal if trailers else sha
        (already if proposal in done else pending).append(proposal if proposal in done else sha)
    book = ReceiptBook.load(repo_root, store=store)
    gate = confirm(repo_root, cfg.target_branch, pending, store=store, book=book)
    result = fast_forward(
        repo_root,
        cfg.target_branch,
        gate.confirmed,
        store=store,
        book=book,
        retry=f"git hippo apply {run_id}",
    )
    return replace(
        result,
        run=run_id,
        already=already + result.already,
        stale=[r for r in gate.refused if r.stale] + result.stale,
        refused=[r for r in gate.refused if not r.stale],
    )
