"""Proposal commits: one run's chain on refs/heads/hippo/proposals/<run-id> (DESIGN §3).

Each commit changes exactly one note, is built with pygit2 on top of the previous proposal of
the run (or the target tip) without touching the working tree, and carries the trailers of
`records.commit_message`. The branch moves by compare-and-swap. Committing the same proposal
again (a rerun after a failure) returns the existing commit instead of making a second one.

Use `ProposalBranch` for a batch (it opens the repository once and remembers what the branch
holds); `commit_proposal` is the one-shot form.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from hippo_git.dream.records import (
    PROPOSALS_PREFIX,
    Proposal,
    Receipt,
    Reviewer,
    commit_message,
    parse_trailers,
)
from hippo_git.errors import HippoError, StaleRefError, UsageError
from hippo_git.git.objects import GitStore, now_iso

_RUN_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,99}$")


@dataclass(frozen=True)
class ProposalCommit:
    """A proposal as a commit: what a receipt needs to name it."""

    commit: str
    parent: str
    proposal_id: str
    path: str  # the one note it changes, relative to the repository root
    before: str  # blob of the note in the parent (NULL_BLOB when new)
    after: str  # blob of the note in the commit
    patch_id: str  # `git patch-id --stable` of the commit
    run: str
    pass_name: str
    subject: str
    created: bool = True  # False when the commit already existed (a rerun)

    def receipt(
        self,
        verdict: Literal["confirm", "reject"],
        reviewer: Reviewer,
        *,
        reason: str = "",
        kind: Literal["review", "revert"] = "review",
    ) -> Receipt:
        """The receipt of a review of this commit (write it with `receipts.write_receipt`)."""
        return Receipt(
            kind=kind,
            proposal=self.proposal_id,
            commit=self.commit,
            verdict=verdict,
            path=self.path,
            before=self.before,
            after=self.after,
            patch_id=self.patch_id,
            reviewer=reviewer,
            time=now_iso(),
            reason=reason,
            run=self.run,
        )


def proposals_ref(run_id: str) -> str:
    """refs/heads/hippo/proposals/<run-id>; refuses run ids that are not plain names."""
    if not _RUN_ID.match(run_id) or ".." in run_id or run_id.endswith((".lock", ".")):
        raise UsageError(
            f"not a valid run id: {run_id!r}", hint="run ids are letters, digits, '.', '_' and '-'"
        )
    return PROPOSALS_PREFIX + run_id


def render_change(current: str | None, proposal: Proposal) -> str:
    """The note's text after `proposal`: `append` adds the text on its own lines at the end;
    `replace` swaps the one occurrence of `old` (refuses when it is not there exactly once)."""
    text = current or ""
    if proposal.op == "append":
        if text and not text.endswith("\n"):
            text += "\n"
        return text + proposal.new + ("" if proposal.new.endswith("\n") else "\n")
    if not proposal.old or text.count(proposal.old) != 1:
        raise HippoError(f"replace in {proposal.path}: the old text must occur exactly once in the note")
    return text.replace(proposal.old, proposal.new, 1)


def proposal_commit(store: GitStore, sha: str) -> ProposalCommit | None:
    """The proposal a commit holds, or None when it is not a well-formed one-note proposal commit."""
    info = store.commit_info(sha)
    trailers = parse_trailers(info.message)
    if trailers is None or len(info.parents) != 1:
        return None
    paths = store.changed_paths(sha)
    if len(paths) != 1:
        return None
    return ProposalCommit(
        commit=info.sha,
        parent=info.parents[0],
        proposal_id=trailers.proposal,
        path=paths[0],
        before=store.blob_at(info.parents[0], paths[0]),
        after=store.blob_at(sha, paths[0]),
        patch_id=store.patch_id(sha),
        run=trailers.run,
        pass_name=trailers.pass_name,
        subject=info.subject,
        created=False,
    )


def run_tip(store: GitStore, run_id: str) -> str | None:
    """The tip of a run's branch: the local one, else a remote-tracking copy (a teammate's run
    fetched by `git fetch`, as in a second clone); None also when `run_id` is not a run id."""
    try:
        local = store.ref_target(proposals_ref(run_id))
    except UsageError:
        return None
    if local is not None:
        return local
    suffix = "/hippo/proposals/" + run_id
    found = [tip for name, tip in store.refs("refs/remotes/") if name.endswith(suffix)]
    return found[0] if found else None


def run_proposal_ids(store: GitStore, run_id: str, tip: str | None = None) -> list[tuple[str, str]]:
    """(commit, proposal id) of the commits of a run's branch that carry its trailers, oldest
    first; reads commit messages only (no diffs), so a look at every run stays cheap."""
    tip = tip or store.ref_target(proposals_ref(run_id))
    found: list[tuple[str, str]] = []
    for info in store.first_parents(tip) if tip else ():
        trailers = parse_trailers(info.message)
        if trailers is None or trailers.run != run_id:
            break
        found.append((info.sha, trailers.proposal))
    return found[::-1]


def run_commit_shas(store: GitStore, run_id: str, tip: str | None = None) -> list[str]:
    """The commits of a run's branch that carry its trailers, oldest first (cheap: no diffs)."""
    return [sha for sha, _ in run_proposal_ids(store, run_id, tip)]


