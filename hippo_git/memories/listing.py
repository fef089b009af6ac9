"""Every kept memory with its strength, tier and usage today: what the web view's memories page lists."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippo_git.config import Config
from hippo_git.memories import usage as usage_db
from hippo_git.memories.recall import score_memory, stores_of
from hippo_git.memories.store import all_memories, open_index


def list_memories(cfg: Config | None, home: Path, now: datetime | None = None) -> list[dict[str, Any]]:
    """One row per memory of the workspace and the personal store, strongest first. Reading does
    not count as a recall: usage figures are left as they are."""
    now = now or datetime.now(UTC)
    rows: list[dict[str, Any]] = []
    usage = usage_db.connect(home)
    try:
        for store in stores_of(cfg, home):
            conn = open_index(store)
            try:
                memories = [m for m in all_memories(conn, store) if m.kind != "forgotten"]
            finally:
                conn.close()
            uses = usage_db.get_usage(usage, [m.id for m in memories])
            for memory in memories:
                use = uses.get(memory.id, usage_db.Usage())
                _, parts, stale = score_memory(memory, 1.0, use, now)
                rows.append(
                    {
                        **memory.as_dict(),
                        "store": store.name,
                        "tier": "stale" if stale else memory.confidence,
                        "strength": round(parts["strength"], 3),
                        "half_life_days": round(parts["half_life_days"], 1),
                        "idle_days": round(parts["idle_days"], 1),
                        "recalls": use.recalls,
                        "good": use.good,
                        "bad": use.bad,
                    }
                )
    finally:
        usage.close()
    return sorted(rows, key=lambda r: (-r["strength"], r["id"]))
