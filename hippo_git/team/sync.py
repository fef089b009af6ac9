"""`git hippo sync`: share receipts (and named proposals branches) through a remote, never by force.

Receipts are fetched into `refs/notes/hippo-remote/<remote>/receipts`, merged into the local
notes with `cat_sort_uniq` (every line of both sides survives, so a teammate's receipts are
never dropped), then pushed without force.

When a team syncs at once, pushes race. A push that loses is retried after a randomised wait
that grows with each attempt ("full jitter", so the losers spread out instead of colliding
again), with a fetch and merge before each attempt, within `SYNC_SECONDS`; the step of the waits is what the losing attempt took, at least
`FIRST_WAIT`. A losing attempt is
kept cheap: the remote's tip is read first (one round trip), the fetch is skipped when nothing
new is there, and the push is only tried once our notes contain the remote's, so it uploads just
our new notes commits. Sync also sets up the git config receipts need (the fetch refspec of a
remote added after `init`, the merge strategy).
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.dream.records import PROPOSALS_PREFIX, RECEIPTS_REF
from hippo_git.errors import GitError, HippoError, UsageError
from hippo_git.git import remote as gitremote
from hippo_git.git.commits import rev_parse
from hippo_git.git.objects import GitStore
from hippo_git.git.repo import discover, remotes
from hippo_git.team.setup import configure_receipts

SYNC_SECONDS = 120.0  # give up retrying after this long (nothing is lost; the next sync goes on)
MAX_ATTEMPTS = 40
FIRST_WAIT = 0.05  # seconds: the least step; attempt n waits up to step * 2**(n-1), at most MAX_WAIT
MAX_WAIT = 8.0


@dataclass
class ProposalsSync:
    """How one run's proposals branch was synced: fetched, created locally, pushed, or the problem."""

    run: str
    fetched: bool = False
    created_local: bool = False
    pushed: bool = False
    problem: str = ""


@dataclass
class SyncResult:
    """What `sync` did with a remote: receipts fetched, merged and pushed, attempts, proposals branches."""

    remote: str
    fetched: bool = False
    merged: bool = False
    pushed: bool = False
    in_sync: bool = False  # the remote holds exactly our receipts (nothing needed pushing)
    attempts: int = 0
    waited: float = 0.0  # seconds spent waiting between attempts
    configured: list[str] = field(default_factory=list)  # git config sync had to set up
    proposals: list[ProposalsSync] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "remote": self.remote,
            "fetched": self.fetched,
            "merged": self.merged,
            "pushed": self.pushed,
            "in_sync": self.in_sync,
            "attempts": self.attempts,
            "waited": round(self.waited, 3),
            "configured": self.configured,
            "proposals": [vars(p) for p in self.proposals],
        }


def tracking_ref(remote: str) -> str:
    return f"refs/notes/hippo-remote/{remote}/receipts"


def _pick_remote(root: Path, remote: str | None) -> str:
    names = remotes(root)
    if not names:
        raise UsageError(
            "this repository has no remote to sync with",
            hint="add the team's repository with `git remote add origin URL`, then run `git hippo sync`",
        )
    if remote is None:
        if "origin" in names:
            return "origin"
        if len(names) == 1:
            return names[0]
        raise UsageError(
            f"several remotes ({', '.join(names)}) and none is named origin; which one?",
            hint=f"run `git hippo sync {names[0]}`",
        )
    if remote not in names:
        raise UsageError(f"no remote named {remote!r}", hint="known remotes: " + ", ".join(names))
    return remote


def _fetch_and_merge(root: Path, store: GitStore, remote: str, result: SyncResult) -> str | None:
    """Bring the remote's receipts into ours; returns the remote's tip as it was read."""
    tracking = tracking_ref(remote)
    theirs = gitremote.remote_tip(root, remote, RECEIPTS_REF)
    if theirs is None:
        return None
    result.fetched = True
    if store.ref_target(tracking) != theirs:
        gitremote.fetch_ref(root, remote, RECEIPTS_REF, tracking, known=True)
    ours = store.ref_target(RECEIPTS_REF)
    if ours is None:
        gitremote.create_ref(root, RECEIPTS_REF, theirs)
        result.merged = True
    elif ours != theirs and not store.is_ancestor(theirs, ours):
        gitremote.merge_notes(root, "hippo/receipts", tracking)  # fast-forwards when it can
        result.merged = True
    return theirs


def sync_receipts(
    root: Path,
    remote: str,
    *,
    seconds: float = SYNC_SECONDS,
    sleep: Callable[[float], None] = time.sleep,
    rng: random.Random | None = None,
) -> SyncResult:
    result = SyncResult(remote=remote)
    rng = rng or random.Random()
    store = GitStore(root)
    started = time.monotonic()
    for attempt in range(1, MAX_ATTEMPTS + 1):
        result.attempts = attempt
        began = time.monotonic()
        theirs = _fetch_and_merge(root, store, remote, result)
        ours = store.ref_target(RECEIPTS_REF)
        if ours is None:
            return result  # nothing of ours to share yet
        if ours == theirs:
            result.in_sync = True
            return result
        outcome = gitremote.push_ref(root, remote, RECEIPTS_REF, RECEIPTS_REF)
        if outcome.ok:
            result.pushed = not outcome.up_to_date
            result.in_sync = True
            return result
        if not outcome.rejected:
            raise GitError(f"push of receipts to {remote} failed: {outcome.message}")
        # The wait grows with each loss and with what an attempt costs here (a slow remote or a
        # busy machine keeps the race window open longer); random, so the losers spread out.
        step = max(FIRST_WAIT, time.monotonic() - began)
        wait = rng.uniform(0, min(MAX_WAIT, step * 2 ** (attempt - 1)))
        if time.monotonic() - started + wait > seconds:
            break
        sleep(wait)
        result.waited += wait
    raise HippoError(
        f"the receipts on {remote} kept moving: push lost {result.attempts} races"
        f" in {time.monotonic() - started:.0f} s",
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
    configured = configure_receipts(root)
    result = sync_receipts(root, name)
    result.configured = configured
    for run in proposals:
        result.proposals.append(sync_proposals(root, name, run))
    return result
