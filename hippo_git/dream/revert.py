"""`git hippo revert`: a person undoes an applied dream change (DESIGN §3 Revert).

The revert is an ordinary revert commit on the target (message as `git revert --no-edit` writes
it), built in-process and landed by the same compare-and-swap fast-forward as apply, so it works
whether or not the target is checked out and never runs hooks. A revert receipt (kind "revert")
goes on the revert commit AND on the reverted commit. Dreams append at the end of a note, so an
older change is usually followed by newer ones: the revert takes the change's own text out of the
note as it is now (each block it wrote, found exactly once), whatever came after it. Changes a
person made to the note since make it refuse, unless forced; forced, it takes the text out the same
way, or when that text is gone makes a three-way revert, refused on conflicts.
`reverted_texts` gives later passes the text people took out, to show as confirmed by a human and
to reject proposals that bring it back. Rerunning after a failure finds the revert already made.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from hippo_git.config import load_config
from hippo_git.dream.proposals import ProposalCommit, proposal_commit
from hippo_git.dream.receipts import ReceiptBook, list_receipts, write_receipts
from hippo_git.dream.records import NULL_BLOB, Receipt, Reviewer, parse_trailers
from hippo_git.errors import HippoError, UsageError
from hippo_git.git.objects import GitStore, now_iso
from hippo_git.git.worktree import advance_branch

HUMAN = Reviewer(persona="human", persona_sha256="", argv=("git", "hippo", "revert"))
_HEX = re.compile(r"^[0-9a-f]{7,64}$")
_REVERTS = re.compile(r"^This reverts commit ([0-9a-f]{40})\.$", re.M)
SEARCH_LIMIT = 50_000  # commits of target history searched for the applied proposal


@dataclass(frozen=True)
class RevertResult:
    """The revert of one applied dream change: the commit undone and the revert commit made."""

    proposal: str
    applied: str  # the commit on the target that was reverted
    revert_commit: str
    path: str
    forced: bool
    created: bool  # False when the revert already existed (rerun, or reverted before)
    worktree: str | None = None

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _find_applied(store: GitStore, tip: str, ident: str, target: str) -> ProposalCommit:
    """The proposal commit on the target's history that `ident` (proposal id, commit, or a prefix) names."""
    ident = ident.strip().lower()
    if not _HEX.match(ident):
        raise UsageError(
            f"{ident!r} is not a proposal id or commit id", hint="`git hippo proposals` lists them"
        )
    wanted = ident
    named = store.resolve(ident) if len(ident) <= 40 else None
    if named is not None:
        trailers = parse_trailers(store.commit_info(named).message)
        if trailers is None:
            raise HippoError(
                f"{ident} is not a dream proposal commit", hint="revert other commits with `git revert`"
            )
        wanted = trailers.proposal
    matches: dict[str, str] = {}
    for info in store.ancestors(tip, SEARCH_LIMIT):  # all of history: a merged pull request too
        trailers = parse_trailers(info.message)
        if trailers is not None and trailers.proposal.startswith(wanted):
            matches.setdefault(trailers.proposal, info.sha)
    if len(matches) > 1:
        raise UsageError(f"{ident} names several proposals", hint="give more characters of the id")
    if not matches:
        raise HippoError(
            f"proposal {ident} is not applied on {target}",
            hint="`git hippo proposals` shows what was applied",
        )
    pc = proposal_commit(store, next(iter(matches.values())))
    if pc is None:
        raise HippoError(
            f"the commit for proposal {ident} changes more than one note; revert it with `git revert`"
        )
    return pc


def _existing_revert(store: GitStore, tip: str, applied: str) -> str | None:
    for info in store.ancestors(tip, SEARCH_LIMIT):
        if info.sha == applied:
            break
        if applied in _REVERTS.findall(info.message):
            return info.sha
    return None


