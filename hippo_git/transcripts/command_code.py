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
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hippo_git.transcripts.jsonl import as_dict, cap, iso_text, records_after, text_of, tool_paths, tool_text
from hippo_git.transcripts.model import (
    ANSWER,
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

_SKIP_SUFFIXES = (".checkpoints.jsonl",)
_ERROR_OUTPUTS = ("error-text", "error-json", "execution-denied")


class CommandCodeAdapter:
    harness = "command-code"
    append_only = True

    def discover(self, root: Path) -> Iterator[Path]:
        if root.is_file():
            if root.suffix == ".jsonl" and not root.name.endswith(_SKIP_SUFFIXES):
                yield root
            return
        for path in sorted(root.rglob("*.jsonl")):
            if path.is_file() and not path.name.endswith(_SKIP_SUFFIXES):
                yield path

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        stats = ParseStats()
        # A cursor without the session it belongs to cannot be continued: read from the start.
        start = cursor.offset if cursor.state.get("info") else 0
        records, offset, fresh = records_after(source, start, stats)
        state: dict[str, Any] = {} if fresh else cursor.state
        if not records and not fresh:
            return ParseResult([], Cursor(offset, state), stats)
        transcript = _Transcript(source, state, stats)
        for record in records:
            transcript.add(record)
        session = ParsedSession(transcript.info, transcript.turns, mode="replace" if fresh else "append")
        return ParseResult([session], Cursor(offset, transcript.state()), stats)


class _Transcript:
    def __init__(self, source: Path, state: dict[str, Any], stats: ParseStats) -> None:
        self.stats = stats
        self.turns: list[Turn] = []
        if state.get("info"):
            self.info = SessionInfo(**state["info"])
        else:
            self.info = SessionInfo(id=source.name.removesuffix(".jsonl"), harness="command-code")
            self.info.model = _configured_model(source)
        self.next_seq = int(state.get("next_seq", 0))
        self.calls: dict[str, str] = dict(state.get("calls", {}))
        self.named = bool(state.get("named", False))

    def state(self) -> dict[str, Any]:
        return {
            "info": asdict(self.info),
            "next_seq": self.next_seq,
            "calls": self.calls,
            "named": self.named,
        }

    def add(self, record: dict[str, Any]) -> None:
        ts = iso_text(record.get("timestamp"))
        if ts:
            self.info.started = self.info.started or ts
            self.info.ended = ts
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
        parts = content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]
        texts: list[str] = []
        for part in parts:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text":
                texts.append(str(part.get("text") or ""))
                continue
            self._text(role, source, "\n".join(texts), ts)
            texts = []
            if kind in ("reasoning", "thinking", "redacted-reasoning"):
                self.stats.reasoning += 1
            elif kind == "tool-call":
                self._call(part, ts)
            elif kind == "tool-result":
                self._result(part, ts)
            elif kind not in ("image", "file", "source"):
                self.stats.unknown += 1
        self._text(role, source, "\n".join(texts), ts)

    def _text(self, role: str, source: Any, text: str, ts: str | None) -> None:
        text = text.strip()
        if not text:
            return
        if role == "user":
            kind = PROMPT if source in (None, "user") else SYSTEM
        elif role == "assistant":
            kind = ANSWER
        elif role == "tool":
            kind = TOOL_OUTPUT
        else:
            kind = SYSTEM
        self.turns.append(
            Turn(self.next_seq, kind, text if kind != TOOL_OUTPUT else cap(text, TOOL_TEXT_CAP), ts)
        )
        self.next_seq += 1

    def _call(self, part: dict[str, Any], ts: str | None) -> None:
        name = str(part.get("toolName") or part.get("name") or "tool")
        self.calls[str(part.get("toolCallId"))] = name
        args = part.get("input", part.get("args"))
        paths, edited = tool_paths(name, args)
        text = tool_text(name, args, TOOL_TEXT_CAP)
        self.turns.append(Turn(self.next_seq, TOOL_CALL, text, ts, name, paths=paths, edited=edited))
        self.next_seq += 1

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
        self.turns.append(
            Turn(self.next_seq, TOOL_OUTPUT, cap(text.strip(), TOOL_TEXT_CAP), ts, name, is_error)
        )
        self.next_seq += 1


def _configured_model(source: Path) -> str | None:
    """The transcript stores no model; `~/.commandcode/config.json` names the configured one."""
    if source.parent.parent.name != "projects":
        return None
    try:
        config = json.loads((source.parent.parent.parent / "config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    model = config.get("model") if isinstance(config, dict) else None
    return model if isinstance(model, str) and model else None


ADAPTER = CommandCodeAdapter()
