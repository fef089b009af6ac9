"""Muse Code (Meta `muse`): the durable event journal `session.jsonl` (FORMATS.md §5).

Every line is an envelope `{stream, recorded_at (µs), payload_type, payload}`; the conversation is
the `runtime.session` payloads of kind `run`, whose `event.kind` says what happened (`started`
carries the prompt, `assistant_message_committed` a reply, `assistant_tool_calls_committed` /
`tool_result_batch_committed` the tools). The format has no stability promise, so every field is
read as optional and anything unrecognised is counted and skipped.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from hippo_git.transcripts.base import SessionLog, jsonl_files, read_log
from hippo_git.transcripts.jsonl import as_dict, iso_ms, text_of
from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SYSTEM,
    Cursor,
    ParseResult,
    ParseStats,
    SessionInfo,
    Turn,
)

# Run events that carry nothing to index (streaming deltas, usage, images already described).
_QUIET_RUN_EVENTS = (
    "text_delta",
    "reasoning_delta",
    "model_completed",
    "tool_result_model_visible_content",
    "tool_execution_started",
    "tool_execution_output_delta",
    "tool_call_planned",
)
_QUIET_SESSION_KINDS = ("task", "approval", "task_stream_linked", "goal_usage_attribution")


class MuseAdapter:
    harness = "muse-code"
    append_only = True

    def discover(self, root: Path) -> Iterator[Path]:
        return jsonl_files(root)

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        return read_log(_Journal, source, cursor)


class _Journal(SessionLog):
    def __init__(self, source: Path, state: dict[str, Any], stats: ParseStats) -> None:
        super().__init__(source, state, stats)
        self.prompt_index: int | None = None  # this read's prompt turn, for `user_prompt_display`
        self.last_prompt: str | None = state.get("last_prompt")
        self.named = bool(state.get("named", False))

    def new_info(self, source: Path) -> SessionInfo:
        info = SessionInfo(id=_id_from_path(source), harness="muse-code")
        if source.parent.parent.name == "subagent":
            info.parent_id = source.parent.parent.parent.name
        return info

    def state(self) -> dict[str, Any]:
        return {**super().state(), "last_prompt": self.last_prompt, "named": self.named}

    def add(self, record: dict[str, Any]) -> None:
        payload_type = record.get("payload_type")
        payload = record.get("payload")
        if not isinstance(payload_type, str) or not isinstance(payload, dict):
            self.stats.unknown += 1
            return
        stream = record.get("stream")
        if (
            not self.named
            and isinstance(stream, dict)
            and stream.get("kind") == "session"
            and stream.get("id")
        ):
            self.info.id = str(stream["id"])
            self.named = True
        recorded = record.get("recorded_at")
        ts = iso_ms(recorded / 1000) if isinstance(recorded, int | float) else None
        self.stamp(ts)
        if payload_type == "runtime.user_intent.accepted":
            texts = [
                text_of(m.get("content")) for m in payload.get("model_messages") or [] if isinstance(m, dict)
            ]
            self._prompt("\n".join(t for t in texts if t), ts)
        elif payload_type == "runtime.session.route_facts":
            self._facts(payload)
        elif payload_type == "runtime.session":
            self._session(payload, ts)
        elif payload_type.startswith(("runtime.user_intent.", "approval_wait.")):
            return
        else:
            self.stats.unknown += 1

    def _session(self, payload: dict[str, Any], ts: str | None) -> None:
        kind = payload.get("kind")
        if kind == "run":
            event = payload.get("event")
            if isinstance(event, dict):
                self._run(event, ts)
            else:
                self.stats.unknown += 1
        elif kind in ("metadata", "route_facts", "run_model"):
            self._facts(as_dict(payload.get("record")) or payload)
        elif kind not in _QUIET_SESSION_KINDS:
            self.stats.unknown += 1

    def _facts(self, facts: dict[str, Any]) -> None:
        cwd = facts.get("cwd") or facts.get("workspace_root")
        if isinstance(cwd, str) and cwd:
            self.info.cwd = cwd
        model = facts.get("model_id")
        if isinstance(model, str) and model:
            self.info.model = model

    def _run(self, event: dict[str, Any], ts: str | None) -> None:
        kind = event.get("kind")
        if kind == "started":
            self._prompt(text_of(event.get("prompt")), ts)
        elif kind == "user_prompt_display":
            shown = text_of(event.get("text") or event.get("display") or event.get("prompt")).strip()
            if shown and self.prompt_index is not None:
                old = self.turns[self.prompt_index]
                self.turns[self.prompt_index] = Turn(old.seq, PROMPT, shown, old.ts)
        elif kind == "inbox_item_queued":
            source = as_dict(event.get("source"))
            if source.get("source") == "user_steer":
                inner = as_dict(event.get("payload"))
                self._prompt(text_of(inner.get("prompt") or event.get("body")), ts)
        elif kind == "assistant_message_committed":
            self.emit(ANSWER, text_of(event.get("text")), ts)
        elif kind == "assistant_tool_calls_committed":
            for call in event.get("tool_calls") or []:
                if isinstance(call, dict):
                    self._call(call, ts)
        elif kind == "tool_result_batch_committed":
            for result in event.get("results") or []:
                if isinstance(result, dict):
                    self._result(result, ts)
        elif kind in ("reasoning_summary_committed", "reasoning_committed"):
            self.stats.reasoning += 1
        elif kind == "terminal":
            how, reason = event.get("terminal"), text_of(event.get("reason"))
            if how not in (None, "completed"):
                text = f"run {how}" + (f": {reason}" if reason else "")
                self.emit(ERROR if how == "failed" else SYSTEM, text, ts)
        elif kind not in _QUIET_RUN_EVENTS:
            self.stats.unknown += 1

    def _prompt(self, text: str, ts: str | None) -> None:
        text = text.strip()
        # The accepted intent and the run's `started` event carry the same words: index them once.
        if not text or text == self.last_prompt:
            return
        self.last_prompt = text
        self.prompt_index = len(self.turns)
        self.emit(PROMPT, text, ts)

    def _call(self, call: dict[str, Any], ts: str | None) -> None:
        call_id = str(call.get("call_id") or call.get("id") or "")
        self.emit_call(str(call.get("name") or "tool"), call.get("args"), ts, call_id=call_id)

    def _result(self, result: dict[str, Any], ts: str | None) -> None:
        name = self.calls.pop(str(result.get("tool_call_id")), "tool")
        text = text_of(result.get("text") or result.get("content") or result.get("output"))
        is_error = bool(result.get("is_error"))
        try:
            report = json.loads(text) if text.lstrip().startswith("{") else None
        except ValueError:
            report = None
        if isinstance(report, dict) and isinstance(report.get("exit_code"), int):
            is_error = is_error or report["exit_code"] != 0  # a command's result is a JSON report
        self.emit_output(name, text, is_error, ts)


def _id_from_path(source: Path) -> str:
    """Muse names a session's directory after it; a lone copied file is named after itself."""
    if source.name == "session.jsonl":
        return source.parent.name
    return source.name.removesuffix(".jsonl").removesuffix(".records")


ADAPTER = MuseAdapter()
