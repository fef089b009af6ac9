"""Gemini CLI: `~/.gemini/tmp/<project>/chats/session-*.json[l]` (FORMATS.md §7).

Legacy `.json` files are one ConversationRecord rewritten whole. The newer `.jsonl` starts with a
metadata line, then MessageRecords; `{"$set": {...}}` updates metadata (a `messages` array there
replaces the history), `{"$rewindTo": id}` drops that message and everything after it, and a
message id written again replaces the earlier copy. New lines that only add messages are read as
an append; anything that rewrites history makes this read the whole file again and replace it.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hippo_git.transcripts.jsonl import (
    as_dict,
    as_list,
    cap,
    iso_text,
    read_bytes,
    records_after,
    text_of,
    tool_paths,
    tool_text,
)
from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SYSTEM,
    TOOL_CALL,
    TOOL_OUTPUT,
    TOOL_TEXT_CAP,
    Cursor,
    ParsedSession,
    ParseResult,
    ParseStats,
    SessionInfo,
    Turn,
)
from hippo_git.transcripts.regular import read_regular

# Files in a Gemini home that are not sessions (prompt log, registry, settings, credentials).
_SIDE_FILES = {
    "logs.json",
    "projects.json",
    "settings.json",
    "trustedFolders.json",
    "google_accounts.json",
    "oauth_creds.json",
    "mcp-oauth-tokens.json",
    "installation_id",
    "state.json",
}
_FAILED = ("error", "cancelled", "canceled")


class GeminiAdapter:
    harness = "gemini-cli"
    append_only = True

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            if _is_candidate(root):
                yield root
            return
        if (root / "tmp").is_dir():
            root = root / "tmp"  # pointed at the Gemini home itself
        files = sorted(p for p in root.rglob("*.json*") if _is_candidate(p))
        in_chats = [p for p in files if "chats" in p.relative_to(root).parts[:-1]]
        # In a real Gemini tree only `chats/` holds sessions; a folder of copied files has no `chats/`.
        yield from in_chats if in_chats else files

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        stats = ParseStats()
        if source.name.endswith(".json"):
            data = read_bytes(source)
            return ParseResult(_parse_whole(source, data, stats), Cursor(len(data), {}), stats)
        records, offset, fresh = records_after(source, cursor.offset, stats)
        if not fresh:
            if not records:
                return ParseResult([], Cursor(offset, cursor.state), stats)
            if _appends_only(records, cursor.state):
                chat = _Chat(source, stats, cursor.state)
                for record in records:
                    chat.add_record(record)
                return ParseResult([chat.session("append")], Cursor(offset, chat.state()), stats)
            stats = ParseStats()
            records, offset, _ = records_after(source, 0, stats)
        chat = _Chat(source, stats, {})
        for record in records:
            chat.add_record(record)
        return ParseResult([chat.session("replace")], Cursor(offset, chat.state()), stats)


def _is_candidate(path: Path) -> bool:
    name = path.name
    return (
        name.endswith((".json", ".jsonl"))
        and name not in _SIDE_FILES
        and not name.startswith("checkpoint")
        and path.is_file()
    )


def _appends_only(records: list[dict[str, Any]], state: dict[str, Any]) -> bool:
    seen = set(state.get("ids", []))
    if not state.get("info"):
        return False
    for record in records:
        if "$rewindTo" in record:
            return False
        update = record.get("$set")
        if isinstance(update, dict) and "messages" in update:
            return False
        if isinstance(record.get("type"), str) and str(record.get("id")) in seen:
            return False
    return True


def _parse_whole(source: Path, data: bytes, stats: ParseStats) -> list[ParsedSession]:
    try:
        record = json.loads(data.decode("utf-8", errors="replace"))
    except ValueError:
        stats.torn += 1
        return []
    if not isinstance(record, dict) or not isinstance(record.get("messages"), list):
        stats.unknown += 1
        return []
    stats.records += 1
    chat = _Chat(source, stats, {})
    chat.add_record({k: v for k, v in record.items() if k != "messages"})
    for message in record["messages"]:
        chat.add_record(message)
    return [chat.session("replace")]


class _Chat:
    """The session's metadata and its messages, in order, ready to become turns."""

    def __init__(self, source: Path, stats: ParseStats, state: dict[str, Any]) -> None:
        self.stats = stats
        if state.get("info"):
            self.info = SessionInfo(**state["info"])
        else:
            self.info = SessionInfo(id=source.name.rsplit(".", 1)[0], harness="gemini-cli")
            self.info.cwd = _project_root(source)
            if source.parent.name != "chats" and source.parent.parent.name == "chats":
                self.info.parent_id = source.parent.name  # chats/<parentSessionId>/<sessionId>.jsonl
        self.next_seq = int(state.get("next_seq", 0))
        self.ids: list[str] = list(state.get("ids", []))
        self.messages: dict[str, dict[str, Any]] = {}

    def state(self) -> dict[str, Any]:
        return {"info": asdict(self.info), "next_seq": self.next_seq, "ids": self.ids}

    def add_record(self, record: Any) -> None:
        if not isinstance(record, dict):
            self.stats.unknown += 1
            return
        if "$rewindTo" in record:
            target = str(record["$rewindTo"])
            if target in self.messages:
                keys = list(self.messages)
                for key in keys[keys.index(target) :]:
                    del self.messages[key]
            return
        update = record.get("$set")
        if isinstance(update, dict):
            if isinstance(update.get("messages"), list):
                self.messages = {}
                for message in update["messages"]:
                    self.add_record(message)
            self._metadata(update)
            return
        if isinstance(record.get("type"), str):
            key = str(record.get("id") or f"#{len(self.messages)}")
            self.messages[key] = record  # a re-written id keeps its place and takes the new content
            return
        if "sessionId" in record or "startTime" in record:
            self._metadata(record)
            return
        self.stats.unknown += 1

    def _metadata(self, meta: dict[str, Any]) -> None:
        if isinstance(meta.get("sessionId"), str) and meta["sessionId"]:
            self.info.id = meta["sessionId"]
        self.info.started = iso_text(meta.get("startTime")) or self.info.started
        self.info.ended = iso_text(meta.get("lastUpdated")) or self.info.ended
        if isinstance(meta.get("summary"), str) and meta["summary"].strip():
            self.info.title = meta["summary"].strip()

    def session(self, mode: str) -> ParsedSession:
        turns: list[Turn] = []
        for key, message in self.messages.items():
            turns.extend(self._turns(message))
            self.ids.append(key)
        return ParsedSession(self.info, turns, mode)

    def _turns(self, message: dict[str, Any]) -> list[Turn]:
        kind = message.get("type")
        ts = iso_text(message.get("timestamp"))
        if ts and (self.info.ended is None or ts > self.info.ended):
            self.info.ended = ts
        out: list[Turn] = []

        def emit(turn_kind: str, text: str, **extra: Any) -> None:
            if text.strip() or turn_kind in (TOOL_CALL, TOOL_OUTPUT):
                out.append(Turn(self.next_seq, turn_kind, text.strip(), ts, **extra))
                self.next_seq += 1

        if kind == "user":
            shown = message.get("displayContent")
            emit(PROMPT, _parts_text(shown if shown else message.get("content")))
        elif kind == "gemini":
            if isinstance(message.get("model"), str):
                self.info.model = message["model"]
            thoughts = message.get("thoughts")
            self.stats.reasoning += len(thoughts) if isinstance(thoughts, list) else 0
            emit(ANSWER, _parts_text(message.get("content")))
            for call in as_list(message.get("toolCalls")):
                if not isinstance(call, dict):
                    continue
                name = str(call.get("name") or "tool")
                args = call.get("args")
                paths, edited = tool_paths(name, args)
                emit(TOOL_CALL, tool_text(name, args, TOOL_TEXT_CAP), tool=name, paths=paths, edited=edited)
                output, failed = _call_result(call)
                is_error = failed or str(call.get("status", "")).lower() in _FAILED
                emit(TOOL_OUTPUT, cap(output, TOOL_TEXT_CAP), tool=name, is_error=is_error)
        elif kind in ("info", "warning"):
            emit(SYSTEM, _parts_text(message.get("content")))
        elif kind == "error":
            emit(ERROR, _parts_text(message.get("content")), is_error=True)
        else:
            self.stats.unknown += 1
        return out


