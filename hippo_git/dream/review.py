"""The review run: a second model call whose instructions are the reviewer persona.

It is shown only the note as it was before the change, the change, and the turns the proposal
cites, never the proposing run's rationale; its reply must be exactly the JSON verdict
(`protocol.parse_review_reply`), anything else rejects. The persona of a pass comes from the
packs shipped inside hippo_git (`packs.load_pack` decides which), and receipts name it by name
and content hash, with the model argv and whether it was the built-in heuristic.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from typing import Literal

from hippo_git.dream.evidence import NoteText, TurnRef
from hippo_git.dream.packs import Pass
from hippo_git.dream.proposals import ProposalCommit, run_commits
from hippo_git.dream.protocol import parse_review_reply, review_request
from hippo_git.dream.receipts import ReceiptBook
from hippo_git.dream.records import Proposal, Reviewer, parse_trailers
from hippo_git.dream.runner import is_heuristic
from hippo_git.git.objects import GitStore
from hippo_git.index.sessions import get_turns


def reviewer_record(p: Pass, argv: Sequence[str]) -> Reviewer:
    return Reviewer(
        persona=p.persona_name,
        persona_sha256=p.persona_sha256,
        argv=tuple(argv),
        heuristic=is_heuristic(argv),
    )


def note_before(store: GitStore, pc: ProposalCommit) -> NoteText:
    """The note as the reviewer sees it: its text in the proposal commit's parent."""
    data = store.read_at(pc.parent, pc.path) or b""
    return NoteText(path=pc.path, text=data.decode("utf-8", "replace"), blob=pc.before)


def review(
    p: Pass, proposal: Proposal, note: NoteText, turns: Sequence[TurnRef], ask: Callable[[str], str]
) -> tuple[Literal["confirm", "reject"], str]:
    """(verdict, reason) of one review; `ask` sends the prompt to the model and returns its stdout."""
    verdict, reason, _ = parse_review_reply(ask(review_request(p, proposal, note, list(turns))))
    return verdict, reason


def unreviewed(store: GitStore, book: ReceiptBook, run_id: str) -> list[ProposalCommit]:
    """Proposal commits of the run that carry no review receipt yet (a run killed after committing)."""
    return [
        pc
        for pc in run_commits(store, run_id)
        if not any(r.kind == "review" and r.commit == pc.commit for r in book.for_proposal(pc.proposal_id))
    ]


def change_of(op: str, before: str, after: str) -> tuple[str | None, str]:
    """(old, new) of a committed change, read back from the note's two versions."""
    if op == "append":
        base = before if not before or before.endswith("\n") else before + "\n"
        if after.startswith(base):
            return None, after[len(base) :]
    start = 0
    while start < min(len(before), len(after)) and before[start] == after[start]:
        start += 1
    end = 0
    while end < min(len(before), len(after)) - start and before[-1 - end] == after[-1 - end]:
        end += 1
    return before[start : len(before) - end], after[start : len(after) - end]


def committed_proposal(
    store: GitStore, pc: ProposalCommit, conn: sqlite3.Connection | None
) -> tuple[Proposal, list[TurnRef]] | None:
    """The proposal a commit holds (as the reviewer needs it) and its evidence turns from the index."""
    trailers = parse_trailers(store.commit_info(pc.commit).message)
    if trailers is None:
        return None
    op: Literal["replace", "append"] = "replace" if pc.subject.startswith("hippo: replace ") else "append"
    before = note_before(store, pc).text
    after = (store.read_at(pc.commit, pc.path) or b"").decode("utf-8", "replace")
    old, new = change_of(op, before, after)
    turns: list[TurnRef] = []
    for ev in trailers.evidence:
        session, _, seq = ev.rpartition("#")
        rows = get_turns(conn, session, [int(seq)]) if conn is not None else []
        turns += [TurnRef(session, r.seq, r.kind, r.text, r.ts, r.tool, r.is_error) for r in rows]
    proposal = Proposal(
        op=op,
        path=pc.path,
        old=old or None,
        new=new or "\n",
        evidence=trailers.evidence,
        pass_name=trailers.pass_name,
    )
    return proposal, turns
