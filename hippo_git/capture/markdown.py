"""The extra Markdown folders of a workspace (`capture.markdown_dirs`), kept searchable.

They are not notes (nothing lints, links or dreams over them; a dream never edits them), so they
get a small full-text index of their own beside the notes index:
`$HIPPO_HOME/markdown/<hash of the worktree root>.sqlite`, a cache and never the truth. A refresh
costs one `stat` per file and reads again only files whose (size, mtime) changed; a file changed
within the last two seconds is stored with mtime 0, so a second write in the same clock tick is
still seen. The watcher refreshes it when a file in those folders changes (with the notes), and
`ingest` and `search` refresh it too, so it is current with or without the watcher.
"""

from __future__ import annotations

import os
import re
import sqlite3
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.config import Config

_RACY_NS = 2_000_000_000
_HEADING = re.compile(r"^#\s+(.+?)\s*#*\s*$", re.MULTILINE)
SNIPPET_TOKENS = 24

MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "0001_documents",
        (
            """CREATE TABLE documents(
                id INTEGER PRIMARY KEY,
                path TEXT NOT NULL UNIQUE,
                title TEXT NOT NULL,
                size INTEGER NOT NULL,
                mtime_ns INTEGER NOT NULL
            )""",
            "CREATE VIRTUAL TABLE documents_fts USING fts5(title, body, tokenize='porter unicode61')",
        ),
    ),
)


@dataclass
class MarkdownRefresh:
    """What a refresh of the extra Markdown folders read again, dropped, and how many documents remain."""

    updated: list[str] = field(default_factory=list)  # repo-relative paths read again
    removed: list[str] = field(default_factory=list)
    total: int = 0


@dataclass(frozen=True)
class DocumentHit:
    """A search hit in an extra Markdown document: its path, title, snippet and score."""

    path: str  # repo-relative
    title: str
    snippet: str
    score: float  # higher is better; comparable only among documents
    kind: str = "markdown"

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def index_path(cfg: Config) -> Path:
    from hippo_git.notes.notes_index import index_file

    return cfg.home / "markdown" / index_file(cfg).name  # the same per-worktree name as the notes'


def _connect(path: Path) -> sqlite3.Connection:
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(str(path), timeout=10.0, isolation_level=None)
    try:
        conn.execute("PRAGMA busy_timeout = 10000")
        conn.execute("PRAGMA journal_mode = WAL")
        conn.execute("CREATE TABLE IF NOT EXISTS migrations(name TEXT PRIMARY KEY, applied TEXT NOT NULL)")
        done = {row[0] for row in conn.execute("SELECT name FROM migrations")}
        for name, statements in MIGRATIONS:
            if name in done:
                continue
            conn.execute("BEGIN IMMEDIATE")
            for statement in statements:
                conn.execute(statement)
            conn.execute("INSERT INTO migrations VALUES (?, datetime('now'))", (name,))
            conn.execute("COMMIT")
    except BaseException:
        conn.close()
        raise
    return conn


def open_index(cfg: Config) -> sqlite3.Connection:
    """Open (rebuilding a damaged cache from the files) this workspace's Markdown index."""
    path = index_path(cfg)
    try:
        return _connect(path)
    except sqlite3.DatabaseError:
        from hippo_git.index.db import remove_database

        remove_database(path)
        return _connect(path)


def _walk(cfg: Config) -> dict[str, tuple[int, int]]:
    """Repo-relative path → (size, mtime_ns) of every visible `.md` file in the Markdown folders."""
    found: dict[str, tuple[int, int]] = {}
    root = str(cfg.root)
    for folder in cfg.capture.markdown_dirs:
        top = os.path.normpath(os.path.join(root, folder))
        if top != root and not top.startswith(root + os.sep):
            continue  # config validation keeps folders inside the repository; stay inside anyway
        for dirpath, dirnames, filenames in os.walk(top):
            dirnames[:] = [d for d in dirnames if not d.startswith(".")]
            for name in filenames:
                if name.startswith(".") or not name.endswith(".md"):
                    continue
                full = os.path.join(dirpath, name)
                try:
                    st = os.stat(full)
                except OSError:
                    continue
                found[os.path.relpath(full, root).replace(os.sep, "/")] = (st.st_size, st.st_mtime_ns)
    return found


