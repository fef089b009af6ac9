"""Declared sessions: `git hippo session start|end` and the agent hooks write them.

A record is `.hippo/sessions/<id, with / as ~>.json` (per person, never committed), in the same
shape as the derived records ingest writes, with `kind: "declared"`; ingest never overwrites a
declared record. Written as plain dicts, atomically: session start and end run from agent hooks,
which must not import pydantic.
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippo_git.config import Config
from hippo_git.errors import HippoError, UsageError
from hippo_git.notes.parse import link_targets

# The same folder as `hippo_git.index.records.RECORDS_DIR`: that module (and its tempfile import,
# ~5 ms) is loaded only to write records, never to read the recent ones on the hook path.
RECORDS_DIR = Path(".hippo") / "sessions"


def sessions_dir(root: Path) -> Path:
    return root / RECORDS_DIR


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and isinstance(data.get("id"), str) else None


def _when(record: dict[str, Any]) -> str:
    return str(record.get("ended") or record.get("started") or "")


def recent_records(root: Path, limit: int = 3, scan: int = 24) -> list[dict[str, Any]]:
    """The newest session records in this workspace, newest first.

    Only the `scan` most recently written files are read (by mtime), so a workspace with
    thousands of ingested sessions costs one directory listing plus a few small reads.
    """
    try:
        with os.scandir(sessions_dir(root)) as entries:
            files = [
                (e.stat().st_mtime_ns, e.path)
                for e in entries
                if e.name.endswith(".json") and not e.name.startswith(".")
            ]
    except OSError:
        return []
    files.sort(reverse=True)
    found = [r for _, p in files[:scan] if (r := _read(Path(p))) is not None]
    found.sort(key=_when, reverse=True)
    return found[:limit]


def _all_records(root: Path) -> list[dict[str, Any]]:
    try:
        with os.scandir(sessions_dir(root)) as entries:
            paths = [Path(e.path) for e in entries if e.name.endswith(".json") and not e.name.startswith(".")]
    except OSError:
        return []
    return [r for p in paths if (r := _read(p)) is not None]


def open_declared(root: Path) -> list[dict[str, Any]]:
    """Declared sessions not ended yet, newest start first."""
    found = [r for r in _all_records(root) if r.get("kind") == "declared" and not r.get("ended")]
    found.sort(key=lambda r: str(r.get("started") or ""), reverse=True)
    return found


def _redacted(text: str | None, limit: int | None = None) -> str | None:
    """Task and handoff text as records keep it: secrets redacted (as in the index), cut to `limit`."""
    if text is None or not text.strip():
        return None
    from hippo_git.transcripts.redact import Redactor  # ~15 ms: only when there is text

    clean = Redactor().redact(text.strip())
    return clean if limit is None or len(clean) <= limit else clean[: limit - 1] + "…"


def new_session_id() -> str:
    return "hippo-" + datetime.now(UTC).strftime("%Y%m%dT%H%M%S") + "-" + os.urandom(3).hex()


def _check_id(session_id: str) -> str:
    session_id = session_id.strip()
    if (
        not session_id
        or session_id.startswith(".")
        or "\\" in session_id
        or "\0" in session_id
        or ".." in session_id
    ):
        raise UsageError(f"not a usable session id: {session_id!r}", hint="use letters, digits, - _ : / only")
    return session_id


def start_session(
    cfg: Config,
    task: str | None,
    session_id: str | None = None,
    harness: str | None = None,
    context_bytes: int | None = None,
) -> dict[str, Any]:
    """Write (or reopen) a declared session record; returns it. Idempotent for a known id.

    Starting an id that ingest already derived turns that record into a declared one, keeping
    what ingest found (turns, files, prompts).
    """
    from hippo_git.index import records

    session_id = _check_id(session_id) if session_id else new_session_id()
    existing = records.read_record(cfg.root, session_id) or {}
    record: dict[str, Any] = {
        "version": records.RECORD_VERSION,
        "kind": records.DECLARED,
        "id": session_id,
        "harness": harness or existing.get("harness"),
        "started": existing.get("started") or now_iso(),
        "ended": None,
        "cwd": existing.get("cwd") or str(cfg.root),
        "title": existing.get("title"),
        "task": _redacted(task, records.TASK_CHARS) or existing.get("task"),
        "notes_touched": list(existing.get("notes_touched") or []),
        "files_edited": list(existing.get("files_edited") or []),
        "handoff": existing.get("handoff"),
        "turns": int(existing.get("turns") or 0),
        "context_bytes": context_bytes if context_bytes is not None else existing.get("context_bytes"),
        "prompts": list(existing.get("prompts") or []),
    }
    records.write_record_dict(cfg.root, record)
    return record


def _touched_paths(cfg: Config, targets: list[str]) -> list[str]:
    """Handoff link targets as note paths where they resolve uniquely; the raw target otherwise."""
    if not targets:
        return []
    from hippo_git.notes import notes_index

    conn = notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        resolver = notes_index.IndexResolver(conn)
        return [resolver.resolve(t).path or t for t in targets]
    finally:
        conn.close()


def end_session(cfg: Config, session_id: str | None = None, handoff: str | None = None) -> dict[str, Any]:
    """End a declared session (by default the newest open one here), recording the handoff.

    The handoff's `[[links]]` are added to `notes_touched`. Ending an ended session again only
    updates its handoff.
    """
    from hippo_git.index import records

    if session_id:
        session_id = _check_id(session_id)
        record = records.read_record(cfg.root, session_id)
        if record is None:
            raise HippoError(
                f"no session record {session_id!r} in {sessions_dir(cfg.root)}",
                hint="`git hippo session start` prints the id of a new session",
            )
    else:
        opened = open_declared(cfg.root)
        if not opened:
            raise HippoError(
                "no open declared session in this workspace",
                hint="start one with `git hippo session start`, or name one with --id",
            )
        record = opened[0]
    record = dict(record)
    record["kind"] = records.DECLARED
    record["version"] = records.RECORD_VERSION
    record["ended"] = record.get("ended") or now_iso()
    if handoff is not None:
        record["handoff"] = _redacted(handoff)
        touched = list(record.get("notes_touched") or [])
        for path in _touched_paths(cfg, link_targets(handoff)):
            if path not in touched:
                touched.append(path)
        record["notes_touched"] = touched
    records.write_record_dict(cfg.root, record)
    return record
