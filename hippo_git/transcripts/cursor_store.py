"""Cursor's per-chat `store.db` and the message shapes Cursor transcripts share (FORMATS.md §8).

`store.db` holds `meta` (key "0": hex-encoded JSON {agentId, name, createdAt, lastUsedModel,
latestRootBlobId}) and `blobs` (content-addressed: JSON message blobs, and protobuf-framed link
blobs `0x0A 0x20 <32-byte sha256>` … naming child blobs, sometimes with JSON inside). The
conversation is the messages reached depth-first from the latest root blob.
"""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hippo_git.transcripts.base import content_parts, text_runs
from hippo_git.transcripts.jsonl import as_str, cap, connect_readonly, iso_ms, text_of, tool_paths, tool_text
from hippo_git.transcripts.model import (
    ANSWER,
    PROMPT,
    SYSTEM,
    TOOL_CALL,
    TOOL_OUTPUT,
    TOOL_TEXT_CAP,
    ParseStats,
    SessionInfo,
    Turn,
)

_USER_QUERY = re.compile(r"<user_query>\s*(.*?)\s*</user_query>", re.S)
# Cursor writes the model's hidden thinking into agent transcripts as this literal text.
REDACTED_THINKING = "[REDACTED]"
_MAX_BLOBS = 200_000


class TurnBuilder:
    """Turns from Cursor messages: `{role, content}` with Anthropic-style blocks (agent transcripts)
    or AI-SDK-style parts (`store.db` blobs)."""

    def __init__(self, stats: ParseStats, next_seq: int = 0, calls: dict[str, str] | None = None) -> None:
        self.stats = stats
        self.next_seq = next_seq
        self.turns: list[Turn] = []
        self.calls: dict[str, str] = {} if calls is None else calls

    def message(self, role: str, content: Any) -> None:
        for block in text_runs(content_parts(content)):
            if isinstance(block, str):
                self._text(role, block)
                continue
            kind = block.get("type")
            if kind in ("thinking", "reasoning", "redacted_thinking", "redacted-reasoning"):
                self.stats.reasoning += 1
            elif kind in ("tool_use", "tool-call", "tool_call"):
                self._call(block)
            elif kind in ("tool_result", "tool-result"):
                self._result(block)
            elif kind not in ("image", "file"):
                self.stats.unknown += 1

    def _text(self, role: str, text: str) -> None:
        text = text.strip()
        if not text:
            return
        if role == "user":
            queries = _USER_QUERY.findall(text)
            if queries:
                self._add(PROMPT, "\n\n".join(q.strip() for q in queries))
            else:
                # Context Cursor injects (<user_info>, <rules>, attached files) comes as tagged text.
                self._add(SYSTEM if text.startswith("<") else PROMPT, text)
        elif role == "assistant":
            if text == REDACTED_THINKING:
                self.stats.reasoning += 1
            else:
                self._add(ANSWER, text)
        elif role == "tool":
            self._add(TOOL_OUTPUT, cap(text, TOOL_TEXT_CAP))
        else:
            self._add(SYSTEM, text)

    def _call(self, block: dict[str, Any]) -> None:
        name = str(block.get("name") or block.get("toolName") or "tool")
        call_id = block.get("id") or block.get("toolCallId")
        if call_id:
            self.calls[str(call_id)] = name
        args = block.get("input", block.get("args"))
        paths, edited = tool_paths(name, args)
        self._add(TOOL_CALL, tool_text(name, args, TOOL_TEXT_CAP), tool=name, paths=paths, edited=edited)

    def _result(self, block: dict[str, Any]) -> None:
        call_id = str(block.get("tool_use_id") or block.get("toolCallId") or "")
        name = str(block.get("toolName") or self.calls.get(call_id) or "tool")
        value = block.get("result", block.get("content", block.get("output")))
        text = value if isinstance(value, str) else text_of(value)
        is_error = bool(block.get("is_error") or block.get("isError"))
        self._add(
            TOOL_OUTPUT, cap(text.strip(), TOOL_TEXT_CAP), tool=name, is_error=is_error, keep_empty=True
        )

    def _add(self, kind: str, text: str, *, keep_empty: bool = False, **extra: Any) -> None:
        if text or keep_empty:
            self.turns.append(Turn(self.next_seq, kind, text, **extra))
            self.next_seq += 1


