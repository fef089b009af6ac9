"""Where memories live and how they are found: the workspace's notes and the personal store.

Memory files are notes, so the notes index (`notes.notes_index`, one per work tree, refreshed by
`stat`) is their index too: one walk of `notes_dir` serves notes and memories, and memories and
notes are ranked by the same BM25 over the same FTS table. The personal store under
`$HIPPO_HOME/global/` is a git repository of its own with its own notes index.
"""

from __future__ import annotations

import json
import re
import sqlite3
from pathlib import Path
from typing import NamedTuple

from hippo_git.config import Config
from hippo_git.errors import HippoError

# The stopwords of `search` over turns: `index/query.py` is light enough for the agent-hook path.
from hippo_git.index.query import STOPWORDS
from hippo_git.memories.record import MEMORIES_FOLDER, Memory, from_front
from hippo_git.notes import notes_index

GLOBAL_FOLDER = "global"


class Store(NamedTuple):
    name: str  # "workspace" | "global"
    root: Path  # work tree root
    notes_dir: str
    home: Path

    @property
    def prefix(self) -> str:
        """Repo-relative folder of the memory files, with a trailing slash."""
        return f"{self.notes_dir}/{MEMORIES_FOLDER}/"

    def rel(self, memory_id: str) -> str:
        return f"{self.prefix}{memory_id}.md"

    def path(self, memory_id: str) -> Path:
        return self.root / self.rel(memory_id)

    def config(self) -> Config:
        return Config(root=self.root, home=self.home, notes_dir=self.notes_dir)


def workspace_store(cfg: Config) -> Store:
    return Store("workspace", cfg.root, cfg.notes_dir, cfg.home)


def global_store(home: Path) -> Store:
    return Store("global", home / GLOBAL_FOLDER, "notes", home)


def ensure_global_repo(store: Store) -> None:
    """Create the personal store as a git repository on first use."""
    from hippo_git.git.repo import run_git

    if (store.root / ".git").exists():
        return
    store.root.mkdir(parents=True, exist_ok=True)
    run_git(["init", "-q", "-b", "main"], cwd=store.root)


def open_index(store: Store) -> sqlite3.Connection:
    """The store's notes index, brought up to date with the files on disk."""
    cfg = store.config()
    conn = notes_index.open_notes_index(cfg)
    if store.root.exists():
        notes_index.refresh(conn, cfg)
    return conn


_BODY_SQL = "SELECT n.path, n.front, f.body FROM notes n JOIN notes_fts f ON f.rowid = n.id"


def _memory(row: tuple[str, str, str]) -> Memory:
    path, front, body = row
    data = json.loads(front)
    return from_front(data if isinstance(data, dict) else {}, body, path)


def _in_folder(prefix: str) -> tuple[str, str]:
    return prefix, prefix[:-1] + chr(ord("/") + 1)


def all_memories(conn: sqlite3.Connection, store: Store) -> list[Memory]:
    low, high = _in_folder(store.prefix)
    rows = conn.execute(f"{_BODY_SQL} WHERE n.path >= ? AND n.path < ? ORDER BY n.path", (low, high))
    return [m for m in map(_memory, rows) if m.kind != "forgotten"]


def note_bodies(conn: sqlite3.Connection, store: Store) -> list[tuple[str, str]]:
    """(path, body) of every note that is not one of the store's memories."""
    low, high = _in_folder(store.prefix)
    sql = "SELECT n.path, f.body FROM notes n JOIN notes_fts f ON f.rowid = n.id WHERE n.path < ? OR n.path >= ?"
    return [(path, body or "") for path, body in conn.execute(sql, (low, high))]


def get_memory(conn: sqlite3.Connection, store: Store, memory_id: str) -> Memory | None:
    row = conn.execute(f"{_BODY_SQL} WHERE n.path = ?", (store.rel(memory_id),)).fetchone()
    return None if row is None else _memory(row)


def find_by_prefix(conn: sqlite3.Connection, store: Store, prefix: str) -> list[Memory]:
    """Memories whose id starts with `prefix` (a full id, or enough of one to be unique)."""
    low = store.prefix + prefix
    rows = conn.execute(f"{_BODY_SQL} WHERE n.path >= ? AND n.path < ?", (low, low + "\U0010ffff"))
    return [m for m in (_memory(r) for r in rows if r[0].endswith(".md")) if m.kind != "forgotten"]


def neighbour_sql(count: int) -> str:
    """The query for `count` (origin, seq) pairs, then the folder's path range. CROSS JOIN keeps
    the pairs as the outer loop, one probe each of the (origin, seq) index: left to itself the
    planner scans the folder's paths and reads every memory's front matter."""
    return (
        f"WITH want(o, s) AS (VALUES {','.join(['(?, ?)'] * count)})"
        " SELECT n.path, n.front, f.body FROM want CROSS JOIN notes n"
        " ON json_extract(n.front, '$.origin') = want.o AND json_extract(n.front, '$.seq') = want.s"
        " JOIN notes_fts f ON f.rowid = n.id WHERE n.path >= ? AND n.path < ?"
    )


