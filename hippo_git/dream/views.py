"""What `git hippo proposals` and `git hippo receipts` show: data only, rendered by the CLI."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from unidiff.patch import PatchSet

from hippo_git.config import Config, load_config
from hippo_git.dream.apply import applied_proposals
from hippo_git.dream.proposals import ProposalCommit, latest_run, list_runs, run_commits
from hippo_git.dream.receipts import ReceiptBook, list_receipts
from hippo_git.dream.records import Receipt, parse_trailers
from hippo_git.dream.settle import settle_hint, stale_commits
from hippo_git.errors import HippoError
from hippo_git.git.objects import GitStore


@dataclass(frozen=True)
class ProposalView:
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


def proposals_view(
    repo_root: Path, selector: str | None = None, *, target_branch: str | None = None
) -> list[ProposalView]:
    """The proposals of a run (default: the latest), or the one proposal a proposal/commit id
    (or a prefix of at least 7 characters) names, with diff, status and receipts."""
    store = GitStore(repo_root)
    target = target_branch or load_config(repo_root).target_branch
    target_tip = store.ref_target(f"refs/heads/{target}")
    runs = [run for run, _ in list_runs(store)]
    if selector is None:
        latest = latest_run(store)
        chosen = [latest] if latest else []
    elif selector in runs:
        chosen = [selector]
    else:
        chosen = runs
    book = ReceiptBook.load(repo_root, store=store)
    views: list[ProposalView] = []
    for run in chosen:
        commits = run_commits(store, run)
        if selector is not None and selector not in runs:
            key = selector.lower()
            if len(key) < 7:
                raise HippoError(f"{selector!r} is neither a run nor an id of at least 7 characters")
            commits = [pc for pc in commits if pc.proposal_id.startswith(key) or pc.commit.startswith(key)]
        if not commits:
            continue
        applied = applied_proposals(store, target_tip, run) if target_tip else set()
        views.extend(_view(store, pc, book, applied) for pc in commits)
    if selector is not None and not views:
        raise HippoError(
            f"no run or proposal matches {selector!r}", hint="`git hippo proposals` lists the latest run"
        )
    return views


def runs_view(repo_root: Path) -> list[dict[str, Any]]:
    """Every run with its branch tip and number of proposals, oldest first."""
    store = GitStore(repo_root)
    return [
        {"run": run, "tip": tip, "proposals": len(run_commits(store, run))} for run, tip in list_runs(store)
    ]


def receipts_view(repo_root: Path, *, proposal: str | None = None) -> list[dict[str, Any]]:
    """Every receipt (optionally of proposals whose id starts with `proposal`), with the commit
    whose note holds it as `on`."""
    rows = []
    for entry in list_receipts(repo_root):
        if proposal and not entry.receipt.proposal.startswith(proposal.lower()):
            continue
        rows.append({"on": entry.on, **entry.receipt.model_dump(mode="json")})
    return rows


@dataclass(frozen=True)
class BranchProblem:
    saw: str
    fix: str


def proposal_branch_health(repo_root: Path, cfg: Config) -> list[BranchProblem]:
    """Proposals branches with proposals that have no receipt here, or confirmed ones never applied."""
    store = GitStore(repo_root)
    target_tip = store.ref_target(f"refs/heads/{cfg.target_branch}")
    book = ReceiptBook.load(repo_root, store=store)
    problems: list[BranchProblem] = []
    for run, _ in list_runs(store):
        commits = run_commits(store, run)
        applied = applied_proposals(store, target_tip, run) if target_tip else set()
        statuses = [_status(pc, book.for_proposal(pc.proposal_id), applied) for pc in commits]
        unreviewed = statuses.count("unreviewed")
        if unreviewed:
            problems.append(
                BranchProblem(
                    f"hippo/proposals/{run}: {unreviewed} proposal(s) have no receipt here",
                    "git hippo sync  (a teammate may hold them), or git hippo dream to resume the run",
                )
            )
        waiting = statuses.count("confirmed")
        stale = len(stale_commits(cfg, store, run)) if waiting else 0
        if stale:  # `apply` can only report these: settling them is what clears the run
            problems.append(
                BranchProblem(
                    f"hippo/proposals/{run}: {stale} confirmed proposal(s) went stale "
                    f"(their note changed on {cfg.target_branch} since)",
                    settle_hint(run),
                )
            )
        if waiting > stale and cfg.dream.apply == "fast-forward":
            problems.append(
                BranchProblem(
                    f"hippo/proposals/{run}: {waiting - stale} confirmed proposal(s) never applied",
                    f"git hippo apply {run}",
                )
            )
    return problems
