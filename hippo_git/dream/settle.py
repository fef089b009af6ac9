"""`git hippo settle RUN`: confirmed proposals that went stale (their note changed on the target
since they were made, or they build on a change of the same run that did not land, say one a
reviewer rejected; either way `apply` can only report them) are settled, each with a receipt.

- re-propose (the default): the same change is committed again onto the note as it is now, on a new
  proposals branch `hippo/proposals/<run>-settled-<n>`, reviewed by the model like any proposal,
  and applied when `dream.apply` is "fast-forward"; the stale commit gets a rejecting receipt that
  names its successor. A change that no longer fits the note (the text it replaced is gone) is
  discarded instead, saying why.
- discard: the stale commit gets a rejecting receipt ("discarded") and nothing else changes.

Either way the run has no confirmed-but-unapplied proposal left, so `doctor` turns green.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any

from hippo_git.config import Config
from hippo_git.dream.apply import Refusal, applied_proposals, apply_run, confirm
from hippo_git.dream.packs import Pass, find_pack
from hippo_git.dream.proposals import ProposalBranch, ProposalCommit, list_runs, run_commits
from hippo_git.dream.receipts import ReceiptBook, write_receipt
from hippo_git.dream.records import Reviewer
from hippo_git.dream.review import committed_proposal, note_before, review, reviewer_record
from hippo_git.dream.runner import Model, default_model_command, make_model
from hippo_git.errors import HippoError
from hippo_git.git.objects import GitStore

SETTLER = Reviewer(persona="human", persona_sha256="", argv=("git", "hippo", "settle"))


@dataclass
class Settled:
    """What settling did with one stale proposal: re-proposed (with its review) or discarded."""

    proposal: str
    stale_commit: str
    path: str
    outcome: str  # "re-proposed" | "discarded"
    reason: str
    commit: str | None = None  # the re-proposed commit
    verdict: str | None = None  # its review
    applied: bool = False


@dataclass
class SettleResult:
    """What `settle RUN` did with the run's stale proposals, and the new run it made, if any."""

    run: str
    how: str
    new_run: str | None = None
    items: list[Settled] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def stale_commits(
    cfg: Config,
    store: GitStore,
    run_id: str,
    *,
    applied: set[str] | None = None,
    book_for: Callable[[list[str]], ReceiptBook] | None = None,
) -> list[tuple[ProposalCommit, Refusal]]:
    """The run's confirmed, unapplied proposals that cannot land as made, with why."""
    return [(pc, r) for pc, r in refusals(cfg, store, run_id, applied=applied, book_for=book_for) if r.stale]


def refusals(
    cfg: Config,
    store: GitStore,
    run_id: str,
    *,
    applied: set[str] | None = None,
    book_for: Callable[[list[str]], ReceiptBook] | None = None,
) -> list[tuple[ProposalCommit, Refusal]]:
    """What the gate refuses of the run's unapplied proposals, and why. `applied` (proposal ids the
    target holds) and `book_for(ids)` (their receipts) spare a caller that looks at many runs
    (doctor) a walk of the target and a read of every receipt per run."""
    tip = store.ref_target(f"refs/heads/{cfg.target_branch}")
    if tip is None:
        return []
    done = applied if applied is not None else applied_proposals(store, tip, run_id)
    pending = [pc for pc in run_commits(store, run_id) if pc.proposal_id not in done]
    book = book_for([pc.proposal_id for pc in pending]) if book_for is not None else None
    gate = confirm(cfg.root, cfg.target_branch, [pc.commit for pc in pending], store=store, book=book)
    refused = {r.commit: r for r in gate.refused}
    return [(pc, refused[pc.commit]) for pc in pending if pc.commit in refused]


def _settled_run(store: GitStore, run_id: str) -> str:
    taken = {name for name, _ in list_runs(store)}
    n = 1
    while f"{run_id}-settled-{n}" in taken:
        n += 1
    return f"{run_id}-settled-{n}"


