"""Codex CLI rollouts: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-*.jsonl[.zst]` (FORMATS.md §2).

One rollout is one session. Enveloped lines (`{timestamp, type, payload}`, since ~0.3x) and the
legacy shape (a bare `{id, timestamp}` header, then bare ResponseItems) are both read.

What becomes a turn: the response items are the model-visible history and the source of answers,
tool calls and tool output. Prompts come from `event_msg/user_message` (the words as typed) in
enveloped rollouts, so the response-item copy of a prompt is skipped; legacy rollouts have no
events and take prompts from the response items. Other events echo response items and are only
counted, except errors and thread names. A forked rollout repeats its parent's history after a
second `session_meta`: the first one names the session, a later one only supplies `parent_id`.
`compacted` lines become a SUMMARY turn; their replacement history is not indexed again.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterator
from pathlib import Path
from typing import Any

from hippo_git.transcripts import codex_items as items
from hippo_git.transcripts.base import newest, resume, walk_files
from hippo_git.transcripts.jsonl import LineReader, iso_fast, render_fields, text_of
from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SUMMARY,
    SYSTEM,
    TOOL_CALL,
    TOOL_OUTPUT,
    Cursor,
    ParseResult,
    ParseStats,
    SessionInfo,
)
from hippo_git.transcripts.session_acc import SessionAcc

HARNESS = "codex"
STATE_VERSION = 1
QUIET_TYPES = frozenset({"world_state", "inter_agent_communication", "inter_agent_communication_metadata"})
RANK_PROMPT, RANK_THREAD_NAME = 0, 5
_MAX_CALL_IDS = 512


class CodexAdapter:
    harness = HARNESS
    append_only = True

    def discover(self, root: Path) -> Iterator[Path]:
        return walk_files(root, _is_rollout)

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        return _Rollout(source, cursor).run()


ADAPTER = CodexAdapter()


def _is_rollout(name: str, siblings: Collection[str]) -> bool:
    if not name.startswith("rollout-"):
        return False
    if name.endswith(".jsonl.zst"):
        # A plain rollout wins over its compressed twin (codex-rs rollout/compression.rs).
        return name[: -len(".zst")] not in siblings
    return name.endswith(".jsonl")


def _id_from_name(path: Path) -> str:
    """`rollout-2026-02-23T12-54-34-<uuid>.jsonl` → the uuid (the session id Codex shows)."""
    stem = path.name.split(".jsonl", 1)[0]
    tail = stem[-36:]
    if len(tail) == 36 and tail.count("-") == 4:
        return tail
    return stem.removeprefix("rollout-")


class _Rollout:
    """One read of one rollout, from the cursor on."""

    def __init__(self, source: Path, cursor: Cursor) -> None:
        self.source = source
        self.stats = ParseStats()
        state, self.offset = resume(source, cursor, STATE_VERSION)
        saved = state.get("acc")
        self.acc = SessionAcc.from_state(saved) if saved else SessionAcc(SessionInfo("", HARNESS))
        self.own: str | None = state.get("own")  # the id from the first session_meta
        self.calls: dict[str, str] = dict(state.get("calls", {}))  # call_id → tool name
        self.item_handlers: dict[str, Callable[[dict[str, Any], str | None, bool], None]] = {
            "message": self._message,
            "function_call": self._function_call,
            "custom_tool_call": self._custom_call,
            "local_shell_call": self._shell_call,
            "function_call_output": self._output,
            "custom_tool_call_output": self._output,
            "web_search_call": self._simple_call("web_search", items.web_search_text),
            "image_generation_call": self._simple_call("image_generation", _revised_prompt),
            "tool_search_call": self._simple_call("tool_search", _search_args),
            "agent_message": self._agent_message,
        }

    def run(self) -> ParseResult:
        reader = LineReader(self.source, self.offset, self.stats)
        acc = self.acc
        stamped: str | None = ""  # never a time: `iso_fast` gives None or a non-empty string
        for rec in reader:
            kind = rec.get("type")
            payload = rec.get("payload")
            if isinstance(payload, dict) and isinstance(kind, str):
                ts = iso_fast(rec.get("timestamp"))
                if ts != stamped:
                    # Lines often share a time, and stamping one again changes nothing.
                    acc.stamp(ts)
                    stamped = ts
                if kind == "response_item":
                    self._item(payload, ts, True)
                elif kind == "event_msg":
                    self._event(payload, ts)
                elif kind == "turn_context":
                    self._turn_context(payload)
                elif kind == "session_meta":
                    self._session_meta(payload)
                elif kind == "compacted":
                    self._compacted(payload, ts)
                elif kind not in QUIET_TYPES:
                    self.stats.unknown += 1
            else:
                self._legacy(rec)
        if reader.restarted:
            # A compressed rollout came back shorter than the cursor: read it whole, afresh.
            return _Rollout(self.source, Cursor()).run()
        if not acc.info.id:
            acc.info.id = _id_from_name(self.source)
        sessions = [acc.result()] if acc.touched else []
        self.calls = newest(self.calls, _MAX_CALL_IDS)
        state = {"v": STATE_VERSION, "acc": acc.to_state(), "own": self.own, "calls": self.calls}
        return ParseResult(sessions, Cursor(reader.offset, state), self.stats)

    def _legacy(self, rec: dict[str, Any]) -> None:
        """Pre-envelope rollouts: a bare header `{id, timestamp, …}`, then bare ResponseItems."""
        if "record_type" in rec:
            return
        kind = rec.get("type")
        ts = iso_fast(rec.get("timestamp"))
        if kind is None and isinstance(rec.get("id"), str):
            self._session_meta(rec)
        elif isinstance(kind, str):
            self.acc.stamp(ts)
            self._item(rec, ts, False)
        else:
            self.stats.unknown += 1

    # -- metadata ------------------------------------------------------------------------------

    def _session_meta(self, meta: dict[str, Any]) -> None:
        sid = meta.get("session_id") or meta.get("id")
        info = self.acc.info
        if self.own is None:
            if not isinstance(sid, str) or not sid:
                return
            self.acc.stamp(iso_fast(meta.get("timestamp")))
            self.own = info.id = sid
            info.parent_id = items.parent_of(meta)
            cwd = meta.get("cwd")
            if isinstance(cwd, str) and cwd:
                info.cwd = cwd
            git = meta.get("git")
            if isinstance(git, dict) and isinstance(git.get("branch"), str):
                info.git_branch = git["branch"]
        elif isinstance(sid, str) and sid and sid != self.own and info.parent_id is None:
            # A fork copies its parent's rollout, session_meta included: that id is the parent.
            info.parent_id = sid

    def _turn_context(self, ctx: dict[str, Any]) -> None:
        info = self.acc.info
        model = ctx.get("model")
        if isinstance(model, str) and model:
            info.model = model
        if info.cwd is None:
            cwd = ctx.get("cwd")
            if isinstance(cwd, str) and cwd:
                info.cwd = cwd

    # -- response items ------------------------------------------------------------------------

    def _item(self, item: dict[str, Any], ts: str | None, enveloped: bool) -> None:
        kind = item.get("type")
        handler = self.item_handlers.get(kind) if isinstance(kind, str) else None
        if handler is not None:
            handler(item, ts, enveloped)
        elif kind == "reasoning":
            self.stats.reasoning += 1
        elif kind not in items.QUIET_ITEMS:
            self.stats.unknown += 1

    def _message(self, item: dict[str, Any], ts: str | None, enveloped: bool) -> None:
        role = item.get("role")
        text = items.message_text(item.get("content"))
        if not text:
            return
        if role == "assistant":
            self.acc.add(ANSWER, text, ts)
        elif role == "user":
            if items.is_injected(text):
                self.acc.add(SYSTEM, text, ts)
            elif enveloped:
                self.stats.duplicates += 1  # the prompt is indexed from event_msg/user_message
            else:
                self._prompt(text, ts)
        else:
            self.acc.add(SYSTEM, text, ts)

    def _prompt(self, text: str, ts: str | None) -> None:
        self.acc.add(PROMPT, text, ts)
        self.acc.set_title(text, RANK_PROMPT, replace_equal=False)

    def _call(self, item: dict[str, Any], name: str, text: str, ts: str | None, **extra: Any) -> None:
        self.acc.add(TOOL_CALL, text, ts, tool=name, **extra)
        call_id = item.get("call_id")
        if isinstance(call_id, str) and call_id:
            self.calls[call_id] = name

    def _function_call(self, item: dict[str, Any], ts: str | None, enveloped: bool) -> None:
        name = _name(item)
        text, paths, edited = items.call_turn(name, items.parse_arguments(item.get("arguments")))
        self._call(item, name, text, ts, paths=paths, edited=edited)

    def _custom_call(self, item: dict[str, Any], ts: str | None, enveloped: bool) -> None:
        name = _name(item)
        text, paths, edited = items.call_turn(name, items.parse_arguments(item.get("input")))
        self._call(item, name, text, ts, paths=paths, edited=edited)

    def _shell_call(self, item: dict[str, Any], ts: str | None, enveloped: bool) -> None:
        text, paths, edited = items.call_turn("local_shell", items.shell_call(item))
        self._call(item, "local_shell", text, ts, paths=paths, edited=edited)

    def _simple_call(
        self, name: str, render: Callable[[dict[str, Any]], str]
    ) -> Callable[[dict[str, Any], str | None, bool], None]:
        def handle(item: dict[str, Any], ts: str | None, enveloped: bool) -> None:
            self._call(item, name, render(item), ts)

        return handle

    def _output(self, item: dict[str, Any], ts: str | None, enveloped: bool) -> None:
        call_id = item.get("call_id")
        tool = self.calls.pop(call_id, None) if isinstance(call_id, str) else None
        text, failed = items.output_turn(item.get("output"), item)
        self.acc.add(TOOL_OUTPUT, text, ts, tool=tool, is_error=failed)

    def _agent_message(self, item: dict[str, Any], ts: str | None, enveloped: bool) -> None:
        # A message between collaborating agents (author → recipient): context, not the user's.
        text = items.message_text(item.get("content"))
        if text:
            self.acc.add(SYSTEM, text, ts)

    # -- events and compaction -----------------------------------------------------------------

    def _event(self, event: dict[str, Any], ts: str | None) -> None:
        kind = event.get("type")
        if kind == "user_message":
            message = event.get("message")
            if isinstance(message, str) and message.strip():
                self._prompt(message.strip(), ts)
        elif kind in items.ECHO_EVENTS or (isinstance(kind, str) and kind.startswith("collab_")):
            self.stats.duplicates += 1
        elif kind in ("error", "task_complete", "turn_complete"):
            message = items.error_event(event)
            if message:
                self.acc.add(ERROR, message, ts, is_error=True)
        elif kind == "thread_name_updated":
            name = event.get("thread_name")
            if isinstance(name, str):
                self.acc.set_title(name, RANK_THREAD_NAME)

    def _compacted(self, payload: dict[str, Any], ts: str | None) -> None:
        message = text_of(payload.get("message")).strip()
        if message:
            self.acc.add(SUMMARY, message, ts)
        else:
            self.acc.add(SYSTEM, "Conversation compacted", ts)


def _name(item: dict[str, Any]) -> str:
    name = item.get("name")
    return name if isinstance(name, str) and name else "tool"


def _revised_prompt(item: dict[str, Any]) -> str:
    value = item.get("revised_prompt")
    return value if isinstance(value, str) else ""


def _search_args(item: dict[str, Any]) -> str:
    return render_fields(item.get("arguments"))
