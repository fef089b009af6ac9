"""A dream run's chunks, one pass at a time: propose → validate → commit → review → receipt →
apply, each step followed by `checkpoint(step)` so tests can stop a run at any of them. `run.py`
plans the window, resumes a killed run and calls this for each chunk not yet done."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Callable, Sequence
from typing import Any

from hippo_git.config import Config
from hippo_git.dream import gather
from hippo_git.dream.apply import apply_run
from hippo_git.dream.costs import CostGuard
from hippo_git.dream.evidence import PassInput, TurnRef
from hippo_git.dream.packs import Pack, Pass
from hippo_git.dream.proposals import ProposalBranch, ProposalCommit
from hippo_git.dream.protocol import parse_propose_reply, propose_request
from hippo_git.dream.receipts import ReceiptBook, write_receipts
from hippo_git.dream.records import Proposal, Receipt
from hippo_git.dream.report import ChunkEntry, PassEntry, ProposalEntry, RunReport, write_report
from hippo_git.dream.revert import reverted_texts
from hippo_git.dream.review import committed_proposal, note_before, review, reviewer_record, unreviewed
from hippo_git.dream.run_end import UnreadableReplies
from hippo_git.dream.runner import Model, is_heuristic
from hippo_git.dream.validate import check
from hippo_git.dream.window import NewTurns
from hippo_git.errors import HippoError
from hippo_git.git.objects import GitStore

# A finished pass or chunk rewrites the report only when the last write is this old: with a real
# model every one does, while a fast model is not slowed by rewriting a growing report (all its
# chunks) after each of hundreds of chunks. The run's end always writes it.
PROGRESS_EVERY_S = 1.0
# Likewise a chunk's confirmed changes are applied (a fast-forward) when the last apply is this old,
# else by a later chunk's apply or the one at the run's end: chunks of a fast model take
# milliseconds, and an apply per chunk re-read every receipt each time.
APPLY_EVERY_S = 5.0


class ApplyStopped(HippoError):
    """Applying the chunk's confirmed changes stopped (a dirty note, the target moved)."""


