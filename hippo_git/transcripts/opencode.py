"""OpenCode: the SQLite `opencode.db` and the legacy JSON `storage/` tree (FORMATS.md §3).

Both are databases rather than growing files, so every read returns whole sessions
(mode "replace") and skips the unchanged ones: the cursor keeps each session's change stamp
(`time_updated` plus its messages' count and newest update) and a session whose stamp has not
moved is not read again. The database is opened read-only (`mode=ro`, falling back to
`immutable=1`), so a running OpenCode is never disturbed. A `storage/` tree left beside a
database after OpenCode migrated it holds the same sessions, so it is skipped in favour of the
database.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hippo_git.transcripts.jsonl import connect_readonly
from hippo_git.transcripts.model import Cursor, ParsedSession, ParseResult, ParseStats
from hippo_git.transcripts.opencode_storage import Storage, group_parts, is_storage
from hippo_git.transcripts.opencode_turns import Message, build_turns, session_info

_PRUNE = {"node_modules", ".git", "bin", "log", "snapshot", "tool-output"}


class OpenCodeAdapter:
    harness = "opencode"
    append_only = False

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            if _is_db(root.name):
                yield root
            return
        if is_storage(root):
            yield root
            return
        for folder, dirs, files in os.walk(root):
            here = Path(folder)
            databases = sorted(name for name in files if _is_db(name))
            yield from (here / name for name in databases)
            keep = []
            for name in sorted(dirs):
                if name in _PRUNE:
                    continue
                if is_storage(here / name):
                    # A tree OpenCode already migrated into a database beside it holds the same sessions.
                    if not databases:
                        yield here / name
                    continue
                keep.append(name)
            dirs[:] = keep

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        stats = ParseStats()
        previous: dict[str, str] = dict(cursor.state.get("stamps", {}))
        stamps: dict[str, str] = {}
        sessions: list[ParsedSession] = []
        if source.is_dir():
            storage = Storage.scan(source)
            for stored in storage.sessions:
                stamps[stored.id] = stored.stamp
                if previous.get(stored.id) != stored.stamp:
                    sessions.append(_session(stored.record, stored.id, storage.messages(stored), stats))
        else:
            conn = connect_readonly(source)
            try:
                sessions = _read_db(conn, previous, stamps, stats)
            finally:
                conn.close()
        return ParseResult(sessions, Cursor(0, {"stamps": stamps}), stats)


def _is_db(name: str) -> bool:
    return name.startswith("opencode") and name.endswith(".db")


def _session(
    record: dict[str, Any], session_id: str, messages: list[Message], stats: ParseStats
) -> ParsedSession:
    info = session_info(record, session_id)
    return ParsedSession(info, build_turns(messages, info, stats), "replace")


def _read_db(
    conn: sqlite3.Connection, previous: dict[str, str], stamps: dict[str, str], stats: ParseStats
) -> list[ParsedSession]:
    tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    if not {"session", "message", "part"} <= tables:
        stats.unknown += 1  # not an OpenCode database this adapter knows
        return []
    activity = {
        row[0]: f"{row[1]}|{row[2]}"
        for row in conn.execute(
            "SELECT session_id, count(*), max(time_updated) FROM message GROUP BY session_id"
        )
    }
    sessions: list[ParsedSession] = []
    for row in conn.execute("SELECT * FROM session ORDER BY time_created, id").fetchall():
        record = dict(row)
        session_id = str(record["id"])
        stamp = f"{record.get('time_updated')}|{activity.get(session_id, '0|')}"
        stamps[session_id] = stamp
        if previous.get(session_id) == stamp:
            continue
        if isinstance(record.get("model"), str):
            record["model"] = _json(record["model"])
        sessions.append(_session(record, session_id, _db_messages(conn, session_id), stats))
    return sessions


def _db_messages(conn: sqlite3.Connection, session_id: str) -> list[Message]:
    parts = group_parts(
        [
            (str(row[0]), _json(row[1]))
            for row in conn.execute(
                "SELECT p.message_id, p.data FROM part p JOIN message m ON m.id = p.message_id"
                " WHERE m.session_id = ? ORDER BY p.message_id, p.id",
                (session_id,),
            )
        ]
    )
    messages: list[Message] = []
    for row in conn.execute(
        "SELECT id, time_created, data FROM message WHERE session_id = ? ORDER BY time_created, id",
        (session_id,),
    ):
        data = _json(row[2])
        data.setdefault("time", {"created": row[1]})
        messages.append((data, parts.get(str(row[0]), [])))
    return messages


def _json(value: Any) -> dict[str, Any]:
    if isinstance(value, bytes):
        value = value.decode("utf-8", errors="replace")
    try:
        parsed = json.loads(value) if isinstance(value, str) else value
    except ValueError:
        return {}
    return parsed if isinstance(parsed, dict) else {}


ADAPTER = OpenCodeAdapter()
