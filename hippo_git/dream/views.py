"""What `git hippo proposals` and `git hippo receipts` show: data only, rendered by the CLI."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unidiff.patch import PatchSet

from hippo_git.config import Config, load_config
from hippo_git.dream.apply import applied_proposals
from hippo_git.dream.proposals import (
    ProposalCommit,
    latest_run,
    list_runs,
    proposal_commit,
    proposals_ref,
    run_commits,
    run_proposal_ids,
    run_tip,
)
from hippo_git.dream.receipt_index import ReceiptIndex, ReceiptRow
from hippo_git.dream.receipts import ReceiptBook, list_receipts
from hippo_git.dream.records import Receipt, parse_trailers
from hippo_git.dream.settle import refusals, settle_hint
from hippo_git.errors import HippoError
from hippo_git.git.objects import GitStore


@dataclass(frozen=True)
class ProposalView:
    """A proposal commit as `proposals` shows it: its change, evidence, status, diff and receipts."""

    run: str
    commit: str
    proposal: str
    path: str
    subject: str
    pass_name: str
    status: str  # applied | reverted | confirmed | rejected | unreviewed
    evidence: tuple[str, ...]
    rationale: str
    added: int
    removed: int
    diff: str
    receipts: tuple[Receipt, ...]

    def as_dict(self) -> dict[str, Any]:
        return {
            "run": self.run,
            "commit": self.commit,
            "proposal": self.proposal,
            "path": self.path,
            "subject": self.subject,
            "pass": self.pass_name,
            "status": self.status,
            "evidence": list(self.evidence),
            "rationale": self.rationale,
            "added": self.added,
            "removed": self.removed,
            "diff": self.diff,
            "receipts": [r.model_dump(mode="json") for r in self.receipts],
        }


def _status(pc: ProposalCommit, receipts: list[Receipt], applied: set[str]) -> str:
    if any(r.kind == "revert" for r in receipts):
        return "reverted"
    if pc.proposal_id in applied:
        return "applied"
    verdicts = {r.verdict for r in receipts if r.kind == "review" and r.commit == pc.commit}
    if "reject" in verdicts:
        return "rejected"
    return "confirmed" if "confirm" in verdicts else "unreviewed"


def _row_status(sha: str, proposal: str, rows: list[ReceiptRow], applied: set[str]) -> str:
    """`_status` from the receipts cache's facts, for views over many runs."""
    mine = [r for r in rows if r.proposal == proposal]
    if any(r.kind == "revert" for r in mine):
        return "reverted"
    if proposal in applied:
        return "applied"
    verdicts = {r.verdict for r in mine if r.kind == "review" and r.commit == sha}
    if "reject" in verdicts:
        return "rejected"
    return "confirmed" if "confirm" in verdicts else "unreviewed"


def _rationale(message: str) -> str:
    return "\n".join(line[2:] for line in message.splitlines() if line.startswith("> "))


def _view(store: GitStore, pc: ProposalCommit, book: ReceiptBook, applied: set[str]) -> ProposalView:
    info = store.commit_info(pc.commit)
    trailers = parse_trailers(info.message)
    patch = PatchSet(store.diff_text(pc.commit))
    receipts = book.for_proposal(pc.proposal_id)
    return ProposalView(
        run=pc.run,
        commit=pc.commit,
        proposal=pc.proposal_id,
        path=pc.path,
        subject=pc.subject,
        pass_name=pc.pass_name,
        status=_status(pc, receipts, applied),
        evidence=trailers.evidence if trailers else (),
        rationale=_rationale(info.message),
        added=sum(f.added for f in patch),
        removed=sum(f.removed for f in patch),
        diff=str(patch),
        receipts=tuple(receipts),
    )


SEARCH_LIMIT = 50_000  # commits of target history searched for an id nothing else knows (as revert)
_HEX = re.compile(r"^[0-9a-f]{7,64}$")


def _found_by_id(store: GitStore, index: ReceiptIndex, key: str, target_tip: str | None) -> list[str]:
    """Commits of proposals a proposal/commit id prefix names, looked up the same way in every
    clone: the commit itself, the receipts (synced to every clone), the run branches here, and
    last the target's history (where `revert` looks)."""
    if len(key) < 7:
        raise HippoError(f"{key!r} is neither a run nor an id of at least 7 characters")
    if not _HEX.match(key):
        return []
    shas: dict[str, None] = {}
    named = store.resolve(key) if len(key) <= 40 else None
    if named is not None and named.startswith(key):
        shas[named] = None
    for proposal, commit in index.matching(key):
        if store.resolve(commit) == commit:
            shas[commit] = None
        elif proposal.startswith(key):
            shas.update(dict.fromkeys(_commits_of(store, proposal, target_tip)))
    if not shas:
        for run, tip in list_runs(store):
            for sha, proposal in run_proposal_ids(store, run, tip):
                if proposal.startswith(key) or sha.startswith(key):
                    shas[sha] = None
    if not shas and target_tip is not None:
        shas.update(dict.fromkeys(_commits_of(store, key, target_tip)))
    return list(shas)


def _commits_of(store: GitStore, proposal_prefix: str, target_tip: str | None) -> list[str]:
    """Commits on the target's history whose proposal id starts with `proposal_prefix` (a change
    landed by "rebase and merge" is a different commit than the one its receipt names)."""
    if target_tip is None:
        return []
    found = []
    for info in store.ancestors(target_tip, SEARCH_LIMIT):
        if "Hippo-Proposal: " + proposal_prefix in info.message:
            trailers = parse_trailers(info.message)
            if trailers is not None and trailers.proposal.startswith(proposal_prefix):
                found.append(info.sha)
    return found