def _pass_of(cfg: Config, name: str) -> Pass:
    pack, _, pass_name = name.partition("/")
    return find_pack(cfg.hippo_dir, pack).get_pass(pass_name)


def settle(
    cfg: Config,
    run_id: str,
    *,
    discard: bool = False,
    env: Mapping[str, str],
    model: Model | None = None,
) -> SettleResult:
    """Settle the stale proposals of `run_id` (see the module docstring)."""
    store = GitStore(cfg.root)
    if run_id not in {name for name, _ in list_runs(store)}:
        raise HippoError(
            f"no proposals branch for run {run_id!r}", hint="`git hippo proposals --runs` lists them"
        )
    result = SettleResult(run=run_id, how="discard" if discard else "re-propose")
    stale = stale_commits(cfg, store, run_id)
    if not stale:
        return result
    if discard:
        for pc, why in stale:
            reason = f"stale ({_why(why)}); discarded"
            write_receipt(cfg.root, pc.receipt("reject", SETTLER, reason=reason), store=store)
            result.items.append(Settled(pc.proposal_id, pc.commit, pc.path, "discarded", reason))
        return result
    from hippo_git.index import db

    try:
        conn: sqlite3.Connection | None = db.connect(cfg.index_path, readonly=True)
    except db.IndexMissingError:
        conn = None
    try:
        _repropose(cfg, store, stale, result, conn, env, model)
    finally:
        if conn is not None:
            conn.close()
    return result


def _repropose(
    cfg: Config,
    store: GitStore,
    stale: list[tuple[ProposalCommit, Refusal]],
    result: SettleResult,
    conn: sqlite3.Connection | None,
    env: Mapping[str, str],
    model: Model | None,
) -> None:
    new_run = _settled_run(store, result.run)
    if model is None:
        argv = default_model_command(cfg.model_command, env.get("PATH"))
        model = make_model(argv, cfg.home, new_run, env, cfg.dream.model_timeout_s)
    branch = ProposalBranch(
        cfg.root, new_run, base=store.ref_target(f"refs/heads/{cfg.target_branch}"), store=store
    )
    reviewed = []
    for pc, _ in stale:
        found = committed_proposal(store, pc, conn)
        try:
            if found is None:
                raise HippoError("its commit no longer reads as a proposal")
            proposal, turns = found
            new_pc = branch.commit(proposal)
        except HippoError as exc:
            reason = f"stale, and it no longer fits the note ({exc.message}); discarded"
            write_receipt(cfg.root, pc.receipt("reject", SETTLER, reason=reason), store=store)
            result.items.append(Settled(pc.proposal_id, pc.commit, pc.path, "discarded", reason))
            continue
        p = _pass_of(cfg, pc.pass_name)
        verdict, why = review(p, proposal, note_before(store, new_pc), turns, lambda text: model(text).stdout)
        write_receipt(
            cfg.root, new_pc.receipt(verdict, reviewer_record(p, model.argv), reason=why), store=store
        )
        reason = f"stale: re-proposed in run {new_run} as {new_pc.commit[:12]}"
        write_receipt(cfg.root, pc.receipt("reject", SETTLER, reason=reason), store=store)
        item = Settled(pc.proposal_id, pc.commit, pc.path, "re-proposed", reason, new_pc.commit, verdict)
        result.items.append(item)
        reviewed.append(item)
    if not reviewed:
        return
    result.new_run = new_run
    if cfg.dream.apply == "fast-forward" and any(i.verdict == "confirm" for i in reviewed):
        applied = apply_run(cfg.root, cfg, new_run, store=store)
        landed = {a.replayed_from or a.commit for a in applied.applied}
        for item in reviewed:
            item.applied = item.commit in landed


def _why(refusal: Refusal) -> str:
    return refusal.reason if refusal.builds_on else "its note changed on the target since"


def settle_hint(run_id: str) -> str:
    return f"git hippo settle {run_id}  (re-proposes them onto the note as it is; --discard drops them)"