def _parts_text(content: Any) -> str:
    """Gemini's PartListUnion: a string, one part, or a list of parts; only text parts are words."""
    if isinstance(content, dict):
        content = [content]
    if isinstance(content, list):
        return "\n".join(
            str(p["text"]) for p in content if isinstance(p, dict) and isinstance(p.get("text"), str)
        )
    return text_of(content)


def _call_result(call: dict[str, Any]) -> tuple[str, bool]:
    """What the model saw of a tool's result (functionResponse parts), and whether it was an error."""
    texts: list[str] = []
    failed = False
    result = call.get("result")
    for part in as_list(result) or [result]:
        if not isinstance(part, dict):
            continue
        response = as_dict(part.get("functionResponse")).get("response")
        if isinstance(response, dict):
            if "error" in response:
                failed = True
            value = response.get("output", response.get("error", response))
            texts.append(value if isinstance(value, str) else json.dumps(value, ensure_ascii=False))
        elif isinstance(part.get("text"), str):
            texts.append(part["text"])
    text = "\n".join(t for t in texts if t)
    if not text and isinstance(call.get("resultDisplay"), str):
        text = call["resultDisplay"]
    return text, failed


def _project_root(source: Path) -> str | None:
    """The project folder of `tmp/<project>/chats/…`: the `.project_root` marker, else projects.json."""
    chats = next((p for p in source.parents if p.name == "chats"), None)
    if chats is None:
        return None
    project = chats.parent
    try:
        marker = read_regular(project / ".project_root").decode("utf-8").strip()
    except OSError:
        marker = ""
    if marker:
        return marker
    try:
        registry = json.loads(read_regular(project.parent.parent / "projects.json").decode("utf-8"))
    except (OSError, ValueError):
        return None
    projects = registry.get("projects") if isinstance(registry, dict) else None
    if not isinstance(projects, dict):
        return None
    for path, slug in projects.items():
        # Current builds name the folder by a registered slug; older ones by sha256 of the path.
        if slug == project.name or hashlib.sha256(str(path).encode()).hexdigest() == project.name:
            return str(path)
    return None


ADAPTER = GeminiAdapter()