def _title(text: str, rel: str) -> str:
    match = _HEADING.search(text)
    return match.group(1) if match else Path(rel).stem


def refresh(cfg: Config) -> MarkdownRefresh:
    """Bring the index in step with the Markdown folders; one transaction."""
    result = MarkdownRefresh()
    if not cfg.capture.markdown_dirs and not index_path(cfg).exists():
        return result
    on_disk = _walk(cfg)
    result.total = len(on_disk)
    conn = open_index(cfg)
    try:
        known = {
            p: (i, s, m) for i, p, s, m in conn.execute("SELECT id, path, size, mtime_ns FROM documents")
        }
        now = time.time_ns()
        conn.execute("BEGIN IMMEDIATE")
        try:
            for rel in sorted(set(known) - set(on_disk)):
                conn.execute("DELETE FROM documents_fts WHERE rowid = ?", (known[rel][0],))
                conn.execute("DELETE FROM documents WHERE id = ?", (known[rel][0],))
                result.removed.append(rel)
            for rel, (size, mtime) in sorted(on_disk.items()):
                row = known.get(rel)
                if row is not None and (row[1], row[2]) == (size, mtime):
                    continue
                try:
                    text = (cfg.root / rel).read_text(encoding="utf-8", errors="replace")
                except OSError:
                    continue  # gone meanwhile: the next refresh settles it
                stored = 0 if now - mtime < _RACY_NS else mtime
                title = _title(text, rel)
                if row is not None:
                    conn.execute("DELETE FROM documents_fts WHERE rowid = ?", (row[0],))
                    conn.execute(
                        "UPDATE documents SET title = ?, size = ?, mtime_ns = ? WHERE id = ?",
                        (title, size, stored, row[0]),
                    )
                    doc_id = row[0]
                else:
                    cur = conn.execute(
                        "INSERT INTO documents(path, title, size, mtime_ns) VALUES (?, ?, ?, ?)",
                        (rel, title, size, stored),
                    )
                    doc_id = int(cur.lastrowid or 0)
                conn.execute(
                    "INSERT INTO documents_fts(rowid, title, body) VALUES (?, ?, ?)", (doc_id, title, text)
                )
                result.updated.append(rel)
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
    finally:
        conn.close()
    return result


def search(
    cfg: Config, query: str, *, limit: int = 20, fts: bool = False, marks: tuple[str, str] = ("«", "»")
) -> list[DocumentHit]:
    """Documents of the Markdown folders matching `query` (plain words, or FTS5 with `fts`), best
    first; refreshed first, so a file saved a moment ago is found."""
    from hippo_git.index.query import query_terms

    if not cfg.capture.markdown_dirs or limit <= 0:
        return []
    refresh(cfg)
    expression = query if fts else query_terms(query).expression()
    if not expression:
        return []
    conn = open_index(cfg)
    try:
        rows = conn.execute(
            "SELECT d.path, d.title, snippet(documents_fts, 1, ?, ?, ' … ', ?), bm25(documents_fts, 4.0, 1.0)"
            " FROM documents_fts JOIN documents d ON d.id = documents_fts.rowid"
            " WHERE documents_fts MATCH ? ORDER BY 4 LIMIT ?",
            (*marks, SNIPPET_TOKENS, expression, limit),
        ).fetchall()
    except sqlite3.OperationalError:
        return []  # an FTS5 expression the Markdown index cannot run: the turns' search says why
    finally:
        conn.close()
    return [DocumentHit(path, title, snippet, -rank) for path, title, snippet, rank in rows]
