"""`git hippo sync`: share receipts (and named proposals branches) through a remote, never by force.

Receipts are fetched into `refs/notes/hippo-remote/<remote>/receipts`, merged into the local
notes with `cat_sort_uniq` (every line of both sides survives, so a teammate's receipts are
never dropped), then pushed without force; a push rejected because the remote moved is
retried after another fetch and merge, at most `RETRIES` times.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.dream.records import PROPOSALS_PREFIX, RECEIPTS_REF
from hippo_git.errors import GitError, HippoError, UsageError
from hippo_git.git import remote as gitremote
from hippo_git.git.commits import rev_parse
from hippo_git.git.repo import discover, remotes

RETRIES = 3


@dataclass
class ProposalsSync:
    run: str
    fetched: bool = False
    created_local: bool = False
    pushed: bool = False
    problem: str = ""


@dataclass
class SyncResult:
    remote: str
    fetched: bool = False
    merged: bool = False
    pushed: bool = False
    attempts: int = 0
    proposals: list[ProposalsSync] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "remote": self.remote,
            "fetched": self.fetched,
            "merged": self.merged,
            "pushed": self.pushed,
            "attempts": self.attempts,
            "proposals": [vars(p) for p in self.proposals],
        }


def tracking_ref(remote: str) -> str:
    return f"refs/notes/hippo-remote/{remote}/receipts"


def _pick_remote(root: Path, remote: str | None) -> str:
    names = remotes(root)
    if remote is None:
        if "origin" in names:
            return "origin"
        if len(names) == 1:
            return names[0]
        raise UsageError(
            "no remote named; this repository has " + (", ".join(names) if names else "no remotes"),
            hint="run `git hippo sync REMOTE`" if names else "add one with `git remote add origin URL`",
        )
    if remote not in names:
        raise UsageError(f"no remote named {remote!r}", hint="known remotes: " + (", ".join(names) or "none"))
    return remote


def _fetch_and_merge(root: Path, remote: str, result: SyncResult) -> None:
    tracking = tracking_ref(remote)
    if not gitremote.fetch_ref(root, remote, RECEIPTS_REF, tracking):
        return
    result.fetched = True
    theirs = rev_parse(root, tracking)
    ours = rev_parse(root, RECEIPTS_REF)
    if theirs is None or theirs == ours:
        return
    if ours is None:
        gitremote.create_ref(root, RECEIPTS_REF, theirs)
    else:
        gitremote.merge_notes(root, "hippo/receipts", tracking)
    result.merged = True


def sync_receipts(root: Path, remote: str) -> SyncResult:
    result = SyncResult(remote=remote)
    for attempt in range(1, RETRIES + 2):
        result.attempts = attempt
        _fetch_and_merge(root, remote, result)
        if rev_parse(root, RECEIPTS_REF) is None:
            return result  # nothing of ours to share yet
        outcome = gitremote.push_ref(root, remote, RECEIPTS_REF, RECEIPTS_REF)
        if outcome.ok:
            result.pushed = True
            return result
        if not outcome.rejected:
            raise GitError(f"push of receipts to {remote} failed: {outcome.message}")
    raise HippoError(
        f"the receipts on {remote} kept moving: push rejected {RETRIES + 1} times",
        hint="nothing was lost; run `git hippo sync` again",
    )


def sync_proposals(root: Path, remote: str, run: str) -> ProposalsSync:
    state = ProposalsSync(run=run)
    local = f"{PROPOSALS_PREFIX}{run}"
    tracking = f"refs/remotes/{remote}/hippo/proposals/{run}"
    state.fetched = gitremote.fetch_ref(root, remote, local, tracking)
    ours = rev_parse(root, local)
    if ours is None:
        theirs = rev_parse(root, tracking) if state.fetched else None
        if theirs is None:
            state.problem = f"no proposals branch {run!r} here or on {remote}"
            return state
        gitremote.create_ref(root, local, theirs)
        state.created_local = True
        return state
    outcome = gitremote.push_ref(root, remote, local, local)
    state.pushed = outcome.ok
    if not outcome.ok:
        state.problem = (
            f"{remote} has a different hippo/proposals/{run}; not forced"
            if outcome.rejected
            else outcome.message
        )
    return state


def sync(start: Path, remote: str | None = None, proposals: tuple[str, ...] = ()) -> SyncResult:
    root = discover(start).workdir
    name = _pick_remote(root, remote)
    result = sync_receipts(root, name)
    for run in proposals:
        result.proposals.append(sync_proposals(root, name, run))
    return result