def read_meta(conn: sqlite3.Connection) -> dict[str, Any]:
    """The session metadata row: hex-encoded JSON in current builds, plain JSON in some."""
    try:
        rows = conn.execute("SELECT key, value FROM meta").fetchall()
    except sqlite3.Error:
        return {}
    for row in rows:
        value = row[1]
        raw = value if isinstance(value, bytes) else str(value).encode()
        for candidate in (_unhex(raw), raw):
            try:
                meta = json.loads(candidate) if candidate else None
            except ValueError:
                continue
            if isinstance(meta, dict):
                return meta
    return {}


def _unhex(raw: bytes) -> bytes | None:
    try:
        return bytes.fromhex(raw.decode("ascii"))
    except ValueError:
        return None


def meta_info(meta: dict[str, Any], fallback_id: str) -> SessionInfo:
    info = SessionInfo(id=as_str(meta.get("agentId")) or fallback_id, harness="cursor")
    apply_meta(info, meta)
    return info


def apply_meta(info: SessionInfo, meta: dict[str, Any]) -> None:
    if isinstance(meta.get("name"), str) and meta["name"].strip():
        info.title = meta["name"].strip()
    if isinstance(meta.get("lastUsedModel"), str) and meta["lastUsedModel"]:
        info.model = meta["lastUsedModel"]
    started = iso_ms(meta.get("createdAt"))
    if started:
        info.started = started
        info.ended = info.ended or started


def read_store(
    path: Path, stats: ParseStats, previous: str | None
) -> tuple[SessionInfo, list[Turn], str] | None:
    """The chat in a `store.db`, or None when its stamp (root blob + blob count) has not moved."""
    conn = connect_readonly(path)
    try:
        meta = read_meta(conn)
        try:
            count = int(conn.execute("SELECT count(*) FROM blobs").fetchone()[0])
        except sqlite3.Error:
            count = 0
        stamp = f"{meta.get('latestRootBlobId')}|{count}"
        if stamp == previous:
            return None
        info = meta_info(meta, path.parent.name)
        builder = TurnBuilder(stats)
        root = meta.get("latestRootBlobId")
        if isinstance(root, str) and count:
            for message in _walk(conn, root, stats):
                role = message.get("role")
                stats.records += 1
                if role == "system":
                    continue  # the system prompt: instructions, not conversation
                if isinstance(role, str):
                    builder.message(role, message.get("content"))
                else:
                    stats.unknown += 1
        return info, builder.turns, stamp
    finally:
        conn.close()


def _walk(conn: sqlite3.Connection, root: str, stats: ParseStats) -> Iterator[dict[str, Any]]:
    """Messages depth-first from `root`, in the order link blobs list them; each blob read once."""
    stack: list[str | dict[str, Any]] = [root]
    seen: set[str] = set()
    while stack and len(seen) < _MAX_BLOBS:
        item = stack.pop()
        if isinstance(item, dict):
            yield item  # a message embedded in a link blob
            continue
        if item in seen:
            continue
        seen.add(item)
        row = conn.execute("SELECT data FROM blobs WHERE id = ?", (item,)).fetchone()
        if row is None or row[0] is None:
            continue
        data = bytes(row[0]) if not isinstance(row[0], str) else row[0].encode()
        if data[:1] == b"{":
            message = _json(data)
            if message is not None:
                yield message
            else:
                stats.torn += 1
            continue
        stack.extend(reversed(_links(data)))


def _links(data: bytes) -> list[str | dict[str, Any]]:
    """A protobuf-framed link blob's child blob ids and embedded JSON messages, in order."""
    items: list[str | dict[str, Any]] = []
    pos = 0
    while pos < len(data):
        key, pos = _varint(data, pos)
        if key is None:
            break
        wire = key & 7
        if wire == 0:
            _, pos = _varint(data, pos)
        elif wire == 1:
            pos += 8
        elif wire == 5:
            pos += 4
        elif wire == 2:
            length, pos = _varint(data, pos)
            if length is None or pos + length > len(data):
                break
            chunk = data[pos : pos + length]
            pos += length
            if length == 32:
                items.append(chunk.hex())
            elif chunk[:1] == b"{":
                message = _json(chunk)
                if message is not None:
                    items.append(message)
        else:
            break
    return items


def _varint(data: bytes, pos: int) -> tuple[int | None, int]:
    value = shift = 0
    while pos < len(data) and shift < 64:
        byte = data[pos]
        pos += 1
        value |= (byte & 0x7F) << shift
        if not byte & 0x80:
            return value, pos
        shift += 7
    return None, pos


def _json(data: bytes) -> dict[str, Any] | None:
    try:
        value = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError:
        return None
    return value if isinstance(value, dict) else None
