"""The MCP server's memory tools: `remember`, `recall`, `outcome`, `forget`.

An agent's memory is never written straight into the notes: `remember` and `forget` become
proposal commits, reviewed and receipted like dream changes (`dream.memory_proposals`);
`remember` is recallable at once, marked unreviewed, until it is applied.
"""

from __future__ import annotations

from pathlib import Path

from hippo_git.config import Config, load_config
from hippo_git.errors import HippoError

DESCRIPTIONS = {
    "remember": "Remember a short lesson, decision, rule or failure for later sessions (reviewed before it is kept).",
    "recall": "Recall memories and notes relevant to some words, best first, with their confidence tier.",
    "outcome": "Say whether the last recalled memories helped (good=true) or misled (good=false).",
    "forget": "Propose forgetting a memory by id (reviewed before it is removed).",
}


class MemoryTools:
    def __init__(self, start: Path) -> None:
        self.start = start

    def _cfg(self) -> Config:
        return load_config(self.start)

    def remember(
        self, text: str, tags: list[str] | None = None, error: bool = False, confidence: str = "inferred"
    ) -> str:
        from hippo_git.dream.memory_proposals import propose_memories
        from hippo_git.memories.record import make_memory

        memory = make_memory(text, tags=tags or [], error=error, confidence=confidence, source="agent:mcp")
        [done] = propose_memories(self._cfg(), [memory])
        if done.status != "proposed":
            return f"Not remembered: {done.status} of {done.duplicate_of}."
        state = {"confirm": "confirmed", "reject": "rejected by review"}.get(
            done.verdict or "", "awaiting review"
        )
        landed = " and applied" if done.applied else ""
        return f"Proposed memory {done.memory.id} ({state}{landed}); recallable now."

    def recall(self, query: str, budget: int | None = None, limit: int = 10) -> str:
        from hippo_git.memories.service import recall_here

        cfg = self._cfg()
        items = recall_here(query, budget_tokens=budget, limit=max(1, min(limit, 50)), cfg=cfg)
        if not items:
            return f"Nothing recalled for {query!r}."
        lines = [f"{len(items)} items for {query!r} (memories by id, notes by path):", ""]
        for r in items:
            when = f" {r.created[:10]}" if r.created else ""
            mark = "" if r.reviewed else ", unreviewed"
            if r.kind == "memory":
                lines.append(f"- {r.id} [{r.tier}{mark}]{when}: {' '.join(r.text.split())}")
            else:
                lines.append(f"- {r.path} [note] {r.title}: {' '.join(r.text.split())[:300]}")
        return "\n".join(lines)

    def outcome(self, good: bool, ids: list[str] | None = None) -> str:
        from hippo_git.memories.service import outcome_here

        done = outcome_here(list(ids or []), good=good, cfg=self._cfg())
        return f"{'Strengthened' if good else 'Weakened'} {len(done)} memories: {', '.join(done)}."

    def forget(self, memory_id: str) -> str:
        from hippo_git.dream.memory_proposals import propose_forget

        if not memory_id.strip():
            raise HippoError("the memory id is empty", hint="recall lists memories with their ids")
        done = propose_forget(self._cfg(), memory_id)
        state = {"confirm": "confirmed", "reject": "rejected by review"}.get(
            done.verdict or "", "awaiting review"
        )
        return f"Proposed forgetting {done.memory.id} ({state}{' and applied' if done.applied else ''})."
