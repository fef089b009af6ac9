"""Memories from agents and imports: proposal commits, reviewed and receipted like a dream change.

Each memory is one proposal commit (an `append` that creates `notes_dir/memories/<id>.md`) on
the day's run `refs/heads/hippo/proposals/memories-<YYYYMMDD>`. The reviewer persona of the core
pack judges it (`memory_review`: a configured model, or the built-in model's fixed checks), and
the receipt is written as for any dream change; with `dream.apply = "fast-forward"` a confirmed
memory lands on the target branch through `apply_run` (the same gate and compare-and-swap).
Until then `recall` reads it from the proposals branch and marks it unreviewed.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hippo_git.config import Config
from hippo_git.dream.memory_review import MemoryReviewer, land
from hippo_git.dream.proposals import ProposalBranch, ProposalCommit
from hippo_git.dream.records import Proposal
from hippo_git.dream.runner import Model
from hippo_git.dream.validate import path_problems
from hippo_git.errors import HippoError
from hippo_git.git.objects import GitStore
from hippo_git.memories.pending import MEMORY_PASS, MEMORY_RUN_PREFIX, pending_memories
from hippo_git.memories.record import NEAR_DUPLICATE, Memory, render, similarity
from hippo_git.memories.remember import check_new
from hippo_git.memories.store import open_index, workspace_store


@dataclass(frozen=True)
class ProposedMemory:
    """A memory proposed by an agent or an import: its commit, review verdict and whether it was applied."""

    memory: Memory
    status: str  # proposed | duplicate | near-duplicate | rejected | invalid
    commit: str | None = None
    run: str | None = None
    verdict: str | None = None  # confirm | reject | None (not reviewed)
    reason: str = ""
    applied: bool = False
    duplicate_of: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.memory.id,
            "status": self.status,
            "commit": self.commit,
            "run": self.run,
            "verdict": self.verdict,
            "reason": self.reason,
            "applied": self.applied,
            "duplicate_of": self.duplicate_of,
            "text": self.memory.text,
            "tags": list(self.memory.tags),
            "kind": self.memory.kind,
        }


def memory_run_id(now: datetime | None = None) -> str:
    return MEMORY_RUN_PREFIX + (now or datetime.now(UTC)).strftime("%Y%m%d")


def propose_memories(
    cfg: Config,
    memories: Sequence[Memory],
    *,
    review_now: bool = True,
    model: Model | None = None,
    now: datetime | None = None,
    dry_run: bool = False,
) -> list[ProposedMemory]:
    """Commit each new memory as a proposal; review it (when a model can) and apply confirmed ones."""
    store = workspace_store(cfg)
    conn = open_index(store)
    out: list[ProposedMemory] = []
    fresh: list[Memory] = []
    seen: set[str] = set()
    waiting = [m for m, _, _ in pending_memories(cfg.root, store, cfg.target_branch)]
    try:
        for memory in memories:
            refused = check_new(conn, store, memory)
            proposed = next((m for m in waiting if similarity(m.text, memory.text) >= NEAR_DUPLICATE), None)
            if refused is not None:
                out.append(ProposedMemory(memory, refused.status, duplicate_of=refused.duplicate_of))
            elif proposed is not None:
                out.append(
                    ProposedMemory(memory, "duplicate", duplicate_of=proposed.id, reason="already proposed")
                )
            elif memory.id in seen:
                out.append(ProposedMemory(memory, "duplicate", duplicate_of=memory.id))
            else:
                seen.add(memory.id)
                fresh.append(memory)
    finally:
        conn.close()
    if dry_run or not fresh:
        return out + [ProposedMemory(m, "proposed") for m in fresh]
    git = GitStore(cfg.root)
    tip = git.ref_target(f"refs/heads/{cfg.target_branch}")
    if tip is None:
        raise HippoError(f"the target branch {cfg.target_branch!r} has no commits", hint="commit once first")
    run_id = memory_run_id(now)
    branch = ProposalBranch(cfg.root, run_id, base=tip, store=git)
    reviewer = MemoryReviewer.open(cfg, run_id, git, model) if review_now else None
    committed: list[tuple[Memory, ProposalCommit, str | None, str]] = []
    for memory in fresh:
        rel = store.rel(memory.id)
        problems = path_problems(rel, cfg.root, cfg.notes_dir)
        if problems:
            out.append(ProposedMemory(memory, "invalid", reason="; ".join(problems)))
            continue
        text = render(memory._replace(path=rel))
        source = "".join(c if c.isalnum() or c in "-_." else "-" for c in memory.source) or "agent"
        proposal = Proposal(
            op="append",
            path=rel,
            new=text,
            evidence=(f"memory-{source}#0",),
            rationale=f"{memory.source} asked to remember this",
            pass_name=MEMORY_PASS,
        )
        pc = branch.commit(proposal, new_content=text)
        verdict: str | None = None
        reason = ""
        if reviewer is not None:
            verdict, reason = reviewer(pc, proposal, memory.text)
        committed.append((memory, pc, verdict, reason))
    landed = land(cfg, run_id, git) if any(v == "confirm" for _, _, v, _ in committed) else set()
    for memory, pc, verdict, reason in committed:
        out.append(
            ProposedMemory(
                memory,
                "proposed",
                commit=pc.commit,
                run=run_id,
                verdict=verdict,
                reason=reason,
                applied=pc.proposal_id in landed,
            )
        )
    return out


def tombstone(memory: Memory) -> str:
    return render(memory._replace(kind="forgotten", text="(forgotten)"))


def propose_changes(
    cfg: Config,
    changes: Sequence[tuple[Memory, str, str]],
    *,
    review_now: bool = True,
    model: Model | None = None,
    now: datetime | None = None,
    apply: bool = True,
) -> list[ProposedMemory]:
    """Each (memory, its new text, why) as a `replace` proposal of the committed memory file,
    reviewed (when a model can) and applied when confirmed. Memories not committed on the target
    branch yet are refused: a person changes those in the work tree."""
    git = GitStore(cfg.root)
    tip = git.ref_target(f"refs/heads/{cfg.target_branch}")
    run_id = memory_run_id(now)
    branch = ProposalBranch(cfg.root, run_id, base=tip, store=git) if tip else None
    reviewer = MemoryReviewer.open(cfg, run_id, git, model) if review_now else None
    out: list[ProposedMemory] = []
    committed: list[tuple[Memory, ProposalCommit, str | None, str]] = []
    for memory, new, why in changes:
        current = git.read_at(branch.head, memory.path) if branch is not None else None
        if branch is None or current is None:
            out.append(ProposedMemory(memory, "invalid", reason=f"not committed on {cfg.target_branch}"))
            continue
        proposal = Proposal(
            op="replace",
            path=memory.path,
            old=current.decode("utf-8"),
            new=new,
            evidence=("memory-sleep#0",) if why.startswith("sleep") else ("memory-forget#0",),
            rationale=why,
            pass_name=MEMORY_PASS,
        )
        pc = branch.commit(proposal, new_content=new)
        verdict: str | None = None
        reason = ""
        if reviewer is not None:
            verdict, reason = reviewer(pc, proposal, f"{why}: {memory.text}")
        committed.append((memory, pc, verdict, reason))
    landed = land(cfg, run_id, git) if apply and any(v == "confirm" for _, _, v, _ in committed) else set()
    out += [
        ProposedMemory(m, "proposed", pc.commit, run_id, v, r, pc.proposal_id in landed)
        for m, pc, v, r in committed
    ]
    return out


def propose_forget(
    cfg: Config,
    ident: str,
    *,
    review_now: bool = True,
    model: Model | None = None,
    now: datetime | None = None,
) -> ProposedMemory:
    """An agent's `forget`: a proposal that turns the memory into a tombstone (`forgotten: true`),
    reviewed and applied like any other; recall skips tombstones."""
    from hippo_git.memories.store import resolve_id

    store = workspace_store(cfg)
    conn = open_index(store)
    try:
        _, memory = resolve_id([(store, conn)], ident)
    finally:
        conn.close()
    [done] = propose_changes(
        cfg,
        [(memory, tombstone(memory), "an agent asked to forget this memory")],
        review_now=review_now,
        model=model,
        now=now,
    )
    if done.status == "invalid":
        raise HippoError(
            f"memory {memory.id} is {done.reason} yet",
            hint="a person removes an uncommitted memory with `git hippo forget`",
        )
    return done


def import_memories(
    cfg: Config, source: Path, *, tags: Sequence[str] = (), dry_run: bool = False, review_now: bool = True
) -> tuple[str, list[ProposedMemory]]:
    """`git hippo import SOURCE`: every item of the file as a proposed memory (duplicates skipped).
    The whole file is read and checked first: a malformed one raises and nothing is written."""
    from hippo_git.memories.imports import read_source
    from hippo_git.memories.record import check_tags, make_memory, parse_time

    kind, items = read_source(source)
    if not items:
        raise HippoError(
            f"{source}: nothing to import", hint="the file holds no bullet, line or paragraph of text"
        )
    extra = check_tags(list(tags))
    memories = [
        make_memory(
            item.text,
            tags=[t for t in (*item.tags, *extra) if t][:8],
            confidence="inferred",
            source=f"import:{kind}",
            now=parse_time(item.created) or datetime.now(UTC),
            origin=item.origin,
            seq=item.seq,
        )
        for item in items
    ]
    return kind, propose_memories(cfg, memories, dry_run=dry_run, review_now=review_now)
