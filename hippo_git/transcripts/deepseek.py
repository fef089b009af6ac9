"""DeepSeek Harness (`dsh`): `session.jsonl` and zstd `session.jsonl.zstd` event logs (FORMATS.md §4).

Line 1 is a `session` header; then SessionEvents. Only the "surface" events carry the
conversation: `user/message`, `assistant/message`, `tool/result`, plus `compaction/summary` and
the sub-calls a `run_code` program made (`tool/code-dispatch`). Streaming chunks, packed chunk rows
and `tool/call` repeat what those already hold and are skipped as known.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hippo_git.transcripts.base import SessionLog, read_log, text_runs
from hippo_git.transcripts.jsonl import as_dict, as_list, as_str, iso_ms, text_of
from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SUMMARY,
    SYSTEM,
    Cursor,
    ParseResult,
    ParseStats,
    SessionInfo,
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
        return read_log(_Log, source, cursor)


class _Log(SessionLog):
    def __init__(self, source: Path, state: dict[str, Any], stats: ParseStats) -> None:
        super().__init__(source, state, stats)
        self.compactions: list[str] = list(state.get("compactions", []))

    def new_info(self, source: Path) -> SessionInfo:
        return SessionInfo(id=_id_from_path(source), harness="deepseek-harness")

    def state(self) -> dict[str, Any]:
        return {**super().state(), "compactions": self.compactions[-20:]}

    def add(self, record: dict[str, Any]) -> None:
        kind = record.get("type")
        data = as_dict(record.get("data"))
        ts = iso_ms(record.get("time", record.get("time0")))
        self.stamp(ts)
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
            self.emit_call(name, args, ts)
            self.emit_output(name, text_of(data.get("content")), bool(data.get("isError")), ts)
        elif kind == "compaction/summary":
            self.compactions.append(str(data.get("compactionId")))
            self.emit(SUMMARY, text_of(data.get("summary")), ts)
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
            self.emit(PROMPT, text, ts)
        elif source.get("plugin") == "compact":
            # The checkpoint that replaces compacted history: its summary was already indexed
            # from `compaction/summary` when that event is in the log.
            if str(source.get("compactionId")) not in self.compactions:
                self.emit(SUMMARY, text, ts)
        else:
            self.emit(SYSTEM, text, ts)

    def _assistant(self, data: dict[str, Any], ts: str | None) -> None:
        message = as_dict(data.get("message")) or data
        source = as_dict(message.get("source")) or as_dict(data.get("provenance"))
        self.info.model = as_str(source.get("model")) or self.info.model
        content = message.get("content")
        blocks = [{"type": "text", "text": content}] if isinstance(content, str) else as_list(content)
        for block in text_runs(blocks):
            if isinstance(block, str):
                self.emit(ANSWER, block, ts)
                continue
            block_type = block.get("type")
            if block_type == "reasoning":
                self.stats.reasoning += 1
            elif block_type == "tool-call":
                name = str(block.get("name") or "tool")
                self.emit_call(name, block.get("arguments"), ts, call_id=str(block.get("id")))

    def _tool_result(self, data: dict[str, Any], ts: str | None) -> None:
        message = data.get("message")
        if isinstance(message, dict):
            for block in as_list(message.get("content")):
                if isinstance(block, dict) and block.get("type") == "tool-result":
                    name = self.calls.pop(str(block.get("toolCallId")), "tool")
                    self.emit_output(name, text_of(block.get("content")), bool(block.get("isError")), ts)
            return
        name = self.calls.pop(str(data.get("callId")), "tool")
        self.emit_output(name, text_of(data.get("content")), bool(data.get("isError")), ts)

    def _turn_end(self, data: dict[str, Any], ts: str | None) -> None:
        reason = as_dict(data.get("reason"))
        how = reason.get("kind")
        if how in (None, "completed"):
            return
        detail = reason.get("message") or reason.get("error") or ""
        text = f"turn ended: {how}" + (f": {text_of(detail) or detail}" if detail else "")
        self.emit(ERROR if how in ("error", "failed") else SYSTEM, text, ts)

    def call_input(self, args: Any) -> Any:
        # dsh sends tool arguments as a JSON string: its paths are in what the string decodes to.
        return _json_or_raw(args)


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
