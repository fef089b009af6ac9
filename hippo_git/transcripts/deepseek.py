"""DeepSeek Harness (`dsh`): `session.jsonl` and zstd `session.jsonl.zstd` event logs (FORMATS.md §4).

Line 1 is a `session` header; then SessionEvents. Only the "surface" events carry the
conversation: `user/message`, `assistant/message`, `tool/result`, plus `compaction/summary` and
the sub-calls a `run_code` program made (`tool/code-dispatch`). Streaming chunks, packed chunk rows
and `tool/call` repeat what those already hold and are skipped as known.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hippo_git.transcripts.jsonl import (
    as_dict,
    as_list,
    as_str,
    cap,
    iso_ms,
    records_after,
    text_of,
    tool_paths,
    tool_text,
)
from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SUMMARY,
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

_SUFFIXES = (".jsonl", ".jsonl.zstd", ".jsonl.zst")
# Event families dsh writes that repeat the surface or carry no text worth indexing.
_KNOWN_PREFIXES = (
    "turn/",
    "step/",
    "request/",
    "approval/",
    "hook/",
    "command/",
    "permission/",
    "sandbox/",
    "tool-workflow/",
    "agent/",
    "subagent/",
    "todo/",
    "goal/",
    "llm/",
    "team/",
    "compaction/",
)
_KNOWN_TYPES = {
    "assistant/chunk",
    "text-chunks",
    "reasoning-chunks",
    "tool-call-chunks",
    "tool/call",
    "tool/code-dispatch-start",
}


class DeepSeekAdapter:
    harness = "deepseek-harness"
    append_only = True

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            if root.name.endswith(_SUFFIXES):
                yield root
            return
        found = sorted(p for p in root.rglob("*") if p.name.endswith(_SUFFIXES) and p.is_file())
        names = {str(p) for p in found}
        for path in found:
            plain = str(path).rsplit(".jsonl", 1)[0] + ".jsonl"
            if path.name.endswith(".jsonl") or plain not in names:  # plain wins over compressed
                yield path

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        stats = ParseStats()
        # A cursor without the session it belongs to cannot be continued: read from the start.
        start = cursor.offset if cursor.state.get("info") else 0
        records, offset, fresh = records_after(source, start, stats)
        state: dict[str, Any] = {} if fresh else cursor.state
        if not records and not fresh:
            return ParseResult([], Cursor(offset, state), stats)
        log = _Log(source, state, stats)
        for record in records:
            log.add(record)
        session = ParsedSession(log.info, log.turns, mode="replace" if fresh else "append")
        return ParseResult([session], Cursor(offset, log.state()), stats)


class _Log:
    def __init__(self, source: Path, state: dict[str, Any], stats: ParseStats) -> None:
        self.stats = stats
        self.turns: list[Turn] = []
        if state.get("info"):
            self.info = SessionInfo(**state["info"])
        else:
            self.info = SessionInfo(id=_id_from_path(source), harness="deepseek-harness")
        self.next_seq = int(state.get("next_seq", 0))
        self.calls: dict[str, str] = dict(state.get("calls", {}))
        self.compactions: list[str] = list(state.get("compactions", []))

    def state(self) -> dict[str, Any]:
        return {
            "info": asdict(self.info),
            "next_seq": self.next_seq,
            "calls": self.calls,
            "compactions": self.compactions[-20:],
        }

    def add(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        data = as_dict(record.get("data"))
        ts = iso_ms(record.get("time", record.get("time0")))
        if ts:
            self.info.ended = ts
            self.info.started = self.info.started or ts
        if kind == "session":
            self._header(record)
        elif kind == "user/message":
            self._user(data, ts)
        elif kind == "assistant/message":
            self._assistant(data, ts)
        elif kind == "tool/result":
            self._tool_result(data, ts)
        elif kind == "tool/code-dispatch":
            name = str(data.get("name") or "tool")
            args = data.get("arguments")
            self._call(name, args, ts)
            self._output(name, text_of(data.get("content")), bool(data.get("isError")), ts)
        elif kind == "compaction/summary":
            self.compactions.append(str(data.get("compactionId")))
            self._emit(SUMMARY, text_of(data.get("summary")), ts)
        elif kind == "session/title":
            self.info.title = as_str(data.get("title")) or self.info.title
        elif kind == "turn/end":
            self._turn_end(data, ts)
        elif kind == "request/header":
            config = as_dict(as_dict(data.get("header")).get("config"))
            self.info.model = self.info.model or as_str(config.get("model"))
        elif isinstance(kind, str) and (kind in _KNOWN_TYPES or kind.startswith(_KNOWN_PREFIXES)):
            return
        else:
            self.stats.unknown += 1

    def _header(self, record: dict[str, Any]) -> None:
        header_id = record.get("id")
        if isinstance(header_id, str) and header_id and "{{" not in header_id:
            self.info.id = header_id  # normalized test fixtures carry a `{{sessionId}}` placeholder
        self.info.cwd = as_str(record.get("cwd")) or self.info.cwd
        self.info.parent_id = as_str(record.get("parentSession")) or self.info.parent_id
        created = record.get("createdAt")
        # Normalized fixtures write `createdAt: 0`; epoch zero is a placeholder, not a time.
        started = iso_ms(created) if isinstance(created, int | float) and created > 0 else None
        if started:
            self.info.started = started
            self.info.ended = self.info.ended or started

    def _user(self, data: dict[str, Any], ts: str | None) -> None:
        text = _text_blocks(data.get("content"))
        source = as_dict(data.get("source"))
        origin = source.get("kind")
        if origin in (None, "user"):
            self._emit(PROMPT, text, ts)
        elif source.get("plugin") == "compact":
            # The checkpoint that replaces compacted history: its summary was already indexed
            # from `compaction/summary` when that event is in the log.
            if str(source.get("compactionId")) not in self.compactions:
                self._emit(SUMMARY, text, ts)
        else:
            self._emit(SYSTEM, text, ts)

    def _assistant(self, data: dict[str, Any], ts: str | None) -> None:
        message = as_dict(data.get("message")) or data
        source = as_dict(message.get("source")) or as_dict(data.get("provenance"))
        self.info.model = as_str(source.get("model")) or self.info.model
        content = message.get("content")
        texts: list[str] = []
        for block in [{"type": "text", "text": content}] if isinstance(content, str) else as_list(content):
            if not isinstance(block, dict):
                continue
            block_type = block.get("type")
            if block_type == "text":
                texts.append(str(block.get("text") or ""))
                continue
            self._emit(ANSWER, "\n".join(texts), ts)
            texts = []
            if block_type == "reasoning":
                self.stats.reasoning += 1
            elif block_type == "tool-call":
                name = str(block.get("name") or "tool")
                self.calls[str(block.get("id"))] = name
                self._call(name, block.get("arguments"), ts)
        self._emit(ANSWER, "\n".join(texts), ts)

    def _tool_result(self, data: dict[str, Any], ts: str | None) -> None:
        message = data.get("message")
        if isinstance(message, dict):
            for block in as_list(message.get("content")):
                if isinstance(block, dict) and block.get("type") == "tool-result":
                    name = self.calls.pop(str(block.get("toolCallId")), "tool")
                    self._output(name, text_of(block.get("content")), bool(block.get("isError")), ts)
            return
        name = self.calls.pop(str(data.get("callId")), "tool")
        self._output(name, text_of(data.get("content")), bool(data.get("isError")), ts)

    def _turn_end(self, data: dict[str, Any], ts: str | None) -> None:
        reason = as_dict(data.get("reason"))
        how = reason.get("kind")
        if how in (None, "completed"):
            return
        detail = reason.get("message") or reason.get("error") or ""
        text = f"turn ended: {how}" + (f": {text_of(detail) or detail}" if detail else "")
        self._emit(ERROR if how in ("error", "failed") else SYSTEM, text, ts)

    def _call(self, name: str, args: Any, ts: str | None) -> None:
        paths, edited = tool_paths(name, _json_or_raw(args))
        self.turns.append(
            Turn(
                self.next_seq,
                TOOL_CALL,
                tool_text(name, args, TOOL_TEXT_CAP),
                ts,
                name,
                paths=paths,
                edited=edited,
            )
        )
        self.next_seq += 1

    def _output(self, name: str, text: str, is_error: bool, ts: str | None) -> None:
        self.turns.append(
            Turn(self.next_seq, TOOL_OUTPUT, cap(text.strip(), TOOL_TEXT_CAP), ts, name, is_error)
        )
        self.next_seq += 1

    def _emit(self, kind: str, text: str, ts: str | None) -> None:
        text = text.strip()
        if text:
            self.turns.append(Turn(self.next_seq, kind, text, ts))
            self.next_seq += 1


def _text_blocks(content: Any) -> str:
    if isinstance(content, list):
        return "\n".join(
            str(b.get("text")) for b in content if isinstance(b, dict) and b.get("type") == "text"
        )
    return text_of(content)


def _json_or_raw(args: Any) -> Any:
    if isinstance(args, str):
        try:
            return json.loads(args)
        except ValueError:
            return args
    return args


def _id_from_path(source: Path) -> str:
    """dsh names a session's directory after it; flat copies are named after the file."""
    name = source.name
    for suffix in sorted(_SUFFIXES, key=len, reverse=True):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
            break
    if name == "session":
        return source.parent.name
    return name.removesuffix(".session")


ADAPTER = DeepSeekAdapter()