def proposals_view(
    repo_root: Path, selector: str | None = None, *, target_branch: str | None = None
) -> list[ProposalView]:
    """The proposals of a run (default: the latest), or the one proposal a proposal/commit id
    (or a prefix of at least 7 characters) names, with diff, status and receipts. Costs what the
    run (or the id) holds: receipts come from the receipts cache, not from reading all of them."""
    store = GitStore(repo_root)
    target = target_branch or load_config(repo_root).target_branch
    target_tip = store.ref_target(f"refs/heads/{target}")
    index = ReceiptIndex(store)
    run = latest_run(store) if selector is None else selector if run_tip(store, selector) else None
    if run is not None:
        commits = run_commits(store, run, run_tip(store, run))
    else:
        assert selector is not None
        found = (
            proposal_commit(store, sha) for sha in _found_by_id(store, index, selector.lower(), target_tip)
        )
        commits = [pc for pc in found if pc is not None]
    if selector is not None and not commits:
        raise HippoError(
            f"no run or proposal matches {selector!r}", hint="`git hippo proposals` lists the latest run"
        )
    applied: set[str] = set()
    if commits and target_tip is not None:
        # A local run: what the target gained since the run forked (grows with the run, not with
        # history). An id or a teammate's run: the cached walk of the whole target.
        local = run is not None and store.ref_target(proposals_ref(run)) is not None
        applied = applied_proposals(store, target_tip, run) if local and run else index.applied_ids(target)
    book = index.book(proposals=[pc.proposal_id for pc in commits])
    return [_view(store, pc, book, applied) for pc in commits]


def runs_view(repo_root: Path) -> list[dict[str, Any]]:
    """Every run with its branch tip and number of proposals, oldest first."""
    store = GitStore(repo_root)
    return [
        {"run": run, "tip": tip, "proposals": len(run_proposal_ids(store, run, tip))}
        for run, tip in list_runs(store)
    ]


def receipts_view(repo_root: Path, *, proposal: str | None = None) -> list[dict[str, Any]]:
    """Every receipt (optionally of proposals whose id starts with `proposal`), with the commit
    whose note holds it as `on`."""
    if proposal:
        store = GitStore(repo_root)
        index = ReceiptIndex(store)
        key = proposal.lower()
        ids = sorted({p for p, _ in index.matching(key) if p.startswith(key)})
        entries = [e for e in index.book(proposals=ids).entries]
        entries.sort(key=lambda e: (e.receipt.time, e.receipt.commit, e.on, e.receipt.kind))
    else:
        entries = list_receipts(repo_root)
    return [{"on": entry.on, **entry.receipt.model_dump(mode="json")} for entry in entries]


@dataclass(frozen=True)
class BranchProblem:
    """Something wrong with the proposals branches, with what was seen and how to fix it."""

    saw: str
    fix: str


def proposal_branch_health(repo_root: Path, cfg: Config) -> list[BranchProblem]:
    """Proposals branches with proposals that have no receipt here, or confirmed ones never applied."""
    # One walk of the target (cached, then only what it gained) and the receipts cache, instead of
    # a merge base, a walk and every receipt per run: doctor looks at hundreds of runs.
    store = GitStore(repo_root)
    index = ReceiptIndex(store)
    applied = index.applied_ids(cfg.target_branch)
    runs = [(run, index.run_proposal_ids(run, tip)) for run, tip in list_runs(store)]
    rows: dict[str, list[ReceiptRow]] = {}
    for row in index.rows(pid for _, commits in runs for _, pid in commits):
        rows.setdefault(row.proposal, []).append(row)
    statuses_of = {
        run: [_row_status(sha, pid, rows.get(pid, []), applied) for sha, pid in commits]
        for run, commits in runs
    }
    # The stale scan below reads the path and patch-id of every unapplied commit of a run with
    # confirmed proposals waiting: one batch for all runs instead of a diff per commit.
    store.prefetch_diffs(
        sha for run, commits in runs if "confirmed" in statuses_of[run] for sha, pid in commits
        if pid not in applied
    )  # fmt: skip
    problems: list[BranchProblem] = []
    for run, statuses in statuses_of.items():
        unreviewed = statuses.count("unreviewed")
        if unreviewed:
            problems.append(
                BranchProblem(
                    f"hippo/proposals/{run}: {unreviewed} proposal(s) have no receipt here",
                    "git hippo sync  (a teammate may hold them), or git hippo dream to resume the run",
                )
            )
        waiting = statuses.count("confirmed")
        refused = (
            [
                r
                for _, r in refusals(
                    cfg, store, run, applied=applied, book_for=lambda ids: index.book(proposals=ids)
                )
            ]
            if waiting
            else []
        )
        stale = sum(1 for r in refused if r.stale)
        # Built on a change that awaits its review: the unreviewed problem above says what to do.
        held = sum(1 for r in refused if r.builds_on and not r.stale)
        if stale:  # `apply` can only report these: settling them is what clears the run
            problems.append(
                BranchProblem(
                    f"hippo/proposals/{run}: {stale} confirmed proposal(s) went stale "
                    f"(their note changed on {cfg.target_branch} since, or they build on a change "
                    "that did not land)",
                    settle_hint(run),
                )
            )
        if waiting > stale + held and cfg.dream.apply == "fast-forward":
            problems.append(
                BranchProblem(
                    f"hippo/proposals/{run}: {waiting - stale - held} confirmed proposal(s) never applied",
                    f"git hippo apply {run}",
                )
            )
    return problems
