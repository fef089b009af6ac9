"""Memories in an agent's context: the relevant ones, framed by how sure anyone is of them.

Framings: `observe` (default) states what was seen and when, leaving the judgement to the
agent ("Previously observed (2026-01-02): …"); `suggest` offers it ("Consider: …"); `assert`
states it. The confidence tier is always shown, and a stale memory says so. On the agent-hook
path: no pygit2, GitPython or pydantic here, and memories still on a proposals branch (read
through git) are left to `recall`.
"""

from __future__ import annotations

from collections.abc import Callable

from hippo_git.config import Config
from hippo_git.memories.recall import Recalled, recall
from hippo_git.notes.context import Part

FRAMINGS = ("observe", "suggest", "assert")
CONTEXT_MEMORIES = 5
PROMPT_MEMORIES = 3


def framed(item: Recalled, framing: str = "observe") -> str:
    date = item.created[:10] or "undated"
    tier = item.tier if item.reviewed else f"{item.tier}, unreviewed"
    text = " ".join(item.text.split())
    if framing == "assert":
        return f"- {text} [{tier}; {item.id}]"
    if framing == "suggest":
        return f"- Consider ({tier}, {date}): {text} [{item.id}]"
    return f"- Previously observed ({date}, {tier}): {text} [{item.id}]"


def check_framing(framing: str) -> str:
    from hippo_git.errors import UsageError

    if framing not in FRAMINGS:
        raise UsageError(f"unknown framing {framing!r}", hint="use observe, suggest or assert")
    return framing


def memory_items(
    cfg: Config, task: str, *, limit: int, exclude: set[str] | frozenset[str] = frozenset()
) -> list[Recalled]:
    if not task.strip():
        return []
    items = recall(cfg, cfg.home, task, limit=limit + len(exclude), notes=False, record=False)
    return [i for i in items if i.id not in exclude][:limit]


def memory_parts(cfg: Config, task: str | None, framing: str = "observe") -> list[Part]:
    """One optional context part per relevant memory (so the budget drops whole memories)."""
    items = memory_items(cfg, task or "", limit=CONTEXT_MEMORIES)
    if items:
        from hippo_git.memories import usage as usage_db
        from hippo_git.memories.record import now_iso

        conn = usage_db.connect(cfg.home)
        try:
            usage_db.record_recall(conn, [i.id for i in items], now_iso())
        finally:
            conn.close()
    return [
        Part("memory", item.id, framed(item, framing) + "\n", required=False, why=item.tier) for item in items
    ]


def context_extra(cfg: Config, framing: str = "observe") -> Callable[[str | None], list[Part]]:
    """What `build_context(extra=…)` takes: the memory parts for a task."""

    def extra(task: str | None) -> list[Part]:
        return memory_parts(cfg, task, framing)

    return extra


def prompt_memories(cfg: Config, prompt: str, given: list[str]) -> tuple[list[str], str]:
    """(ids, text) of memories that match a prompt well and were not given in this session yet."""
    from hippo_git.memories.store import stems

    wanted = stems(prompt)
    items = memory_items(cfg, prompt, limit=PROMPT_MEMORIES, exclude=set(given))
    # A good match shares at least two of the prompt's words (one, for a one-word prompt).
    items = [i for i in items if len(wanted & stems(i.text)) >= min(2, len(wanted))]
    if not items:
        return [], ""
    text = "Memories from this repository's hippo_git that match this prompt:\n" + "\n".join(
        framed(i) for i in items
    )
    return [i.id for i in items], text + "\n"