def neighbours(
    conn: sqlite3.Connection, store: Store, places: set[tuple[str, int]]
) -> list[tuple[Memory, str]]:
    """(memory, front JSON) of the memories at the given (origin, seq) places."""
    if not places:
        return []
    low, high = _in_folder(store.prefix)
    pairs = sorted(places)
    out = []
    for row in conn.execute(neighbour_sql(len(pairs)), (*(v for pair in pairs for v in pair), low, high)):
        memory = _memory(row)
        if memory.kind != "forgotten":
            out.append((memory, row[1]))
    return out


# A match holding only some of the query's words keeps this share of its BM25 score; one holding
# all of them keeps all of it. Tuned on the LoCoMo dev set (bench/memories.py): 0.35 beats both
# plain BM25 and search's "all words first, then any" at @5 and @10, and equals them at @25/@50.
COVERAGE_FLOOR = 0.35
_TERM = re.compile(r"\w+")


def stems(text: str) -> set[str]:
    """Words of `text` that are not stopwords, cut to five letters (a cheap stand-in for stemming)."""
    return {w[:5] for w in _TERM.findall(text.lower()) if w not in STOPWORDS}


def any_word_query(query: str) -> str:
    """The FTS5 expression matching any meaningful word of `query` (each token quoted, so
    punctuation and FTS5 operators in it are just text)."""
    tokens = [t for t in query.split() if _TERM.search(t)]
    meaningful = [t for t in tokens if t.lower().strip("\"'?.,!;:()") not in STOPWORDS] or tokens
    unique: dict[str, str] = {}
    for token in meaningful:
        unique.setdefault(token.lower(), token)
    return " OR ".join('"' + t.replace('"', '""') + '"' for t in unique.values())


def search(
    conn: sqlite3.Connection, store: Store, query: str, limit: int, *, memories: bool = True
) -> list[tuple[str, float, str, str, str]]:
    """(path, score > 0, front JSON, body, title) of the memories (or, `memories=False`, the
    other notes) matching any word of the query, best first: BM25 weighted by the share of the
    query's words the item holds."""
    match = any_word_query(query)  # the words `search` over turns looks for
    if not match:
        return []
    low, high = _in_folder(store.prefix)
    where = "n.path >= ? AND n.path < ?" if memories else "(n.path < ? OR n.path >= ?)"
    # Nothing of the kind (no memories among 5,000 notes, or only memories): no need to rank
    # every match of the query only to find none of them kind.
    if conn.execute(f"SELECT 1 FROM notes n WHERE {where} LIMIT 1", (low, high)).fetchone() is None:
        return []
    # Bodies are read for the winners only: reading them for every match costs more than ranking.
    sql = (
        "SELECT w.path, w.rank, w.front, (SELECT body FROM notes_fts WHERE rowid = w.id), w.title FROM"
        " (SELECT n.id, n.path, r.rank, n.front, n.title FROM (SELECT rowid, bm25(notes_fts, 4.0, 3.0, 1.0)"
        " AS rank FROM notes_fts WHERE notes_fts MATCH ?) r JOIN notes n ON n.id = r.rowid"
        f" WHERE {where} ORDER BY r.rank LIMIT ?) w ORDER BY w.rank"
    )
    try:
        rows = conn.execute(sql, (match, low, high, limit)).fetchall()
    except sqlite3.OperationalError:
        return []
    wanted = stems(query)
    scored = []
    for path, rank, front, body, title in rows:
        coverage = len(wanted & stems(f"{title} {body}")) / len(wanted) if wanted else 1.0
        weight = COVERAGE_FLOOR + (1 - COVERAGE_FLOOR) * coverage
        scored.append((path, max(-rank, 1e-9) * weight, front, body, title))
    scored.sort(key=lambda r: -r[1])
    return scored


def resolve_id(conns: list[tuple[Store, sqlite3.Connection]], prefix: str) -> tuple[Store, Memory]:
    """The one memory `prefix` names across the stores; a one-line error when none or several do."""
    prefix = prefix.strip()
    if not prefix.startswith("m-"):
        prefix = "m-" + prefix
    found = [(store, m) for store, conn in conns for m in find_by_prefix(conn, store, prefix)]
    exact = [(s, m) for s, m in found if m.id == prefix]
    if len(exact) >= 1:
        return exact[0]
    if not found:
        raise HippoError(
            f"no memory with id {prefix!r}", hint="`git hippo recall WORDS` lists memories with their ids"
        )
    if len(found) > 1:
        raise HippoError(
            f"{prefix!r} names {len(found)} memories: {', '.join(m.id for _, m in found[:5])}",
            hint="give more of the id",
        )
    return found[0]