def revert(
    repo_root: Path,
    proposal_or_commit_id: str,
    force: bool = False,
    *,
    target_branch: str | None = None,
    store: GitStore | None = None,
) -> RevertResult:
    """Revert an applied proposal on the target branch (default: the configured one)."""
    store = store or GitStore(repo_root)
    target = target_branch or load_config(repo_root).target_branch
    tip = store.ref_target(f"refs/heads/{target}")
    if tip is None:
        raise HippoError(f"the target branch {target!r} does not exist")
    pc = _find_applied(store, tip, proposal_or_commit_id, target)
    revert_sha = _existing_revert(store, tip, pc.commit)
    worktree = None
    created = revert_sha is None
    if revert_sha is None:
        now = store.blob_at(tip, pc.path)
        person = _changed_by_a_person(store, tip, pc) if now != pc.after else None
        if person is not None and not force:
            raise HippoError(
                f"{pc.path} changed since {pc.commit[:12]} was applied (by {person[:12]}); nothing was reverted",
                hint=f"see `git log -p -- {pc.path}`; `git hippo revert {proposal_or_commit_id} --force` reverts anyway",
            )
        if now == pc.after:
            tree = store.tree_with(tip, pc.path, None if pc.before == NULL_BLOB else pc.before)
        else:
            tree = _without_change(store, tip, pc, now)
        message = f'Revert "{pc.subject}"\n\nThis reverts commit {pc.commit}.\n'
        revert_sha = store.write_commit(tree, [tip], message)
        where = advance_branch(
            store,
            target,
            revert_sha,
            tip,
            [pc.path],
            message=f"hippo revert: {pc.subject}",
            retry=f"git hippo revert {proposal_or_commit_id}",
        )
        worktree = str(where) if where else None
    parent = store.commit_info(revert_sha).parents[0]
    receipt = Receipt(
        kind="revert",
        proposal=pc.proposal_id,
        commit=revert_sha,
        verdict="reject",
        path=pc.path,
        before=store.blob_at(parent, pc.path),
        after=store.blob_at(revert_sha, pc.path),
        patch_id=store.patch_id(revert_sha),
        reviewer=HUMAN,
        time=now_iso(),
        reason=f"reverted by {store.commit_info(revert_sha).author}"
        + (" (forced)" if force and created else ""),
        run=pc.run,
    )
    already = {
        r.commit
        for r in ReceiptBook.load(repo_root, store=store).for_proposal(pc.proposal_id)
        if r.kind == "revert"
    }
    if revert_sha not in already or created:
        write_receipts(repo_root, [(receipt, revert_sha), (receipt, pc.commit)], store=store)
    return RevertResult(pc.proposal_id, pc.commit, revert_sha, pc.path, force, created, worktree)


def _changed_by_a_person(store: GitStore, tip: str, pc: ProposalCommit) -> str | None:
    """The newest commit since `pc` that changed its note and is neither a dream change nor a revert
    of one (merge commits bring their parents' changes, which are looked at themselves)."""
    for info in store.ancestors(tip, SEARCH_LIMIT):
        if info.sha == pc.commit:
            return None
        if len(info.parents) != 1 or store.blob_at(info.sha, pc.path) == store.blob_at(
            info.parents[0], pc.path
        ):
            continue
        if parse_trailers(info.message) is None and not _REVERTS.search(info.message):
            return info.sha
    return None


def _without_change(store: GitStore, tip: str, pc: ProposalCommit, now: str) -> str:
    """The tip's tree with `pc`'s own text taken out of the note as it is now; a three-way revert
    when that text is no longer there as written (which refuses on conflicts)."""
    read = store.read_blob
    text = unapply(
        read(pc.before).decode("utf-8") if pc.before != NULL_BLOB else "",
        read(pc.after).decode("utf-8"),
        read(now).decode("utf-8"),
    )
    if text is None:
        return store.revert_tree(pc.commit, tip)
    return store.tree_with(tip, pc.path, store.write_blob(text.encode("utf-8")))


def unapply(before: str, after: str, now: str) -> str | None:
    """`now` with the change `before` → `after` taken out: each block of lines the change wrote must
    be in `now` exactly once, and goes back to what it replaced. None when one is not (changed since,
    or a change that only deleted lines, whose place `now` cannot tell)."""
    old, new = before.splitlines(keepends=True), after.splitlines(keepends=True)
    hunks = difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes()
    out = now
    for tag, i1, i2, j1, j2 in reversed(hunks):
        if tag == "equal":
            continue
        wrote, was = "".join(new[j1:j2]), "".join(old[i1:i2])
        at = out.find(wrote)
        if not wrote or at < 0 or out.find(wrote, at + 1) >= 0:
            return None
        end = at + len(wrote)
        if wrote.endswith("\n") and was and not was.endswith("\n") and end < len(out):
            was += "\n"  # it had added the line break the note lacked: later lines keep theirs
        out = out[:at] + was + out[end:]
    return out


def _added_blocks(before: str, after: str) -> list[str]:
    old, new = before.splitlines(), after.splitlines()
    blocks = []
    for tag, _i1, _i2, j1, j2 in difflib.SequenceMatcher(a=old, b=new, autojunk=False).get_opcodes():
        if tag in ("insert", "replace"):
            block = "\n".join(new[j1:j2]).strip()
            if block:
                blocks.append(block)
    return blocks


def reverted_texts(repo_root: Path, path: str, *, store: GitStore | None = None) -> list[str]:
    """The text blocks that applied dream changes added to `path` and a person then reverted.

    For later passes: shown as confirmed by a human, and a proposal bringing one back is rejected.
    """
    store = store or GitStore(repo_root)
    texts: list[str] = []
    for entry in list_receipts(repo_root, store=store):
        receipt = entry.receipt
        if receipt.kind != "revert" or receipt.path != path:
            continue
        original = entry.on if entry.on != receipt.commit else None
        if original is None:
            found = (
                _REVERTS.search(store.commit_info(receipt.commit).message)
                if store.resolve(receipt.commit)
                else None
            )
            original = found.group(1) if found else None
        if original is None or store.resolve(original) is None:
            continue
        info = store.commit_info(original)
        if len(info.parents) != 1:
            continue
        before = (store.read_at(info.parents[0], path) or b"").decode("utf-8", "replace")
        after = (store.read_at(original, path) or b"").decode("utf-8", "replace")
        for block in _added_blocks(before, after):
            if block not in texts:
                texts.append(block)
    return texts
