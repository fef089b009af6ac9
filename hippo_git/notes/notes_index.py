"""A per-workspace cache of the parsed notes with a full-text index (SQLite FTS5): keeping it
in line with the files, and reading it.

The file and its schema are `notes_db.py`. Each read refreshes the index incrementally: a quick
look (`notes_scan.look`, one `stat` per note compared with the last complete look) answers the
common cases, nothing changed or a few notes edited in place; otherwise a walk compares every
note's (size, mtime) with its row. Only changed notes are read and parsed again, so the
agent-hook path stays fast with thousands of notes. A file changed less than two seconds ago is stored with mtime 0, so a second
write within the same clock tick is still seen on the next refresh.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
import time
from collections.abc import Iterable, Iterator
from contextvars import ContextVar
from typing import NamedTuple

from hippo_git.config import Config
from hippo_git.notes import notes_scan
from hippo_git.notes.notes_db import MIGRATIONS as MIGRATIONS
from hippo_git.notes.notes_db import get_meta as get_meta
from hippo_git.notes.notes_db import index_file as index_file
from hippo_git.notes.notes_db import lint_cache_key as lint_cache_key
from hippo_git.notes.notes_db import open_notes_index as open_notes_index
from hippo_git.notes.notes_db import set_meta as set_meta
from hippo_git.notes.parse import Link, Note, parse_note_text
from hippo_git.notes.resolve import Resolver, link_keys

_RACY_NS = notes_scan.RACY_NS
# meta key set by a complete full refresh, cleared by one a deadline cut short: a refresh of
# named paths (post-merge) builds the whole index first while it is missing.
BUILT_KEY = "built"


class RefreshResult(NamedTuple):
    updated: tuple[str, ...]  # repo-relative paths read again
    removed: tuple[str, ...]
    total: int
    complete: bool = True  # False: a deadline stopped it (or a busy writer); the rest is left for later

    @property
    def changed(self) -> bool:
        return bool(self.updated or self.removed)


def _store(conn: sqlite3.Connection, note: Note, size: int, mtime_ns: int, row_id: int | None) -> None:
    keys = set(link_keys(note.name, note.path, note.title))
    links = json.dumps([[link.target, link.label, link.line] for link in note.links], ensure_ascii=False)
    front = json.dumps(note.front, ensure_ascii=False, default=str)
    values = (note.path, note.name, note.title, size, mtime_ns, front, note.front_error, links)
    if row_id is None:
        cur = conn.execute(
            "INSERT INTO notes(path, name, title, size, mtime_ns, front, front_error, links) VALUES (?,?,?,?,?,?,?,?)",
            values,
        )
        row_id = cur.lastrowid
    else:
        conn.execute(
            "UPDATE notes SET path=?, name=?, title=?, size=?, mtime_ns=?, front=?, front_error=?, links=? WHERE id=?",
            (*values, row_id),
        )
        conn.execute("DELETE FROM notes_fts WHERE rowid = ?", (row_id,))
        conn.execute("DELETE FROM link_keys WHERE path = ?", (note.path,))
    conn.executemany(
        "INSERT INTO link_keys(tbl, key, path) VALUES (?,?,?)",
        [(tbl, key, note.path) for tbl, key in keys],
    )
    names = note.name.removesuffix(".md").replace("/", " ").replace("-", " ").replace("_", " ")
    conn.execute(
        "INSERT INTO notes_fts(rowid, title, names, body) VALUES (?,?,?,?)",
        (row_id, note.title, names, note.body),
    )


# Index files whose full refresh already ran inside the current `one_look()` block.
_LOOKED: ContextVar[dict[str, int] | None] = ContextVar("hippo_notes_looked", default=None)


@contextlib.contextmanager
def one_look() -> Iterator[None]:
    """Inside this block a full refresh of an index that one already brought up to date is not
    repeated: one command (context with its memories, recall over notes and memories) looks at
    the 5,000 note files once, not once per reader of the index. Only for the span of one
    answer: a long-running process (MCP server, web) must see later edits."""
    token = _LOOKED.set({})
    try:
        yield
    finally:
        _LOOKED.reset(token)


def _looked_key(conn: sqlite3.Connection, cfg: Config) -> str | None:
    """The index file and the notes it mirrors; None for an in-memory index (each is new)."""
    row = conn.execute("PRAGMA database_list").fetchone()
    return f"{row[2]}\0{cfg.root}\0{cfg.notes_dir}" if row and row[2] else None


def refresh(
    conn: sqlite3.Connection,
    cfg: Config,
    paths: Iterable[str] | None = None,
    *,
    deadline: float | None = None,
) -> RefreshResult:
    """Bring the index in line with the notes on disk (all of them, or only `paths`).

    A full refresh first compares a manifest of every (path, size, mtime) with the one stored
    by the last full refresh: when equal (the common case) no row is even loaded.

    `deadline` (a `time.monotonic()` instant) bounds the wait: the agent hooks must answer within
    their budget even when the index is new (the first session in a fresh clone of 5,000 notes).
    Past it, the notes read so far are stored and the result says `complete=False`; the next
    refresh goes on from there. A writer busy elsewhere is not waited for past it either.
    """
    looked = _LOOKED.get() if paths is None else None
    key = _looked_key(conn, cfg) if looked is not None else None
    if looked is not None and key is not None and key in looked:
        return RefreshResult((), (), looked[key])
    result = _refresh(conn, cfg, paths, deadline)
    if looked is not None and key is not None and result.complete:
        looked[key] = result.total
    return result


def _refresh(
    conn: sqlite3.Connection, cfg: Config, paths: Iterable[str] | None, deadline: float | None
) -> RefreshResult:
    full = paths is None
    folders: list[notes_scan.Folder] = []
    exact = False
    scope: set[str] | None = None
    known: int | None = None  # the number of notes, when the look tells it
    if paths is None:
        notes_rel = notes_scan.top_rel(cfg)
        seen = notes_scan.look(conn, cfg.root, notes_rel)
        if seen is not None and not (seen.changed or seen.gone or seen.listed):
            return RefreshResult((), (), seen.total)
        if seen is not None:  # only what changed is compared with its row: no walk, no full load
            on_disk, scope, folders, exact = seen.changed, {*seen.changed, *seen.gone}, seen.folders, True
            known = seen.total
        else:
            found = notes_scan.walk(cfg.notes_path, cfg.root)
            on_disk, folders, exact = found.files, found.folders, found.exact
    else:
        on_disk, scope = notes_scan.stat_some(cfg, paths)
    stored = _stored(conn, scope)
    todo = [p for p, stat in on_disk.items() if stored.get(p, (None, None, None))[1:] != stat]
    gone = [p for p in stored if p not in on_disk]
    now = time.time_ns()
    # Only a complete, exact look may stand for "nothing changed" later (recent writes in it are
    # kept with mtime 0, so they are looked at again).
    settled = full and notes_scan.storable(exact)
    if not todo and not gone:
        if full:
            _keep_look(conn, folders if settled else None, notes_rel, now)
        total = known if known is not None else len(stored) if scope is not None else len(on_disk)
        return RefreshResult((), (), total)
    if deadline is not None and not _begin_before(conn, deadline):
        return RefreshResult((), (), known if known is not None else len(stored), complete=False)
    if deadline is None:
        conn.execute("BEGIN IMMEDIATE")
    done: list[str] = []
    try:
        for rel in todo:
            if deadline is not None and time.monotonic() > deadline:
                settled = False  # the stored look would claim notes this refresh never read
                break
            done.append(rel)
            try:
                raw = (cfg.root / rel).read_bytes()
            except OSError:
                gone.append(rel)
                continue
            note = parse_note_text(raw.decode("utf-8", errors="replace"), rel, cfg.notes_dir)
            size, mtime_ns = on_disk[rel]
            row = conn.execute("SELECT id FROM notes WHERE path = ?", (rel,)).fetchone()
            mtime_ns = 0 if now - mtime_ns < _RACY_NS else mtime_ns
            _store(conn, note, size, mtime_ns, row[0] if row else None)
        for rel in gone:
            row = conn.execute("SELECT id FROM notes WHERE path = ?", (rel,)).fetchone()
            if row:
                conn.execute("DELETE FROM notes_fts WHERE rowid = ?", (row[0],))
                conn.execute("DELETE FROM link_keys WHERE path = ?", (rel,))
                conn.execute("DELETE FROM notes WHERE id = ?", (row[0],))
        # Cached lint results describe the old notes; a partial refresh outdates the stored look.
        conn.execute("DELETE FROM meta WHERE key LIKE 'lint:%'")  # lint_facts: by triggers
        if settled:
            notes_scan.store(conn, folders, notes_rel, now)
        else:
            notes_scan.drop(conn)
        if full and len(done) == len(todo):
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (BUILT_KEY,))
        elif full:
            conn.execute("DELETE FROM meta WHERE key = ?", (BUILT_KEY,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    total = conn.execute("SELECT count(*) FROM notes").fetchone()[0]
    return RefreshResult(tuple(done), tuple(gone), total, complete=len(done) == len(todo))


def _stored(conn: sqlite3.Connection, scope: set[str] | None) -> dict[str, tuple[int, int, int]]:
    """path → (row id, size, mtime_ns) of the indexed notes (only those in `scope`, when given)."""
    sql = "SELECT path, id, size, mtime_ns FROM notes"
    if scope is None:
        return {row[0]: (row[1], row[2], row[3]) for row in conn.execute(sql)}
    wanted = sorted(scope)
    out: dict[str, tuple[int, int, int]] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        for row in conn.execute(f"{sql} WHERE path IN ({','.join('?' * len(chunk))})", chunk):
            out[row[0]] = (row[1], row[2], row[3])
    return out


def _keep_look(
    conn: sqlite3.Connection, folders: list[notes_scan.Folder] | None, notes_rel: str, now: int
) -> None:
    """A full look found the index up to date: it is built, and a settled look (`folders`) is
    stored. A busy or read-only cache only costs a walk next time."""
    if folders is None and get_meta(conn, BUILT_KEY) is not None:
        return
    with contextlib.suppress(sqlite3.OperationalError):
        conn.execute("BEGIN IMMEDIATE")
        try:
            conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (BUILT_KEY,))
            if folders is not None:
                notes_scan.store(conn, folders, notes_rel, now)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise


def _begin_before(conn: sqlite3.Connection, deadline: float) -> bool:
    """BEGIN IMMEDIATE, waiting for another writer (a background refresh) only until `deadline`."""
    wait_ms = max(0, int((deadline - time.monotonic()) * 1000))
    conn.execute(f"PRAGMA busy_timeout = {wait_ms}")
    try:
        conn.execute("BEGIN IMMEDIATE")
        return True
    except sqlite3.OperationalError:
        return False
    finally:
        conn.execute("PRAGMA busy_timeout = 10000")


def refresh_notes_index(cfg: Config, paths: Iterable[str] | None = None) -> RefreshResult:
    """Public entry for the post-merge hook: re-read changed notes (`paths` repo-relative).

    When notes changed, the lint counts are recomputed here too, so the next agent session
    start does not pay for it.
    """
    conn = open_notes_index(cfg)
    try:
        if paths is not None and get_meta(conn, BUILT_KEY) is None:
            paths = None  # never fully built (a fresh clone, an interrupted first run): build it all
        result = refresh(conn, cfg, paths)
        if result.changed or get_meta(conn, lint_cache_key(cfg)) is None:
            from hippo_git.notes.lint import lint_counts

            lint_counts(cfg, conn)  # cached: the next agent session start does not pay for it
        return result
    finally:
        conn.close()


def _row_note(row: tuple[str, str, str, int, str, str | None, str]) -> Note:
    path, name, title, size, front, front_error, links = row
    return Note(
        path, name, title, json.loads(front), front_error, tuple(Link(*x) for x in json.loads(links)), size
    )


def _row_note_light(row: tuple[str, str, str, int, str | None, str]) -> Note:
    path, name, title, size, front_error, links = row
    return Note(path, name, title, {}, front_error, tuple(Link(*x) for x in json.loads(links)), size)


_NOTE_COLUMNS = "path, name, title, size, front, front_error, links"


def all_notes(conn: sqlite3.Connection, *, front: bool = True) -> list[Note]:
    """Every indexed note's metadata (no body), sorted by path; `front=False` skips decoding
    front matter (lint needs only its error)."""
    if front:
        return [_row_note(r) for r in conn.execute(f"SELECT {_NOTE_COLUMNS} FROM notes ORDER BY path")]
    sql = "SELECT path, name, title, size, front_error, links FROM notes ORDER BY path"
    return [_row_note_light(r) for r in conn.execute(sql)]


def resolver(conn: sqlite3.Connection) -> Resolver:
    """An in-memory resolver over every note, from the stored link keys (for resolving many links)."""
    return Resolver.from_keys(conn.execute("SELECT tbl, key, path FROM link_keys"))


def notes_by_path(conn: sqlite3.Connection, paths: Iterable[str]) -> dict[str, Note]:
    wanted = list(dict.fromkeys(paths))
    out: dict[str, Note] = {}
    for start in range(0, len(wanted), 500):
        chunk = wanted[start : start + 500]
        marks = ",".join("?" * len(chunk))
        for row in conn.execute(f"SELECT {_NOTE_COLUMNS} FROM notes WHERE path IN ({marks})", chunk):
            out[row[0]] = _row_note(row)
    return out


def search(conn: sqlite3.Connection, match: str, limit: int) -> list[tuple[str, float]]:
    """(path, score) for an FTS5 MATCH expression, best first; score > 0, higher is better."""
    if not match:
        return []
    try:
        rows = conn.execute(
            "SELECT n.path, r.rank FROM (SELECT rowid, bm25(notes_fts, 4.0, 3.0, 1.0) AS rank FROM notes_fts"
            " WHERE notes_fts MATCH ? ORDER BY rank LIMIT ?) r JOIN notes n ON n.id = r.rowid ORDER BY r.rank",
            (match, limit),
        ).fetchall()
    except sqlite3.OperationalError:
        return []
    return [(path, -rank) for path, rank in rows]


class IndexResolver(Resolver):
    """The same resolution as `Resolver`, by indexed lookups: no need to load every note."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        super().__init__()
        self._conn = conn

    def _find(self, table: str, key: str) -> set[str]:
        rows = self._conn.execute(
            "SELECT path FROM link_keys WHERE tbl = ? AND key = ?",
            (table, key),
        )
        return {str(r[0]) for r in rows}
