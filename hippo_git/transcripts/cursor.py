"""Cursor Agent: `agent-transcripts` JSONL and per-chat `store.db` databases (FORMATS.md §8).

Transcripts live at `~/.cursor/projects/<slug>/agent-transcripts/<id>.jsonl` (or `<id>/<id>.jsonl`,
subagents under `<parentId>/subagents/<id>.jsonl`), one `{role, message:{content:[…]}}` per line,
with no timestamps. The chat's `store.db` (`~/.cursor/chats/<md5(cwd)>/<id>/store.db`) adds its
title, model and start time; when a transcript exists, the database only enriches it, and a
database is indexed as a session of its own only when no transcript has that id.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hippo_git.transcripts.base import SessionLog, read_log
from hippo_git.transcripts.cursor_store import TurnBuilder, apply_meta, read_meta, read_store
from hippo_git.transcripts.jsonl import connect_readonly
from hippo_git.transcripts.model import Cursor, ParsedSession, ParseResult, ParseStats, SessionInfo

_PRUNE = {"extensions", "node_modules", ".git", "__pycache__"}
_STORE = "store.db"
_SLUG_BUDGET = 400  # directory probes allowed while decoding a project slug back into a path


class CursorAdapter:
    harness = "cursor"
    append_only = True  # transcripts grow; a store.db is re-read and replaced when its stamp moves

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            if root.suffix == ".jsonl" or root.name.endswith(_STORE):
                yield root
            return
        transcripts: list[Path] = []
        stores: list[Path] = []
        for folder, dirs, files in os.walk(root):
            dirs[:] = sorted(d for d in dirs if d not in _PRUNE)
            for name in sorted(files):
                if name.endswith(".jsonl"):
                    transcripts.append(Path(folder, name))
                elif name.endswith(_STORE):
                    stores.append(Path(folder, name))
        ids = {p.stem for p in transcripts}
        yield from transcripts
        yield from (p for p in stores if p.parent.name not in ids)

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        stats = ParseStats()
        if source.name.endswith(_STORE):
            found = read_store(source, stats, cursor.state.get("stamp"))
            if found is None:
                return ParseResult([], Cursor(0, cursor.state), stats)
            info, turns, stamp = found
            return ParseResult([ParsedSession(info, turns, "replace")], Cursor(0, {"stamp": stamp}), stats)
        return read_log(_Transcript, source, cursor)


class _Transcript(SessionLog):
    """An agent transcript: `{role, message:{content}}` lines, without timestamps."""

    def __init__(self, source: Path, state: dict[str, Any], stats: ParseStats) -> None:
        super().__init__(source, state, stats)
        self.builder = TurnBuilder(stats, self.next_seq, self.calls)
        self.turns = self.builder.turns

    def new_info(self, source: Path) -> SessionInfo:
        return _transcript_info(source)

    def add(self, record: dict[str, Any]) -> None:
        message = record.get("message")
        role = record.get("role")
        if not isinstance(role, str) or not isinstance(message, dict):
            self.stats.unknown += 1
            return
        self.builder.message(role, message.get("content"))

    def state(self) -> dict[str, Any]:
        return {**super().state(), "next_seq": self.builder.next_seq}


def _transcript_info(source: Path) -> SessionInfo:
    info = SessionInfo(id=source.stem, harness="cursor")
    if source.parent.name == "subagents":
        info.parent_id = source.parent.parent.name
    parts = source.parts
    if "agent-transcripts" not in parts:
        return info
    at = len(parts) - 1 - parts[::-1].index("agent-transcripts")
    if at >= 2 and parts[at - 2] == "projects":
        home = Path(*parts[: at - 2])
        info.cwd = _decode_slug(parts[at - 1])
        for store in _stores_for(home, source.stem):
            try:
                conn = connect_readonly(store)
            except sqlite3.Error:
                continue  # a damaged side database must not lose the transcript
            try:
                apply_meta(info, read_meta(conn))
            finally:
                conn.close()
            break
    return info


def _stores_for(home: Path, session_id: str) -> Iterator[Path]:
    yield from sorted(home.glob(f"chats/*/{session_id}/{_STORE}"))
    acp = home / "acp-sessions" / session_id / _STORE
    if acp.is_file():
        yield acp


def _decode_slug(slug: str) -> str | None:
    """Cursor names a project folder by its path with `/` (and other punctuation) turned into `-`.

    The encoding is lossy, so the path is recovered by probing the file system from `/`, trying
    the longest run of parts first; None when no existing folder matches.
    """
    parts = [p for p in slug.split("-") if p]
    budget = [_SLUG_BUDGET]

    def walk(base: Path, i: int) -> Path | None:
        if i == len(parts):
            return base
        for j in range(len(parts), i, -1):
            for joiner in ("-", ".", "_", " ") if j > i + 1 else ("",):
                budget[0] -= 1
                if budget[0] < 0:
                    return None
                candidate = base / joiner.join(parts[i:j])
                if candidate.is_dir():
                    found = walk(candidate, j)
                    if found is not None:
                        return found
        return None

    found = walk(Path("/"), 0) if parts else None
    return str(found) if found is not None else None


ADAPTER = CursorAdapter()
