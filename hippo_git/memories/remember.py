"""`remember`: a person's memory, written to the work tree and staged (or to the personal store).

A memory that repeats one already kept (same normalised text, or near-duplicate words) is
reported and not written twice; one whose value was rejected when a conflict was resolved is
refused, so it cannot come back.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from hippo_git.files import write_text_atomic
from hippo_git.memories.record import (
    NEAR_DUPLICATE,
    Memory,
    negates,
    normalise,
    render,
    similarity,
)
from hippo_git.memories.store import Store, all_memories, ensure_global_repo, get_memory, open_index, search

REJECTED_FILE = "rejected.jsonl"
DUPLICATE_CANDIDATES = 20


@dataclass(frozen=True)
class Remembered:
    """The outcome of `remember`: the memory written, or the duplicate or reason that stopped it."""

    memory: Memory
    status: str  # written | duplicate | near-duplicate | rejected
    store: str
    path: str  # repo-relative path of the memory file (of the duplicate, when not written)
    duplicate_of: str | None = None
    similarity: float = 0.0

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.memory.id,
            "status": self.status,
            "store": self.store,
            "path": self.path,
            "duplicate_of": self.duplicate_of,
            "similarity": round(self.similarity, 3),
            "memory": self.memory.as_dict(),
        }


def rejected_path(store: Store) -> Path:
    return store.root / store.prefix / REJECTED_FILE


def rejected_values(store: Store) -> list[dict[str, str]]:
    """The values a resolved conflict rejected (shared through git, one JSON object per line)."""
    try:
        text = rejected_path(store).read_text(encoding="utf-8")
    except OSError:
        return []
    out: list[dict[str, str]] = []
    for line in text.splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and isinstance(item.get("text"), str):
            out.append({str(k): str(v) for k, v in item.items()})
    return out


def was_rejected(store: Store, text: str) -> dict[str, str] | None:
    norm = normalise(text)
    for item in rejected_values(store):
        if normalise(item["text"]) == norm or similarity(item["text"], text) >= NEAR_DUPLICATE:
            return item
    return None


def rejected_in(root: Path, notes_dir: str, text: str) -> str | None:
    """The rejected value (of a resolved conflict in this workspace) that `text` holds, or None:
    how a dream's proposal is kept from bringing one back."""
    path = root / notes_dir / "memories" / REJECTED_FILE
    if not path.exists():
        return None
    store = Store("workspace", root, notes_dir, root)
    norm = normalise(text)
    lines = [normalise(line) for line in text.splitlines() if line.strip()]
    for item in rejected_values(store):
        value = normalise(item["text"])
        if value and (value in norm or any(similarity(value, line) >= NEAR_DUPLICATE for line in lines)):
            return item["text"]
    return None


def find_duplicate(conn: sqlite3.Connection, store: Store, memory: Memory) -> tuple[Memory, float] | None:
    """The kept memory that says the same as `memory` (exactly, or nearly), or None."""
    same = get_memory(conn, store, memory.id)
    if same is not None:
        return same, 1.0
    norm = normalise(memory.text)
    best: tuple[Memory, float] | None = None
    for path, _, _, body, _ in search(conn, store, memory.text, DUPLICATE_CANDIDATES):
        if normalise(body) == norm:
            return get_memory(conn, store, path.rsplit("/", 1)[-1][:-3]) or memory, 1.0
        score = similarity(body, memory.text)
        if score >= NEAR_DUPLICATE and negates(body, memory.text):
            continue  # "never X" beside "X" is a conflict, not a repeat
        if score >= NEAR_DUPLICATE and (best is None or score > best[1]):
            found = get_memory(conn, store, path.rsplit("/", 1)[-1][:-3])
            if found is not None:
                best = (found, score)
    return best


def check_new(conn: sqlite3.Connection, store: Store, memory: Memory) -> Remembered | None:
    """A report when `memory` must not be written (duplicate or rejected), else None."""
    rejected = was_rejected(store, memory.text)
    if rejected is not None:
        return Remembered(memory, "rejected", store.name, "", rejected.get("id"), 1.0)
    dup = find_duplicate(conn, store, memory)
    if dup is not None:
        found, score = dup
        status = "duplicate" if score >= 1.0 else "near-duplicate"
        return Remembered(memory, status, store.name, found.path, found.id, score)
    return None


def remember(store: Store, memory: Memory, *, stage: bool = True) -> Remembered:
    """Write `memory` into `store` unless it repeats a kept or rejected one.

    Workspace: the file lands in the work tree and is staged (the person commits it, and the
    pre-commit checks run then). Personal store: the file is committed there at once.
    """
    if store.name == "global":
        ensure_global_repo(store)
    conn = open_index(store)
    try:
        refused = check_new(conn, store, memory)
        if refused is not None:
            return refused
        write_memory(store, memory)
        # Seen at once by the next recall, even within the same clock tick.
        from hippo_git.notes.notes_index import refresh

        refresh(conn, store.config(), [store.rel(memory.id)])
    finally:
        conn.close()
    if store.name == "global":
        commit_paths(store, [store.rel(memory.id)], f"hippo: remember {memory.id}")
    elif stage:
        stage_paths(store, [store.rel(memory.id)])
    return Remembered(memory._replace(path=store.rel(memory.id)), "written", store.name, store.rel(memory.id))


def write_memory(store: Store, memory: Memory) -> None:
    write_text_atomic(store.path(memory.id), render(memory._replace(path=store.rel(memory.id))))


def stage_paths(store: Store, paths: list[str]) -> None:
    from hippo_git.git.repo import run_git

    run_git(["add", "-A", "--", *paths], cwd=store.root)


def commit_paths(store: Store, paths: list[str], message: str) -> None:
    """Commit `paths` in the personal store (which nobody else writes to)."""
    from hippo_git.git.repo import config_get, run_git

    ident: list[str] = []
    if not config_get(store.root, "user.email"):
        ident = ["-c", "user.name=hippo_git", "-c", "user.email=hippo@localhost"]
    run_git(["add", "-A", "--", *paths], cwd=store.root)
    # A file staged but never committed and now removed is simply gone: nothing to commit for it.
    staged = run_git(["diff", "--cached", "--name-only", "-z", "--", *paths], cwd=store.root).stdout
    changed = [p for p in staged.split("\0") if p]
    if changed:
        run_git([*ident, "commit", "-q", "-m", message, "--", *changed], cwd=store.root)


def list_all(store: Store) -> list[Memory]:
    conn = open_index(store)
    try:
        return all_memories(conn, store)
    finally:
        conn.close()
