"""OpenCode's legacy JSON tree (`storage/`), as written before the SQLite database (≤ ~1.1).

Layouts: `session/<projectID>/<sessionID>.json`, `message/<sessionID>/<messageID>.json`,
`part/<messageID>/<partID>.json`; the 0.x tree kept everything under `session/` instead
(`session/info/<sessionID>.json`, `session/message/<sessionID>/…`, `session/part/<sessionID>/<messageID>/…`).
File names are the (time-sortable) ids, so sorting names orders messages and parts.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.transcripts.jsonl import as_dict, as_str
from hippo_git.transcripts.opencode_turns import Message
from hippo_git.transcripts.regular import read_regular

_OLD_DIRS = {"info", "message", "part"}


@dataclass(slots=True)
class StoredSession:
    """A session in OpenCode's legacy JSON tree: its record, message files and change stamp."""

    id: str
    record: dict[str, Any]
    message_files: list[Path]
    stamp: str


@dataclass(slots=True)
class Storage:
    """One `storage/` folder: where its sessions, messages and parts live."""

    root: Path
    sessions: list[StoredSession] = field(default_factory=list)
    flat_parts: dict[str, list[Path]] = field(default_factory=dict)
    old: bool = False

    @classmethod
    def scan(cls, root: Path) -> Storage:
        store = cls(root, old=(root / "session" / "info").is_dir())
        session_files = (
            sorted((root / "session" / "info").glob("*.json"))
            if store.old
            else sorted(p for p in (root / "session").glob("*/*.json") if p.parent.name not in _OLD_DIRS)
        )
        flat = sorted((root / "part").glob("*.json")) if not store.old else []
        flat_stamp = max((p.stat().st_mtime_ns for p in flat), default=0)
        for path in flat:
            record = _load(path)
            if record and isinstance(record.get("messageID"), str):
                store.flat_parts.setdefault(record["messageID"], []).append(path)
        for path in session_files:
            record = _load(path)
            if record is None:
                continue
            session_id = as_str(record.get("id")) or path.stem
            messages = store._message_dir(session_id, path.stem)
            files = sorted(messages.glob("*.json")) if messages else []
            newest = max([path.stat().st_mtime_ns, flat_stamp, *(f.stat().st_mtime_ns for f in files)])
            # File names are the ids in real trees; reading every message just for its id would
            # make the unchanged check as slow as a parse.
            for folder in store._part_dirs(session_id, [f.stem for f in files]):
                newest = max([newest, *(p.stat().st_mtime_ns for p in folder.glob("*.json"))])
            updated = as_dict(record.get("time")).get("updated")
            store.sessions.append(
                StoredSession(session_id, record, files, f"{updated}|{len(files)}|{newest}")
            )
        return store

    def messages(self, session: StoredSession) -> list[Message]:
        out: list[Message] = []
        for path in session.message_files:
            data = _load(path)
            if data is None:
                continue
            message_id = _id_of(path, data)
            part_files: list[Path] = []
            for folder in self._part_dirs(session.id, [message_id, path.stem]):
                part_files.extend(sorted(folder.glob("*.json")))
            part_files.extend(self.flat_parts.get(message_id, []))
            parts = [p for p in (_load(f) for f in part_files) if p is not None]
            out.append((data, parts))
        return out

    def _message_dir(self, session_id: str, stem: str) -> Path | None:
        base = self.root / "session" / "message" if self.old else self.root / "message"
        for name in (session_id, stem):
            if (base / name).is_dir():
                return base / name
        return None

    def _part_dirs(self, session_id: str, message_ids: list[str]) -> list[Path]:
        base = self.root / "session" / "part" / session_id if self.old else self.root / "part"
        return [base / m for m in dict.fromkeys(message_ids) if (base / m).is_dir()]


def is_storage(path: Path) -> bool:
    """A folder laid out like OpenCode's `storage/` (sessions beside their messages)."""
    session = path / "session"
    return session.is_dir() and ((path / "message").is_dir() or (session / "message").is_dir())


def _id_of(path: Path, data: dict[str, Any] | None = None) -> str:
    if data is None:
        data = _load(path) or {}
    value = data.get("id")
    return value if isinstance(value, str) and value else path.stem


def _load(path: Path) -> dict[str, Any] | None:
    try:
        value = json.loads(read_regular(path).decode("utf-8", errors="replace"))
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def group_parts(rows: list[tuple[str, dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
    """Parts keyed by their message id, in the order given."""
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for message_id, part in rows:
        grouped[message_id].append(part)
    return grouped
