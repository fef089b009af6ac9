"""`forget`, `inspect`, `conflicts`, `resolve`: looking after the memories a person keeps."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.config import Config
from hippo_git.errors import HippoError
from hippo_git.memories import usage as usage_db
from hippo_git.memories.conflicts import (
    Conflict,
    Resolution,
    conflicts_of,
    find_conflicts,
    pick,
    record_rejected,
)
from hippo_git.memories.recall import stores_of
from hippo_git.memories.record import Memory
from hippo_git.memories.remember import commit_paths, rejected_path, stage_paths
from hippo_git.memories.store import Store, open_index, resolve_id


@dataclass(frozen=True)
class Forgotten:
    """A memory that `forget` removed: its id, store, file and whether the removal is staged."""

    id: str
    store: str
    path: str
    staged: bool

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def _open_all(cfg: Config | None, home: Path) -> list[tuple[Store, sqlite3.Connection]]:
    return [(store, open_index(store)) for store in stores_of(cfg, home)]


def _close(conns: list[tuple[Store, sqlite3.Connection]]) -> None:
    for _, conn in conns:
        conn.close()


def forget(cfg: Config | None, home: Path, ident: str) -> Forgotten:
    """Remove a kept memory: from the work tree, staged (the person commits it), or from the
    personal store, committed there."""
    conns = _open_all(cfg, home)
    try:
        store, memory = resolve_id(conns, ident)
    finally:
        _close(conns)
    store.path(memory.id).unlink()
    rel = store.rel(memory.id)
    if store.name == "global":
        commit_paths(store, [rel], f"hippo: forget {memory.id}")
    else:
        stage_paths(store, [rel])
    return Forgotten(memory.id, store.name, rel, store.name == "workspace")


@dataclass(frozen=True)
class Inspection:
    """Everything `inspect` tells about one memory: its history, receipts, usage and conflicts."""

    memory: Memory
    store: str
    history: list[dict[str, str]] = field(default_factory=list)
    receipts: list[dict[str, Any]] = field(default_factory=list)
    usage: dict[str, object] = field(default_factory=dict)
    conflicts: list[dict[str, object]] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "memory": self.memory.as_dict(),
            "store": self.store,
            "history": self.history,
            "receipts": self.receipts,
            "usage": self.usage,
            "conflicts": self.conflicts,
        }


def _history(store: Store, rel: str) -> tuple[list[dict[str, str]], list[dict[str, Any]]]:
    """The commits that touched the memory file (newest first) and the receipts on them."""
    import json

    from hippo_git.git.repo import run_git

    proc = run_git(
        ["log", "--all", "--format=%H%x1f%an%x1f%aI%x1f%s", "--", rel], cwd=store.root, check=False
    )
    history: list[dict[str, str]] = []
    receipts: list[dict[str, Any]] = []
    for line in proc.stdout.splitlines():
        parts = line.split("\x1f")
        if len(parts) != 4:
            continue
        sha, author, date, subject = parts
        history.append({"commit": sha, "author": author, "date": date, "subject": subject})
        note = run_git(["notes", "--ref=refs/notes/hippo/receipts", "show", sha], cwd=store.root, check=False)
        for raw in note.stdout.splitlines() if note.returncode == 0 else []:
            try:
                item = json.loads(raw)
            except ValueError:
                continue
            if isinstance(item, dict):
                receipts.append(item)
    return history, receipts


def pending_memory(cfg: Config | None, ident: str) -> Memory | None:
    """A memory still on a proposals branch whose id starts with `ident`, or None."""
    if cfg is None:
        return None
    from hippo_git.memories.pending import pending_memories
    from hippo_git.memories.store import workspace_store

    prefix = ident.strip() if ident.strip().startswith("m-") else "m-" + ident.strip()
    found = [m for m, _, _ in pending_memories(cfg.root, workspace_store(cfg), cfg.target_branch)]
    matching = [m for m in found if m.id.startswith(prefix)]
    return matching[0] if len(matching) == 1 else None


def inspect(cfg: Config | None, home: Path, ident: str) -> Inspection:
    conns = _open_all(cfg, home)
    try:
        try:
            store, memory = resolve_id(conns, ident)
        except HippoError:
            waiting = pending_memory(cfg, ident)
            if waiting is None or cfg is None:
                raise
            store, memory = conns[0][0], waiting
            found: list[dict[str, object]] = []
        else:
            conn = dict((s.name, c) for s, c in conns)[store.name]
            found = [c.as_dict() for c in conflicts_of(conn, store, memory.id)]
    finally:
        _close(conns)
    history, receipts = _history(store, memory.path)
    if not (store.root / memory.path).exists() and store.name == "workspace":
        store = store._replace(name="proposals")
    uconn = usage_db.connect(home)
    try:
        use = usage_db.get_usage(uconn, [memory.id]).get(memory.id, usage_db.Usage())
    finally:
        uconn.close()
    return Inspection(memory, store.name, history, receipts, use.as_dict(), found)


def list_conflicts(cfg: Config | None, home: Path) -> list[Conflict]:
    conns = _open_all(cfg, home)
    try:
        return [c for store, conn in conns for c in find_conflicts(conn, store)]
    finally:
        _close(conns)


def resolve(
    cfg: Config | None, home: Path, ident: str, keep: str, *, forget_loser: bool = False
) -> Resolution:
    """Settle a conflict: keep one memory, reject the other's value for good, and commit that."""
    conns = _open_all(cfg, home)
    try:
        chosen: tuple[Store, Conflict, Memory, Memory] | None = None
        for store, conn in conns:
            try:
                c, kept, loser = pick(find_conflicts(conn, store), ident, keep)
            except HippoError:
                continue
            chosen = (store, c, kept, loser)
            break
    finally:
        _close(conns)
    if chosen is None:
        raise HippoError(
            f"no conflict {ident!r} with a memory {keep!r} in it", hint="`git hippo conflicts` lists them"
        )
    store, c, kept, loser = chosen
    paths = [str(rejected_path(store).relative_to(store.root))]
    if loser.source == "note":
        paths.append(_take_out_statement(store, loser))
        forget_loser = False  # the note stays; only its statement goes
    record_rejected(store, loser, kept)
    if forget_loser:
        store.path(loser.id).unlink(missing_ok=True)
        paths.append(store.rel(loser.id))
    commit_paths(store, paths, f"hippo: resolve {c.id}: keep {kept.id}, reject {loser.id}")
    from hippo_git.git.repo import run_git

    head = run_git(["rev-parse", "HEAD"], cwd=store.root, check=False).stdout.strip() or None
    if loser.source == "note" and store.name == "workspace":
        from hippo_git.notes.notes_index import refresh

        conn = open_index(store)
        try:
            refresh(conn, store.config(), paths[1:])
        finally:
            conn.close()
    edited = loser.path if loser.source == "note" else None
    return Resolution(c.id, kept.id, loser.id, forget_loser, head, edited)


def _take_out_statement(store: Store, loser: Memory) -> str:
    """Keeping a memory over a note: the note's contradicting statement is taken out of it (in the
    same commit that records it as rejected). Refused while the note has uncommitted changes, so
    the commit holds nothing but the resolution."""
    from hippo_git.files import write_text_atomic
    from hippo_git.git.repo import run_git
    from hippo_git.memories.conflicts import without_statement

    note = store.root / loser.path
    if run_git(["status", "--porcelain", "--", loser.path], cwd=store.root).stdout.strip():
        raise HippoError(
            f"{loser.path} has uncommitted changes", hint="commit or stash them, then resolve again"
        )
    try:
        text = note.read_text(encoding="utf-8")
    except OSError as exc:
        raise HippoError(
            f"cannot read {loser.path}: {exc.strerror}", hint="`git hippo conflicts` again"
        ) from exc
    edited = without_statement(text, loser.text)
    if edited is None:
        raise HippoError(
            f"{loser.path} no longer says {loser.text[:60]!r}",
            hint="`git hippo conflicts` lists what is left",
        )
    write_text_atomic(note, edited)
    return loser.path