def run_commits(store: GitStore, run_id: str, tip: str | None = None) -> list[ProposalCommit]:
    """The proposal commits of a run, oldest first (empty when the branch does not exist)."""
    found = (proposal_commit(store, sha) for sha in run_commit_shas(store, run_id, tip))
    return [pc for pc in found if pc is not None]


def list_runs(store: GitStore) -> list[tuple[str, str]]:
    """(run id, branch tip) of every proposals branch, oldest run first (by tip time, then name)."""
    runs = [(name.removeprefix(PROPOSALS_PREFIX), tip) for name, tip in store.refs(PROPOSALS_PREFIX)]
    return sorted(runs, key=lambda r: (store.commit_info(r[1]).time, r[0]))


def latest_run(store: GitStore) -> str | None:
    runs = list_runs(store)
    return runs[-1][0] if runs else None


class ProposalBranch:
    """One run's proposals branch, for a batch of commits. `base` is where the branch starts when it
    does not exist yet (the target tip); once it exists, commits go on its tip."""

    def __init__(
        self, repo_root: Path, run_id: str, base: str | None = None, *, store: GitStore | None = None
    ) -> None:
        self.store = store or GitStore(repo_root)
        self.run_id = run_id
        self.ref = proposals_ref(run_id)
        self.tip = self.store.ref_target(self.ref)
        if self.tip is None and base is None:
            raise UsageError(f"run {run_id} has no proposals branch yet; a base commit is needed")
        self.base = base
        self._known: dict[str, ProposalCommit] | None = None

    @property
    def head(self) -> str:
        """The commit the next proposal goes on."""
        head = self.tip or self.base
        assert head is not None
        return head

    def read_note(self, path: str) -> str | None:
        """The note's text as the next proposal will see it (None when it does not exist)."""
        data = self.store.read_at(self.head, path)
        return None if data is None else data.decode("utf-8", "replace")

    def existing(self) -> dict[str, ProposalCommit]:
        """The proposals already on the branch, by proposal id."""
        if self._known is None:
            self._known = {pc.proposal_id: pc for pc in run_commits(self.store, self.run_id)}
        return self._known

    def commit(self, proposal: Proposal, new_content: str | None = None) -> ProposalCommit:
        """Commit `proposal` (the note becomes `new_content`, default `render_change`) on the branch.

        Returns the existing commit (`created=False`) when this proposal id is already on the branch.
        Raises HippoError when the change would change nothing or the path is not a plain file, and
        StaleRefError when the branch moved under us (nothing is written to it then).
        """
        known = self.existing().get(proposal.id)
        if known is not None:
            return replace(known, created=False)
        head = self.head
        before = self.store.blob_at(head, proposal.path)
        if new_content is None:
            new_content = render_change(self.read_note(proposal.path), proposal)
        after = self.store.write_blob(new_content.encode("utf-8"))
        if after == before:
            raise HippoError(f"the proposal for {proposal.path} changes nothing")
        tree = self.store.tree_with(head, proposal.path, after)
        message = commit_message(proposal, before, self.run_id)
        sha = self.store.write_commit(tree, [head], message)
        self.store.cas_ref(self.ref, sha, self.tip, f"hippo dream: {proposal.op} {proposal.path}")
        self.tip = sha
        pc = ProposalCommit(
            commit=sha,
            parent=head,
            proposal_id=proposal.id,
            path=proposal.path,
            before=before,
            after=after,
            patch_id=self.store.patch_id(sha),
            run=self.run_id,
            pass_name=proposal.pass_name,
            subject=message.split("\n", 1)[0],
        )
        self.existing()[proposal.id] = pc
        return pc


def commit_proposal(
    repo_root: Path,
    branch_ref: str,
    parent: str | None,
    proposal: Proposal,
    run_id: str,
    new_content: str | None = None,
) -> ProposalCommit:
    """Commit one proposal on `branch_ref` (must be `proposals_ref(run_id)`).

    `parent`: the commit to build on: the target tip for the run's first proposal; afterwards the
    branch tip (None = whatever the tip is; any other value raises StaleRefError). Idempotent: an
    already committed proposal is returned as is, whatever `parent` says.
    """
    if branch_ref != proposals_ref(run_id):
        raise UsageError(f"{branch_ref} is not the proposals branch of run {run_id}")
    branch = ProposalBranch(repo_root, run_id, base=parent)
    known = branch.existing().get(proposal.id)
    if known is not None:
        return replace(known, created=False)
    if branch.tip is not None and parent is not None and parent != branch.tip:
        raise StaleRefError(
            f"{branch_ref} is at {branch.tip[:12]}, not {parent[:12]}", hint="build on the branch tip"
        )
    return branch.commit(proposal, new_content)
