"""Sleep: the core pack's `memories` pass over the kept memories, run from code.

- Three or more memories saying nearly the same thing (word overlap ≥ MERGE_SIMILARITY, none
  negating another) are merged: the oldest keeps the fullest text, the union of the tags, the
  best confidence; the others become tombstones.
- A memory that decayed (strength below RETIRE_STRENGTH), is not pinned and was never recalled
  by this person is proposed for removal (a tombstone).

Every change is a proposal commit, reviewed and receipted (`memory_proposals.propose_changes`);
nothing is deleted silently.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime

from hippo_git.config import Config
from hippo_git.dream.memory_proposals import ProposedMemory, propose_changes, tombstone
from hippo_git.dream.runner import Model
from hippo_git.memories import usage as usage_db
from hippo_git.memories.pending import changes_waiting
from hippo_git.memories.recall import score_memory
from hippo_git.memories.record import TIERS, Memory, negates, render, similarity
from hippo_git.memories.store import all_memories, open_index, search, workspace_store

MERGE_SIMILARITY = 0.6
MERGE_AT_LEAST = 3
RETIRE_STRENGTH = 0.05  # about four and a third half-lives without use
CANDIDATES = 10


@dataclass
class SleepPlan:
    """What sleep would do to the kept memories: which to merge into one, and which to retire."""

    merges: list[tuple[Memory, list[Memory], Memory]] = field(
        default_factory=list
    )  # (keeper, others, merged)
    retire: list[Memory] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "merges": [
                {
                    "keep": k.id,
                    "merge": [o.id for o in others],
                    "text": merged.text,
                    "tags": list(merged.tags),
                }
                for k, others, merged in self.merges
            ],
            "retire": [m.id for m in self.retire],
        }


def _clusters(memories: list[Memory], neighbours: dict[str, list[str]]) -> list[list[Memory]]:
    by_id = {m.id: m for m in memories}
    parent = {m.id: m.id for m in memories}

    def root(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for a, others in neighbours.items():
        for b in others:
            parent[root(a)] = root(b)
    groups: dict[str, list[Memory]] = {}
    for m in memories:
        groups.setdefault(root(m.id), []).append(by_id[m.id])
    return [sorted(g, key=lambda m: (m.created, m.id)) for g in groups.values() if len(g) >= MERGE_AT_LEAST]


def merged_memory(group: list[Memory]) -> Memory:
    keeper = group[0]
    fullest = max(group, key=lambda m: (len(m.text), m.created))
    tags = tuple(dict.fromkeys(t for m in group for t in m.tags))
    best = min((m.confidence for m in group), key=lambda c: TIERS.index(c) if c in TIERS else len(TIERS))
    return keeper._replace(
        text=fullest.text,
        tags=tags,
        confidence=best,
        pinned=any(m.pinned for m in group),
        half_life=max(m.half_life for m in group),
    )


def plan_sleep(cfg: Config, now: datetime | None = None) -> SleepPlan:
    now = now or datetime.now(UTC)
    store = workspace_store(cfg)
    waiting = changes_waiting(cfg.root, store, cfg.target_branch)
    conn = open_index(store)
    try:
        memories = [m for m in all_memories(conn, store) if store.rel(m.id) not in waiting]
        ids = {m.id for m in memories}
        neighbours: dict[str, list[str]] = {}
        for m in memories:
            for path, _, _, body, _ in search(conn, store, m.text, CANDIDATES):
                other = path.rsplit("/", 1)[-1].removesuffix(".md")
                close = similarity(m.text, body) >= MERGE_SIMILARITY and not negates(m.text, body)
                if other != m.id and other in ids and close:
                    neighbours.setdefault(m.id, []).append(other)
    finally:
        conn.close()
    plan = SleepPlan()
    merged_ids: set[str] = set()
    for group in _clusters(memories, neighbours):
        plan.merges.append((group[0], group[1:], merged_memory(group)))
        merged_ids |= {m.id for m in group}
    uconn = usage_db.connect(cfg.home)
    try:
        uses = usage_db.get_usage(uconn, [m.id for m in memories])
    finally:
        uconn.close()
    for m in memories:
        use = uses.get(m.id, usage_db.Usage())
        if m.id in merged_ids or m.pinned or use.recalls:
            continue
        _, parts, _ = score_memory(m, 1.0, use, now)
        if parts["strength"] < RETIRE_STRENGTH:
            plan.retire.append(m)
    return plan


def sleep(
    cfg: Config,
    *,
    dry_run: bool = False,
    review_now: bool = True,
    model: Model | None = None,
    now: datetime | None = None,
    apply: bool = True,
) -> tuple[SleepPlan, list[ProposedMemory]]:
    """Plan the merges and removals and, unless `dry_run`, propose them (reviewed, receipted;
    applied as `dream.apply` says unless `apply` is False)."""
    plan = plan_sleep(cfg, now)
    if dry_run:
        return plan, []
    changes: list[tuple[Memory, str, str]] = []
    for keeper, others, merged in plan.merges:
        names = ", ".join(o.id for o in others)
        changes.append((keeper, render(merged), f"sleep: merge {names} into {keeper.id}"))
        changes += [(o, tombstone(o), f"sleep: merged into {keeper.id}") for o in others]
    changes += [(m, tombstone(m), "sleep: decayed, unpinned and never recalled") for m in plan.retire]
    done = (
        propose_changes(cfg, changes, review_now=review_now, model=model, now=now, apply=apply)
        if changes
        else []
    )
    return plan, done
