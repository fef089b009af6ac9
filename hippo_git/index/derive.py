"""Derived session records: which indexed sessions belong to this workspace, and their records.

A session belongs when it ran in the repository's folder or one of its worktrees, or when it
read, edited or cited one of the workspace's notes (by path, or by a `[[link]]` that resolves to
a note). For those, ingest keeps `.hippo/sessions/<id>.json` up to date; records it wrote earlier
for sessions that no longer belong are removed. Declared records are never touched.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hippo_git.config import Config
from hippo_git.index.records import (
    DERIVED,
    RECORD_VERSION,
    TASK_CHARS,
    is_declared,
    read_record,
    read_records,
    record_path,
    write_record_dict,
)
from hippo_git.index.workspace import Workspace, load_workspace, prefix_range


@dataclass
class RecordStats:
    """Counts of the session records a derive wrote, removed, left unchanged or left as declared."""

    written: int = 0
    removed: int = 0
    unchanged: int = 0
    declared: int = 0  # belonging sessions whose record is declared (left alone)


@dataclass(frozen=True)
class NoteSet:
    """The workspace's notes, for resolving `[[links]]`: by lower-case stem and by path in notes_dir."""

    by_key: dict[str, tuple[str, ...]]  # key → repo-relative note paths

    @classmethod
    def scan(cls, ws: Workspace) -> NoteSet:
        folder = ws.root / ws.notes_dir
        keys: dict[str, list[str]] = {}
        for dirpath, dirs, files in os.walk(folder):
            dirs[:] = [d for d in dirs if not d.startswith(".")]
            for name in files:
                if not name.endswith(".md") or name.startswith("."):
                    continue
                full = os.path.join(dirpath, name)
                in_notes = os.path.relpath(full, folder).replace(os.sep, "/")
                rel = f"{ws.notes_dir}/{in_notes}"
                for key in {name[:-3].lower(), in_notes[:-3].lower(), in_notes.lower()}:
                    keys.setdefault(key, []).append(rel)
        return cls({k: tuple(sorted(set(v))) for k, v in keys.items()})

    def resolve(self, target: str) -> tuple[str, ...]:
        return self.by_key.get(target.strip().lower(), ())


def belonging_sessions(conn: sqlite3.Connection, ws: Workspace, notes: NoteSet) -> set[str]:
    """Ids of the indexed sessions that belong to the workspace."""
    found: set[str] = set()
    for prefix in ws.prefixes:
        lo, hi = prefix_range(prefix)
        found.update(
            r[0]
            for r in conn.execute(
                "SELECT id FROM sessions WHERE cwd = ? OR (cwd >= ? AND cwd < ?)", (prefix, lo, hi)
            )
        )
    for prefix in ws.notes_prefixes:
        lo, hi = prefix_range(prefix)
        found.update(
            r[0]
            for r in conn.execute(
                "SELECT session_id FROM session_paths WHERE path >= ? AND path < ?", (lo, hi)
            )
        )
        found.update(
            r[0]
            for r in conn.execute(
                "SELECT session_id FROM session_mentions WHERE target >= ? AND target < ? AND kind = 'path'",
                (lo, hi),
            )
        )
    cited: dict[str, str | None] = {}
    for sid, target, cwd in conn.execute(
        "SELECT m.session_id, m.target, s.cwd FROM session_mentions m JOIN sessions s ON s.id = m.session_id"
        " WHERE m.kind = 'link'"
    ):
        if sid not in found and notes.resolve(target):
            cited[sid] = cwd
    found.update(sid for sid, cwd in cited.items() if not _in_other_workspace(cwd, ws))
    return found


def _in_other_workspace(cwd: str | None, ws: Workspace) -> bool:
    """A `[[link]]` written in another hippo workspace names that workspace's notes, not ours."""
    if not cwd or not os.path.isabs(cwd):
        return False
    folder = Path(cwd)
    for candidate in (folder, *folder.parents):
        if (candidate / ".hippo" / "hippo.toml").is_file():
            return not ws.contains_cwd(str(candidate))
    return False


def derive_record(conn: sqlite3.Connection, sid: str, ws: Workspace, notes: NoteSet) -> dict[str, Any] | None:
    row = conn.execute(
        "SELECT id, harness, started, ended, cwd, title, turns FROM sessions WHERE id = ?", (sid,)
    ).fetchone()
    if row is None:
        return None
    _, harness, started, ended, cwd, title, turns = row
    first = conn.execute(
        "SELECT text FROM turns WHERE session_id = ? AND kind = 'prompt' ORDER BY seq LIMIT 1", (sid,)
    ).fetchone()
    task = None
    if first is not None:
        text = " ".join(first[0].split())
        task = text if len(text) <= TASK_CHARS else text[: TASK_CHARS - 1] + "…"
    touched: set[str] = set()
    edited: set[str] = set()
    for path, was_edited in conn.execute(
        "SELECT path, edited FROM session_paths WHERE session_id = ?", (sid,)
    ):
        rel = ws.relative(path, cwd)
        if rel is None:
            continue
        if ws.is_note(rel):
            touched.add(rel)
        if was_edited:
            edited.add(rel)
    for target, kind in conn.execute(
        "SELECT target, kind FROM session_mentions WHERE session_id = ?", (sid,)
    ):
        if kind == "link":
            touched.update(notes.resolve(target))
        else:
            rel = ws.relative(target, cwd)
            if (rel is None or not ws.is_note(rel)) and not os.path.isabs(target):
                # Agents name notes repository-relative ("notes/x.md") whatever folder they are in.
                rel = os.path.normpath(target).replace(os.sep, "/")
                if not (ws.root / rel).is_file():
                    rel = None
            if rel is not None and ws.is_note(rel):
                touched.add(rel)
    return {
        "version": RECORD_VERSION,
        "kind": DERIVED,
        "id": sid,
        "harness": harness,
        "started": started,
        "ended": ended,
        "cwd": cwd,
        "title": title,
        "task": task,
        "notes_touched": sorted(touched),
        "files_edited": sorted(edited),
        "handoff": None,
        "turns": turns,
    }


def sync_records(conn: sqlite3.Connection, cfg: Config) -> RecordStats:
    """Write the derived records of belonging sessions; remove stale derived ones."""
    ws = load_workspace(cfg)
    notes = NoteSet.scan(ws)
    stats = RecordStats()
    belong = belonging_sessions(conn, ws, notes)
    for sid in sorted(belong):
        existing = read_record(cfg.root, sid)
        if is_declared(existing):
            stats.declared += 1
            continue
        if existing is not None and existing.get("kind") != DERIVED:
            continue  # not a record we wrote: leave it alone
        record = derive_record(conn, sid, ws, notes)
        if record is None:
            continue
        if existing == record:
            stats.unchanged += 1
            continue
        write_record_dict(cfg.root, record)
        stats.written += 1
    for data in read_records(cfg.root):
        sid = data["id"]
        if data.get("kind") != DERIVED or sid in belong:
            continue
        if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (sid,)).fetchone() is None:
            continue  # not in this index (yet, or any more): nothing says it stopped belonging
        try:
            record_path(cfg.root, sid).unlink()
            stats.removed += 1
        except FileNotFoundError:
            pass
    return stats
