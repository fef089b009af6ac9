"""One typed function per memory command: what the CLI and the MCP server call.

`recall` runs cold in a fresh process every time, so what only writing needs (redaction, atomic
files, hashing, the capture patterns) is imported inside the functions that write.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from hippo_git.config import Config, hippo_home, load_config
from hippo_git.errors import HippoError, NotARepoError
from hippo_git.memories import usage as usage_db
from hippo_git.memories.recall import ProposalSource, Recalled, recall, stores_of
from hippo_git.memories.store import global_store, open_index, resolve_id, workspace_store

if TYPE_CHECKING:
    from hippo_git.memories.harvest import Found
    from hippo_git.memories.record import Memory
    from hippo_git.memories.remember import Remembered


def here() -> Config | None:
    """The workspace's config, or None outside a repository (only the personal store then)."""
    try:
        return load_config()
    except NotARepoError:
        return None


def here_and_home() -> tuple[Config | None, Path]:
    cfg = here()
    return cfg, (cfg.home if cfg is not None else hippo_home())


def remember_text(
    cfg: Config | None,
    text: str,
    *,
    tags: tuple[str, ...] | list[str] = (),
    error: bool = False,
    pin: bool = False,
    confidence: str = "observed",
    source: str = "person",
    home: Path | None = None,
    now: datetime | None = None,
) -> Remembered:
    """A person's memory: into the workspace (`cfg`) staged, or the personal store (`cfg=None`)."""
    from hippo_git.memories.record import make_memory
    from hippo_git.memories.remember import remember

    memory = make_memory(
        text, tags=tags, confidence=confidence, error=error, pinned=pin, source=source, now=now
    )
    store = workspace_store(cfg) if cfg is not None else global_store(home or hippo_home())
    return remember(store, memory)


def proposal_source(cfg: Config | None) -> ProposalSource | None:
    """Agents' memories still on a proposals branch, when the dream machinery is there to read them."""
    if cfg is None:
        return None
    from hippo_git.memories.pending import pending_source

    return pending_source(cfg)


def recall_here(
    query: str,
    *,
    budget_tokens: int | None = None,
    limit: int = 10,
    notes: bool = True,
    cfg: Config | None = None,
    home: Path | None = None,
    record: bool = True,
) -> list[Recalled]:
    cfg = cfg if cfg is not None else here()
    return recall(
        cfg,
        home or (cfg.home if cfg is not None else hippo_home()),
        query,
        budget_tokens=budget_tokens,
        limit=limit,
        notes=notes,
        record=record,
        proposals=proposal_source(cfg),
    )


def outcome_here(
    ids: list[str], *, good: bool, cfg: Config | None = None, home: Path | None = None
) -> list[str]:
    """Strengthen or weaken memories (`ids`, resolved by prefix; default: the last recalled)."""
    cfg = cfg if cfg is not None else here()
    home = home or (cfg.home if cfg is not None else hippo_home())
    conn = usage_db.connect(home)
    try:
        if ids:
            full = [resolve_here(cfg, home, i)[1] for i in ids]
        else:
            full = usage_db.last_recalled(conn)
            if not full:
                raise HippoError(
                    "nothing was recalled yet", hint="run `git hippo recall WORDS` first, or name the ids"
                )
        usage_db.record_outcome(conn, full, good)
    finally:
        conn.close()
    return full


def resolve_here(cfg: Config | None, home: Path, prefix: str) -> tuple[str, str]:
    """(store name, full id) of the memory an id or id prefix names."""
    conns = []
    try:
        for store in stores_of(cfg, home):
            conns.append((store, open_index(store)))
        try:
            store, memory = resolve_id([(s, c) for s, c in conns], prefix)
        except HippoError:
            from hippo_git.memories.manage import pending_memory

            waiting = pending_memory(cfg, prefix)
            if waiting is None:
                raise
            return "proposals", waiting.id
        return store.name, memory.id
    finally:
        for _, conn in conns:
            conn.close()


def memories_of(found: list[Found], *, source: str, extra_tags: tuple[str, ...] = ()) -> list[Memory]:
    """Each item found by a pattern (capture, learn, watch-cmd) as a new memory, not written yet."""
    from hippo_git.memories.record import make_memory

    return [
        make_memory(
            item.text,
            tags=(item.kind, *extra_tags),
            confidence="inferred" if item.kind != "failure" else "observed",
            error=item.kind in ("error", "failure", "lesson"),
            source=source,
        )
        for item in found
    ]
