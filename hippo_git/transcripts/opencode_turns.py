"""OpenCode messages and parts → turns; shared by the SQLite database and the legacy JSON tree.

A message's `data` is MessageV2.Info (`role`, `time`, `summary`, `error`, model ids); its parts are
`text` (maybe `synthetic` or `ignored`), `reasoning`, `tool` {tool, state{status, input, output,
error, metadata}}, `file`, `compaction`, `subtask`, `retry`, and bookkeeping (`step-start`,
`step-finish`, `snapshot`, `patch`, `agent`) that carries nothing to index.
"""

from __future__ import annotations

from typing import Any
from urllib.parse import unquote, urlparse

from hippo_git.transcripts.jsonl import as_dict, as_str, cap, iso_ms, text_of, tool_paths, tool_text
from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SUMMARY,
    SYSTEM,
    TOOL_CALL,
    TOOL_OUTPUT,
    TOOL_TEXT_CAP,
    ParseStats,
    SessionInfo,
    Turn,
)

_QUIET_PARTS = ("step-start", "step-finish", "snapshot", "patch", "agent")
_DONE = ("completed", "error", "success", "failed")

Message = tuple[dict[str, Any], list[dict[str, Any]]]


def build_turns(messages: list[Message], info: SessionInfo, stats: ParseStats) -> list[Turn]:
    turns: list[Turn] = []

    def emit(kind: str, text: str, ts: str | None, **extra: Any) -> None:
        text = text.strip()
        if text or kind == TOOL_OUTPUT:
            turns.append(Turn(len(turns), kind, text, ts, **extra))

    for data, parts in messages:
        stats.records += 1 + len(parts)
        role = data.get("role")
        ts = iso_ms(as_dict(data.get("time")).get("created"))
        if ts:
            info.started = info.started or ts
            if info.ended is None or ts > info.ended:
                info.ended = ts
        if role == "assistant":
            model = as_str(data.get("modelID")) or as_str(as_dict(data.get("model")).get("modelID"))
            info.model = model or info.model
            info.cwd = info.cwd or as_str(as_dict(data.get("path")).get("cwd"))
        elif role == "user":
            _prompt(parts, ts, emit)
        else:
            stats.unknown += 1
            continue
        # A legacy compaction wrote its summary as an assistant message flagged `summary: true`.
        answer_kind = SUMMARY if data.get("summary") is True else ANSWER
        for part in parts:
            _part(part, role, answer_kind, ts, emit, stats)
        error = data.get("error")
        if isinstance(error, dict):
            detail = text_of(as_dict(error.get("data")).get("message")) or text_of(error.get("data"))
            emit(ERROR, f"{error.get('name') or 'error'}: {detail}".rstrip(": "), ts, is_error=True)
    return turns


def _prompt(parts: list[dict[str, Any]], ts: str | None, emit: Any) -> None:
    """A user message's own words (and the files it attached) make one prompt turn, first."""
    texts = [
        text_of(p.get("text"))
        for p in parts
        if p.get("type") == "text" and not p.get("synthetic") and not p.get("ignored")
    ]
    paths = tuple(dict.fromkeys(path for p in parts if p.get("type") == "file" and (path := _file_path(p))))
    if any(t.strip() for t in texts):
        emit(PROMPT, "\n\n".join(t for t in texts if t.strip()), ts, paths=paths)


def _part(
    part: dict[str, Any], role: Any, answer_kind: str, ts: str | None, emit: Any, stats: ParseStats
) -> None:
    kind = part.get("type")
    if kind == "text":
        if part.get("ignored"):
            return
        if part.get("synthetic"):
            emit(SYSTEM, text_of(part.get("text")), ts)  # injected by OpenCode, not typed or generated
        elif role == "assistant":
            emit(answer_kind, text_of(part.get("text")), ts)
    elif kind == "reasoning":
        stats.reasoning += 1
    elif kind == "tool":
        _tool(part, ts, emit)
    elif kind == "compaction":
        emit(SYSTEM, "conversation compacted" + (" (auto)" if part.get("auto") else ""), ts)
    elif kind == "subtask":
        head = f"subtask for {part.get('agent') or 'agent'}: {part.get('description') or ''}".strip()
        emit(SYSTEM, f"{head}\n{text_of(part.get('prompt'))}", ts)
    elif kind == "retry":
        emit(ERROR, f"retry {part.get('attempt') or ''}: {_error_text(part.get('error'))}", ts, is_error=True)
    elif kind == "file" or kind in _QUIET_PARTS:
        return
    else:
        stats.unknown += 1


def _tool(part: dict[str, Any], ts: str | None, emit: Any) -> None:
    name = str(part.get("tool") or "tool")
    state = as_dict(part.get("state"))
    args = state.get("input")
    paths, edited = tool_paths(name, args)
    emit(TOOL_CALL, tool_text(name, args, TOOL_TEXT_CAP), ts, tool=name, paths=paths, edited=edited)
    status = state.get("status")
    if status not in _DONE and "output" not in state and "error" not in state:
        return  # still pending or running: no result yet
    metadata = as_dict(state.get("metadata"))
    exit_code = metadata.get("exit")
    failed = status in ("error", "failed") or (isinstance(exit_code, int) and exit_code != 0)
    output = state.get("output")
    text = output if isinstance(output, str) else text_of(output)
    if not text and state.get("error") is not None:
        text = _error_text(state.get("error"))
    emit(TOOL_OUTPUT, cap(text, TOOL_TEXT_CAP), ts, tool=name, is_error=failed)


def _error_text(error: Any) -> str:
    if isinstance(error, dict):
        return text_of(error.get("message")) or text_of(error.get("data")) or str(error.get("name") or "")
    return text_of(error)


def _file_path(part: dict[str, Any]) -> str | None:
    url = part.get("url")
    if isinstance(url, str) and url.startswith("file:"):
        return unquote(urlparse(url).path) or None
    source = part.get("source")
    if isinstance(source, dict) and isinstance(source.get("path"), str):
        return str(source["path"])
    filename = part.get("filename")
    return filename if isinstance(filename, str) and filename else None


def session_info(record: dict[str, Any], session_id: str) -> SessionInfo:
    """SessionInfo from a session row or legacy session JSON (both spell times in epoch ms)."""
    time = as_dict(record.get("time"))
    info = SessionInfo(id=session_id, harness="opencode")
    info.cwd = as_str(record.get("directory"))
    info.title = as_str(record.get("title"))
    info.parent_id = as_str(record.get("parent_id") or record.get("parentID"))
    info.started = iso_ms(record.get("time_created", time.get("created")))
    info.ended = iso_ms(record.get("time_updated", time.get("updated")))
    model = record.get("model")
    if isinstance(model, dict):
        info.model = as_str(model.get("id") or model.get("modelID"))
    return info
