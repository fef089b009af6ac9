"""The review of memory proposals: the core pack's `memories` reviewer, whatever the model.

The reviewer sees the memory file before, the change, and as evidence the words the memory came
from plus the kept memories nearest to it and the values resolved conflicts rejected (so it can
tell a repeat or a value brought back). A configured model judges; the built-in offline model
applies `memories.review_checks` (valid file, redaction clean, sane size, no repeat, no rejected
value). Either way each review is a receipt, and with `dream.apply = "fast-forward"` confirmed
memories land on the target branch through `apply_run`.

`review_pending` reviews memory proposals that carry no receipt yet (made while no reviewer
could run, or by a process killed before its review); `git hippo dream` runs it.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from dataclasses import dataclass

from hippo_git.config import Config
from hippo_git.dream.apply import apply_run
from hippo_git.dream.evidence import TurnRef
from hippo_git.dream.packs import Pass
from hippo_git.dream.proposals import ProposalCommit
from hippo_git.dream.receipts import ReceiptBook, write_receipt
from hippo_git.dream.records import Proposal
from hippo_git.dream.review import committed_proposal, note_before, review, reviewer_record, unreviewed
from hippo_git.dream.runner import Model, make_model, resolve_model_command
from hippo_git.git.objects import GitStore
from hippo_git.memories.pending import MEMORY_RUN_PREFIX, PROPOSALS_PREFIX
from hippo_git.memories.record import parse_memory, similarity
from hippo_git.memories.remember import rejected_values
from hippo_git.memories.review_checks import KEPT_KIND, REJECTED_KIND
from hippo_git.memories.store import Store, get_memory, open_index, search, workspace_store

NEIGHBOURS = 5
REJECTED_SHOWN = 5


def reviewer_pass(cfg: Config) -> Pass:
    """The shipped core pack's `memories` pass (run from code, not listed among the dreaming
    passes): its persona reviews every memory proposal, whatever packs the workspace installed."""
    from hippo_git.dream.packs import PassSpec, _read_toml, _shipped_persona, shipped_root

    root = shipped_root() / "core"
    spec = PassSpec.model_validate(_read_toml(root / "passes" / "memories.toml"))
    return Pass(
        pack="core",
        name="memories",
        spec=spec,
        prompt=(root / "prompts" / spec.prompt).read_text(encoding="utf-8"),
        template=None,
        persona_name=f"core/{spec.persona.removesuffix('.md')}",
        persona=_shipped_persona("core", spec.persona),
    )


def default_model(cfg: Config, run_id: str) -> Model:
    """The model a dream would use: the configured command, `claude`, or the built-in one."""
    argv, _ = resolve_model_command(cfg, os.environ.get("PATH"))
    return make_model(argv, cfg.home, run_id, dict(os.environ), float(cfg.dream.model_timeout_s))


def _asker(model: Model) -> Callable[[str], str]:
    def ask(prompt: str) -> str:
        return model(prompt).stdout

    return ask


def context_turns(store: Store, text: str, own_id: str) -> list[TurnRef]:
    """The kept memories nearest to `text` and the rejected values like it, as evidence turns."""
    conn = open_index(store)
    try:
        kept: list[TurnRef] = []
        for path, _, _, body, _ in search(conn, store, text, NEIGHBOURS + 1):
            ident = path.rsplit("/", 1)[-1].removesuffix(".md")
            found = get_memory(conn, store, ident) if ident != own_id else None
            if found is not None and found.kind != "forgotten" and len(kept) < NEIGHBOURS:
                kept.append(TurnRef(session=ident, seq=0, kind=KEPT_KIND, text=body.strip()))
    finally:
        conn.close()
    values = sorted(rejected_values(store), key=lambda v: -similarity(v["text"], text))
    rejected = [
        TurnRef(session="memory-rejected", seq=n, kind=REJECTED_KIND, text=v["text"])
        for n, v in enumerate(values[:REJECTED_SHOWN])
    ]
    return kept + rejected


@dataclass
class MemoryReviewer:
    """One reviewer for a batch: the pass, the model, the repository."""

    cfg: Config
    git: GitStore
    model: Model
    pass_: Pass

    @classmethod
    def open(cls, cfg: Config, run_id: str, git: GitStore, model: Model | None = None) -> MemoryReviewer:
        return cls(cfg, git, model or default_model(cfg, run_id), reviewer_pass(cfg))

    def __call__(self, pc: ProposalCommit, proposal: Proposal, said: str | None = None) -> tuple[str, str]:
        """Review one proposal commit and write its receipt; `said` is what the memory came from
        (by default the memory's text after the change)."""
        before = note_before(self.git, pc)
        after = (
            proposal.new
            if proposal.op == "append"
            else before.text.replace(proposal.old or "", proposal.new, 1)
        )
        memory = parse_memory(after, pc.path)
        source = proposal.evidence[0].rpartition("#")[0] if proposal.evidence else "memory"
        turns = [TurnRef(session=source, seq=0, kind="prompt", text=said or memory.text or proposal.new)]
        turns += context_turns(workspace_store(self.cfg), memory.text, memory.id)
        verdict, reason = review(self.pass_, proposal, before, turns, _asker(self.model))
        receipt = pc.receipt(verdict, reviewer_record(self.pass_, self.model.argv), reason=reason)
        write_receipt(self.cfg.root, receipt, store=self.git)
        return verdict, reason


def land(cfg: Config, run_id: str, git: GitStore) -> set[str]:
    """Apply a memory run's confirmed proposals when `dream.apply` is fast-forward; the ids landed."""
    if cfg.dream.apply != "fast-forward":
        return set()
    result = apply_run(cfg.root, cfg, run_id, store=git)
    return {a.proposal for a in result.applied} | set(result.already)


@dataclass(frozen=True)
class PendingReview:
    """The review verdict on one pending memory proposal, and whether it was applied."""

    run: str
    proposal: str
    path: str
    verdict: str
    reason: str
    applied: bool

    def as_dict(self) -> dict[str, object]:
        return {
            "run": self.run,
            "proposal": self.proposal,
            "path": self.path,
            "verdict": self.verdict,
            "reason": self.reason,
            "applied": self.applied,
        }


def review_pending(cfg: Config, *, model: Model | None = None, apply: bool = True) -> list[PendingReview]:
    """Review every memory proposal still without a receipt, then (unless `apply` is False)
    apply what was confirmed as `dream.apply` says."""
    git = GitStore(cfg.root)
    runs = [name.removeprefix(PROPOSALS_PREFIX) for name, _ in git.refs(PROPOSALS_PREFIX + MEMORY_RUN_PREFIX)]
    book = ReceiptBook.load(cfg.root, store=git)
    out: list[PendingReview] = []
    for run_id in runs:
        waiting = unreviewed(git, book, run_id)
        if not waiting:
            continue
        reviewer = MemoryReviewer.open(cfg, run_id, git, model)
        done: list[tuple[ProposalCommit, str, str]] = []
        for pc in waiting:
            held = committed_proposal(git, pc, None)
            if held is None:
                continue
            proposal, _ = held
            verdict, reason = reviewer(pc, proposal)
            done.append((pc, verdict, reason))
        landed = land(cfg, run_id, git) if apply and any(v == "confirm" for _, v, _ in done) else set()
        out += [
            PendingReview(run_id, pc.proposal_id, pc.path, v, r, pc.proposal_id in landed)
            for pc, v, r in done
        ]
    return out