class PassRunner:
    """One dream run's work on its chunks: each pass proposes, and each proposal is validated,
    committed, reviewed and receipted; confirmed changes are applied."""

    def __init__(
        self,
        cfg: Config,
        packs: list[Pack],
        run_id: str,
        model: Model,
        report: RunReport,
        dry_run: bool,
        checkpoint: Callable[[str], None],
    ) -> None:
        self.cfg = cfg
        self.root = cfg.root
        self.passes = [p for pack in packs for p in pack.passes]
        self.run_id = run_id
        self.model = model
        self.report = report
        self.dry_run = dry_run
        self.checkpoint = checkpoint
        self.guard = CostGuard(
            cfg.dream.max_model_calls, cfg.dream.max_bytes, capped=not is_heuristic(model.argv)
        )
        self.store = GitStore(cfg.root)
        tip = self.store.ref_target(f"refs/heads/{cfg.target_branch}")
        if tip is None:
            raise HippoError(
                f"the target branch {cfg.target_branch!r} has no commits", hint="commit the notes first"
            )
        self.branch = ProposalBranch(cfg.root, run_id, base=tip, store=self.store)
        self.book = ReceiptBook.load(cfg.root, store=self.store)  # receipts as the run started
        self.written: dict[str, Receipt] = {}  # receipts this run wrote, by commit
        self.unwritten: list[Receipt] = []  # a pass's receipts, written together as it ends
        self.seen: set[str] = set()  # ids of valid proposals this run already handled
        self._reverted: dict[str, list[str]] = {}
        self._last_write = 0.0
        self._last_apply = 0.0
        self.deferred = False  # a finished chunk whose confirmed changes wait for a later apply

    def reverted(self, path: str) -> list[str]:
        if path not in self._reverted:
            # only notes that have a revert receipt can hold reverted text: skip the git walk otherwise
            has_revert = any(e.receipt.kind == "revert" and e.receipt.path == path for e in self.book.entries)
            self._reverted[path] = (
                list(reverted_texts(self.root, path, store=self.store)) if has_revert else []
            )
        return self._reverted[path]

    def chunk(
        self,
        chunk: gather.Chunk,
        records: Sequence[dict[str, Any]],
        conn: sqlite3.Connection | None,
        new: NewTurns | None = None,
    ) -> ChunkEntry:
        started = time.monotonic()
        entry = ChunkEntry(since=gather.iso(chunk.since), until=gather.iso(chunk.until))
        ev = gather.chunk_evidence(
            records, conn, chunk, root=self.root, notes_dir=self.cfg.notes_dir, new=new
        )
        entry.sessions, entry.turns = len(ev.sessions), len(ev.turns)
        if not ev.turns:
            entry.skipped = (
                "no sessions with turns in this period" if not ev.sessions else "no new turns in this period"
            )
        elif not ev.touched and not any(self.writes_new(p) for p in self.passes):
            entry.skipped = "the period's sessions touched or cited no notes"
        else:
            # a period that touched no note runs the passes that write new notes, and only those
            for p in (p for p in self.passes if self.writes_new(p) != bool(ev.touched)):
                entry.passes.append(self.run_pass(p, ev))
                self.report_progress(entry, every=PROGRESS_EVERY_S)
            asked = [p for p in entry.passes if p.model_calls]
            if asked and all(p.reply_error for p in asked):
                entry.seconds = time.monotonic() - started
                self.report_progress(entry)
                raise UnreadableReplies(
                    f"no model reply could be read ({len(asked)} of {len(asked)} unreadable; "
                    f"{asked[0].name}: {asked[0].reply_error})",
                    hint="the model command must print the JSON of docs/model-protocol.md; "
                    "check model_command (`git hippo config show`)",
                )
            if self.report.apply_mode == "fast-forward":
                if time.monotonic() - self._last_apply >= APPLY_EVERY_S:
                    self.apply(entry)
                else:
                    self.deferred = True
        entry.seconds = time.monotonic() - started
        return entry

    def report_progress(self, entry: ChunkEntry, *, every: float = 0.0) -> None:
        """Put `entry` in the report; write the report unless it was written less than `every` s ago."""
        last = self.report.chunks[-1] if self.report.chunks else None
        if last is not None and (last.since, last.until) == (entry.since, entry.until):
            self.report.chunks[-1] = entry
        else:
            self.report.chunks = [
                c for c in self.report.chunks if (c.since, c.until) != (entry.since, entry.until)
            ] + [entry]
        if time.monotonic() - self._last_write >= every:
            write_report(self.cfg.hippo_dir, self.report)
            self._last_write = time.monotonic()

    @staticmethod
    def writes_new(p: Pass) -> bool:
        return "new_notes" in p.spec.reads

    def run_pass(self, p: Pass, ev: gather.ChunkEvidence) -> PassEntry:
        entry = PassEntry(name=p.full_name)
        if self.writes_new(p):
            notes = gather.topic_notes(ev, self.store, self.branch.head, self.root, self.cfg.notes_dir)
        else:
            notes = gather.read_notes(self.store, self.branch.head, ev.touched)
        shown = gather.pass_input(p, ev, notes, self.reverted)
        entry.notes, entry.turns, entry.cut_turns = len(shown.notes), len(shown.turns), shown.cut_turns
        if not shown.notes or not shown.turns:
            entry.skipped = (
                (gather.NO_TOPICS if self.writes_new(p) else "no notes to show")
                if not shown.notes
                else "no turns of the kinds this pass reads"
            )
            return entry
        out = self.guard.call(self.model, propose_request(p, shown, notes_dir=self.cfg.notes_dir), entry)
        self.checkpoint("propose")
        reply = parse_propose_reply(out.stdout, p.full_name)
        entry.reply_error, entry.item_errors = reply.unparsed, reply.errors
        try:
            for proposal in reply.proposals[: p.spec.max_proposals]:
                if proposal.id in self.seen:
                    continue  # proposed and handled earlier in this run
                entry.proposals.append(self.one(p, proposal, shown, entry))
        finally:
            self.write_receipts()
        return entry

    def write_receipts(self) -> None:
        """The pass's receipts in one notes commit (one per receipt was most of a fast dream's git
        work). A run killed before this reviews those commits again on resume: none is lost."""
        if self.unwritten:
            write_receipts(self.root, [(r, None) for r in self.unwritten], store=self.store)
            self.unwritten = []
            self.checkpoint("receipt")

    def one(self, p: Pass, proposal: Proposal, shown: PassInput, entry: PassEntry) -> ProposalEntry:
        item = ProposalEntry(
            id=proposal.id, op=proposal.op, path=proposal.path, evidence=list(proposal.evidence)
        )
        committed = self.branch.existing().get(proposal.id) if not self.dry_run else None
        if committed is None:  # a proposal this run already committed was checked before it was
            item.reasons = check(
                proposal, shown, root=self.root, notes_dir=self.cfg.notes_dir, ops=p.spec.ops
            )
        self.checkpoint("validate")
        if item.reasons:
            item.valid = False
            return item
        self.seen.add(proposal.id)
        earlier = [r for r in self.book.for_proposal(proposal.id) if r.kind == "review"]
        other_runs = sorted({r.run for r in earlier if r.run != self.run_id})
        if other_runs:
            item.note = f"already proposed in run {other_runs[0]}"
            item.verdict = earlier[0].verdict
            return item
        if self.dry_run:
            item.note = "dry run: not committed"
            return item
        try:
            pc = self.branch.commit(proposal)
        except HippoError as exc:
            item.valid, item.reasons = False, [exc.message]
            return item
        item.commit = pc.commit
        self.checkpoint("commit")
        turns = shown.turns_by_id()
        item.verdict, item.review_reason, item.note = self.review(
            p, pc, proposal, [turns[e] for e in proposal.evidence if e in turns], entry
        )
        return item

    def review(
        self, p: Pass, pc: ProposalCommit, proposal: Proposal, turns: list[TurnRef], entry: PassEntry
    ) -> tuple[str, str, str]:
        """(verdict, reason, note) of a committed proposal: its receipt, written once."""
        done = [
            r for r in self.book.for_proposal(pc.proposal_id) if r.kind == "review" and r.commit == pc.commit
        ]
        done += [self.written[pc.commit]] if pc.commit in self.written else []
        if done:
            return done[0].verdict, done[0].reason, "resumed"

        def ask(prompt: str) -> str:
            return self.guard.call(self.model, prompt, entry).stdout

        verdict, reason = review(p, proposal, note_before(self.store, pc), turns, ask)
        self.checkpoint("review")
        receipt = pc.receipt(verdict, reviewer_record(p, self.model.argv), reason=reason)
        self.unwritten.append(receipt)
        self.written[pc.commit] = receipt
        return verdict, reason, ""

    def review_pending(self, conn: sqlite3.Connection | None) -> None:
        """Review what a killed run committed but did not review, before dreaming on."""
        passes = {p.full_name: p for p in self.passes}
        pending = unreviewed(self.store, self.book, self.run_id)
        if not pending:
            return
        entry = PassEntry(name="resumed reviews")
        for pc in pending:
            p = passes.get(pc.pass_name)
            found = committed_proposal(self.store, pc, conn)
            if p is None or found is None:
                continue  # its pack is not part of this run: `git hippo apply` leaves it unconfirmed
            proposal, turns = found
            verdict, reason, _ = self.review(p, pc, proposal, turns, entry)
            entry.proposals.append(
                ProposalEntry(
                    id=pc.proposal_id,
                    op=proposal.op,
                    path=pc.path,
                    evidence=list(proposal.evidence),
                    commit=pc.commit,
                    verdict=verdict,
                    review_reason=reason,
                    note="reviewed on resume",
                )
            )
        self.write_receipts()
        self.report.resumed = entry

    def apply_rest(self, resumed: bool) -> None:
        """The apply of chunks whose own apply was deferred (or of a resumed run), at the run's end."""
        if self.report.apply_mode == "fast-forward" and (self.deferred or resumed) and self.report.chunks:
            self.apply(self.report.chunks[-1])

    def apply(self, entry: ChunkEntry) -> None:
        self._last_apply = time.monotonic()
        self.deferred = False
        if self.branch.tip is None:
            return
        try:
            result = apply_run(self.root, self.cfg, self.run_id, store=self.store)
        except HippoError as exc:
            entry.apply_error = exc.message
            self.report_progress(entry)
            raise ApplyStopped(exc.message, hint=exc.hint) from None
        self.checkpoint("apply")
        landed = {a.proposal for a in result.applied} | set(result.already)
        stale = {s.proposal for s in result.stale}
        entry.applied = [a.commit for a in result.applied]
        entry.stale = [s.commit for s in result.stale]
        for c in self.report.chunks + [entry]:
            for p in c.passes:
                for item in p.proposals:
                    item.applied = item.applied or item.id in landed
                    item.stale = item.id in stale and not item.applied
