"""Command Code (`cmd`): `~/.commandcode/projects/<slug>/<sessionId>.jsonl` (FORMATS.md §6).

Two line shapes are known, both Vercel AI SDK ModelMessages: bare `{role, content, timestamp,
sessionId}` lines, and newer `{type:"message", message:{role, content, meta:{source}}}` lines after
a `{type:"session", id, cwd}` header, where only `meta.source == "user"` marks a person's words.
Content parts: `text`, `reasoning`, `tool-call` {toolCallId, toolName, input|args}, `tool-result`
{toolCallId, output:{type, value}|result}. The `<id>.checkpoints.jsonl` snapshot stream is skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hippo_git.transcripts.base import SessionLog, content_parts, jsonl_files, read_log, text_runs
from hippo_git.transcripts.jsonl import as_dict, cap, iso_text, text_of
from hippo_git.transcripts.model import (
    ANSWER,
    PROMPT,
    SYSTEM,
    TOOL_OUTPUT,
    TOOL_TEXT_CAP,
    Cursor,
    ParseResult,
    ParseStats,
    SessionInfo,
)
from hippo_git.transcripts.regular import read_regular

_SKIP_SUFFIXES = (".checkpoints.jsonl",)
_ERROR_OUTPUTS = ("error-text", "error-json", "execution-denied")


class CommandCodeAdapter:
    harness = "command-code"
    append_only = True

    def discover(self, root: Path) -> Iterator[Path]:
        return jsonl_files(root, _SKIP_SUFFIXES)

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        return read_log(_Transcript, source, cursor)


class _Transcript(SessionLog):
    def __init__(self, source: Path, state: dict[str, Any], stats: ParseStats) -> None:
        super().__init__(source, state, stats)
        self.named = bool(state.get("named", False))

    def new_info(self, source: Path) -> SessionInfo:
        info = SessionInfo(id=source.name.removesuffix(".jsonl"), harness="command-code")
        info.model = _configured_model(source)
        return info

    def state(self) -> dict[str, Any]:
        return {**super().state(), "named": self.named}

    def add(self, record: dict[str, Any]) -> None:
        ts = iso_text(record.get("timestamp"))
        self.stamp(ts)
        self._name(record.get("sessionId"))
        kind = record.get("type")
        if kind == "session":
            self._name(record.get("id"))
            if isinstance(record.get("cwd"), str):
                self.info.cwd = record["cwd"]
            return
        message = record.get("message") if kind == "message" else record
        if not isinstance(message, dict) or not isinstance(message.get("role"), str):
            self.stats.unknown += 1
            return
        meta = as_dict(message.get("meta"))
        self._message(message["role"], message.get("content"), meta.get("source"), ts)

    def _name(self, session_id: Any) -> None:
        if not self.named and isinstance(session_id, str) and session_id:
            self.info.id = session_id
            self.named = True

    def _message(self, role: str, content: Any, source: Any, ts: str | None) -> None:
        for part in text_runs(content_parts(content)):
            if isinstance(part, str):
                self._text(role, source, part, ts)
                continue
            kind = part.get("type")
            if kind in ("reasoning", "thinking", "redacted-reasoning"):
                self.stats.reasoning += 1
            elif kind == "tool-call":
                name = str(part.get("toolName") or part.get("name") or "tool")
                call_id = str(part.get("toolCallId"))
                self.emit_call(name, part.get("input", part.get("args")), ts, call_id=call_id)
            elif kind == "tool-result":
                self._result(part, ts)
            elif kind not in ("image", "file", "source"):
                self.stats.unknown += 1

    def _text(self, role: str, source: Any, text: str, ts: str | None) -> None:
        if role == "user":
            kind = PROMPT if source in (None, "user") else SYSTEM
        elif role == "assistant":
            kind = ANSWER
        elif role == "tool":
            kind = TOOL_OUTPUT
        else:
            kind = SYSTEM
        text = text.strip()
        self.emit(kind, cap(text, TOOL_TEXT_CAP) if kind == TOOL_OUTPUT else text, ts)

    def _result(self, part: dict[str, Any], ts: str | None) -> None:
        call_id = str(part.get("toolCallId"))
        name = str(part.get("toolName") or self.calls.get(call_id) or "tool")
        self.calls.pop(call_id, None)
        output = part.get("output", part.get("result"))
        is_error = bool(part.get("isError"))
        if isinstance(output, dict) and "value" in output:
            is_error = is_error or output.get("type") in _ERROR_OUTPUTS
            output = output["value"]
        text = output if isinstance(output, str) else text_of(output)
        if not text and output is not None and not isinstance(output, str):
            text = json.dumps(output, ensure_ascii=False, default=str)
        self.emit_output(name, text, is_error, ts)


def _configured_model(source: Path) -> str | None:
    """The transcript stores no model; `~/.commandcode/config.json` names the configured one."""
    if source.parent.parent.name != "projects":
        return None
    try:
        config = json.loads(read_regular(source.parent.parent.parent / "config.json").decode("utf-8"))
    except (OSError, ValueError):
        return None
    model = config.get("model") if isinstance(config, dict) else None
    return model if isinstance(model, str) and model else None


ADAPTER = CommandCodeAdapter()
