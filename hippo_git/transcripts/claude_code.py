"""Claude Code transcripts: `~/.claude/projects/<encoded-cwd>/<sessionId>.jsonl` (FORMATS.md §1).

One file is one session, plus its subagents. Subagents come in three layouts: inline
`isSidechain` lines in the parent file (≤1.0), sibling `agent-<id>.jsonl` files (~2.0), and
`<sessionId>/subagents/agent-<id>.jsonl` (2.1). Each subagent is its own session with id
`<parentSessionId>/agent-<agentId>` and `parent_id` = the parent session. A 2.1 parent also
carries `agent_progress` copies of its subagents' messages: they are indexed only when the
subagent's own file is absent, so nothing is indexed twice.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Collection, Iterator
from itertools import islice
from pathlib import Path
from typing import Any

from hippo_git.transcripts import claude_code_blocks as blocks
from hippo_git.transcripts.base import digest, newest, resume, walk_files
from hippo_git.transcripts.jsonl import LineReader, iso_fast, text_of
from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SUMMARY,
    SYSTEM,
    TOOL_CALL,
    TOOL_OUTPUT,
    Cursor,
    ParsedSession,
    ParseResult,
    ParseStats,
    SessionInfo,
)
from hippo_git.transcripts.regular import read_regular
from hippo_git.transcripts.session_acc import SessionAcc

HARNESS = "claude-code"
STATE_VERSION = 1
# Title sources, worst to best (FORMATS.md: custom-title > ai-title > summary).
RANK_PROMPT, RANK_SLUG, RANK_SUMMARY, RANK_META, RANK_AI, RANK_CUSTOM = range(6)
_MAX_TOOL_IDS = 512
# Resuming a session can write its last lines again (same uuid and time). A read remembers every
# line it saw; the cursor keeps digests of only the last few, which is where a resume repeats lines.
_RECENT_UUIDS = 16
# A conversation line's handler gets the session it belongs to (None: route it) and its time.
_TurnHandler = Callable[[dict[str, Any], SessionAcc | None, str | None], None]


class ClaudeCodeAdapter:
    harness = HARNESS
    append_only = True

    def discover(self, root: Path) -> Iterator[Path]:
        return walk_files(root, _is_transcript)

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        return _FileParse(source, cursor).run()


ADAPTER = ClaudeCodeAdapter()


def _is_transcript(name: str, siblings: Collection[str]) -> bool:
    return name.endswith(".jsonl") and name not in blocks.NOT_TRANSCRIPTS


class _FileParse:
    """One read of one file, from the cursor on."""

    def __init__(self, source: Path, cursor: Cursor) -> None:
        self.source = source
        self.stats = ParseStats()
        state, self.offset = resume(source, cursor, STATE_VERSION)
        self.agent_file = blocks.is_subagent_file(source)
        self._restore(state)
        self.progress_file: dict[str, bool] = {}  # agentId → its subagent file exists
        self.turn_handlers: dict[str, _TurnHandler] = {
            "user": self._user,
            "assistant": self._assistant,
            "system": self._system,
        }
        self.handlers: dict[str, Callable[[dict[str, Any]], None]] = {
            "progress": self._progress,
            "attachment": self._attachment,
            "summary": self._titled("summary", RANK_SUMMARY),
            "ai-title": self._titled("aiTitle", RANK_AI),
            "custom-title": self._titled("customTitle", RANK_CUSTOM),
        }

    # -- state ---------------------------------------------------------------------------------

    def _restore(self, state: dict[str, Any]) -> None:
        self.sid: str | None = state.get("sid")
        self.agent_type: str | None = state.get("agent_type")
        main = state.get("main")
        self.main = SessionAcc.from_state(main) if main else SessionAcc(SessionInfo("", HARNESS))
        self.subs = {key: SessionAcc.from_state(sub) for key, sub in state.get("subs", {}).items()}
        self.side: dict[str, str] = dict(state.get("side", {}))
        self.tools: dict[str, str] = dict(state.get("tools", {}))
        self.recent: dict[str, None] = {}  # this read's lines, as "<uuid> <time>"
        # Earlier reads' last lines as `digest`s, kept as one string (the redactor's cheapest
        # shape: no word of 20 characters, no gate); a cursor from before digests kept the keys.
        self.seen: list[str] = [*state.get("seen", "").split(), *map(digest, state.get("recent", ()))]
        self.fresh = not state
        if self.fresh and self.agent_file:
            self._read_meta()

    def _state(self) -> dict[str, Any]:
        self.tools = newest(self.tools, _MAX_TOOL_IDS)
        mine = list(islice(reversed(self.recent), _RECENT_UUIDS))[::-1]
        return {
            "v": STATE_VERSION,
            "sid": self.sid,
            "main": self.main.to_state(),
            "subs": {key: acc.to_state() for key, acc in self.subs.items()},
            "side": self.side,
            "tools": self.tools,
            "seen": " ".join((self.seen + [digest(key) for key in mine])[-_RECENT_UUIDS:]),
            "agent_type": self.agent_type,
        }

    def _read_meta(self) -> None:
        """`agent-<id>.meta.json` beside a subagent file: its type and description name it."""
        meta_path = self.source.with_name(self.source.name[: -len(".jsonl")] + ".meta.json")
        try:
            meta = json.loads(read_regular(meta_path).decode("utf-8"))
        except (OSError, ValueError):
            return
        if not isinstance(meta, dict):
            return
        kind = meta.get("agentType")
        desc = meta.get("description")
        if isinstance(desc, str) and desc:
            self.main.set_title(f"{kind}: {desc}" if isinstance(kind, str) else desc, RANK_META)
        elif isinstance(kind, str) and kind:
            self.agent_type = kind

    # -- the read ------------------------------------------------------------------------------

    def run(self) -> ParseResult:
        reader = LineReader(self.source, self.offset, self.stats)
        turn_handlers, handlers, stats, recent = self.turn_handlers, self.handlers, self.stats, self.recent
        seen = frozenset(self.seen)  # empty unless resuming: only then is a line's key digested
        for rec in reader:
            if self.sid is None:
                sid = rec.get("sessionId")
                if isinstance(sid, str) and sid:
                    self.sid = sid
            kind = rec.get("type")
            if not isinstance(kind, str):
                stats.unknown += 1  # a list or object here used to stop the read
                continue
            turn = turn_handlers.get(kind)
            if turn is not None:
                ts = iso_fast(rec.get("timestamp"))
                uuid = rec.get("uuid")
                if isinstance(uuid, str) and ts is not None:
                    key = f"{uuid} {ts}"
                    if key in recent or (seen and digest(key) in seen):
                        stats.duplicates += 1
                        continue
                    recent[key] = None
                turn(rec, None, ts)
                continue
            handler = handlers.get(kind)
            if handler is not None:
                handler(rec)
            elif kind not in blocks.QUIET_TYPES:
                stats.unknown += 1
        if reader.restarted:
            # A compressed file came back shorter than the cursor: read it whole, afresh.
            return _FileParse(self.source, Cursor()).run()
        if self.sid is None and not self.main.turns and "subagents" not in self.source.parts:
            # Only title lines so far: the session id is not known yet, so read again from the top.
            return ParseResult([], Cursor(), self.stats)
        return ParseResult(self._sessions(), Cursor(reader.offset, self._state()), self.stats)

    def _sessions(self) -> list[ParsedSession]:
        main_id, parent = self._main_id()
        self.main.info.id = main_id
        self.main.info.parent_id = parent
        out = []
        if self.main.touched:
            out.append(self.main.result())
        for key, acc in self.subs.items():
            acc.info.id = f"{main_id}/agent-{key}"
            acc.info.parent_id = main_id
            if acc.touched:
                out.append(acc.result())
        return out

    def _main_id(self) -> tuple[str, str | None]:
        stem = self.source.name[: -len(".jsonl")] if self.source.name.endswith(".jsonl") else self.source.stem
        if not self.agent_file:
            return self.sid or stem, None
        parts = self.source.parts
        parent = self.sid or stem
        if "subagents" in parts:
            at = len(parts) - 1 - parts[::-1].index("subagents")
            if at > 0:
                parent = parts[at - 1]
        return f"{parent}/{stem}", parent

    # -- routing -------------------------------------------------------------------------------

    def _route(self, rec: dict[str, Any], ts: str | None) -> SessionAcc:
        """The session a conversation line belongs to; stamps its time, cwd and branch."""
        acc = self.main
        if rec.get("isSidechain") and not self.agent_file:
            uuid = rec.get("uuid")
            key = str(rec.get("agentId") or self.side.get(rec.get("parentUuid") or "") or uuid or "sidechain")
            if isinstance(uuid, str):
                self.side[uuid] = key
            acc = self._sub(key)
        self._touch(acc, rec, ts)
        return acc

    def _sub(self, key: str) -> SessionAcc:
        acc = self.subs.get(key)
        if acc is None:
            acc = self.subs[key] = SessionAcc(SessionInfo("", HARNESS))
        return acc

    def _touch(self, acc: SessionAcc, rec: dict[str, Any], ts: str | None) -> None:
        acc.stamp(ts)
        info = acc.info
        if info.cwd is None:
            cwd = rec.get("cwd")
            if isinstance(cwd, str) and cwd:
                info.cwd = cwd
        branch = rec.get("gitBranch")
        if isinstance(branch, str) and branch:
            info.git_branch = branch
        if acc.title_rank < RANK_SLUG and acc is self.main and not self.agent_file:
            # A subagent's lines carry its parent's slug: its own first prompt names it better.
            slug = rec.get("slug")
            if isinstance(slug, str):
                acc.set_title(slug, RANK_SLUG, replace_equal=False)

    # -- record handlers -----------------------------------------------------------------------

    def _titled(self, key: str, rank: int) -> Callable[[dict[str, Any]], None]:
        def handle(rec: dict[str, Any]) -> None:
            value = rec.get(key)
            if isinstance(value, str):
                self.main.set_title(value, rank)
                self.main.touched = True

        return handle

    def _user(self, rec: dict[str, Any], acc: SessionAcc | None, ts: str | None) -> None:
        acc = acc or self._route(rec, ts)
        msg = rec.get("message")
        content = msg.get("content") if isinstance(msg, dict) else None
        if rec.get("isCompactSummary"):
            text = text_of(content).strip()
            if text:
                acc.add(SUMMARY, text, ts)
            return
        meta = bool(rec.get("isMeta"))
        if isinstance(content, str):
            self._user_text(acc, content, meta, ts)
            return
        if not isinstance(content, list):
            return
        pending: list[str] = []
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                value = block.get("text")
                if isinstance(value, str):
                    pending.append(value)
            elif kind == "tool_result":
                if pending:
                    self._user_text(acc, "\n".join(pending), meta, ts)
                    pending = []
                tool_id = block.get("tool_use_id")
                tool = self.tools.pop(tool_id, None) if isinstance(tool_id, str) else None
                acc.add(
                    TOOL_OUTPUT,
                    blocks.tool_result_text(block),
                    ts,
                    tool=tool,
                    is_error=block.get("is_error") is True,
                )
        if pending:
            self._user_text(acc, "\n".join(pending), meta, ts)

    def _user_text(self, acc: SessionAcc, text: str, meta: bool, ts: str | None) -> None:
        text = text.strip()
        if not text:
            return
        if meta or text.startswith(blocks.NOTICE_PREFIXES):
            acc.add(SYSTEM, text, ts)
            return
        acc.add(PROMPT, text, ts)
        if acc.title_rank < RANK_PROMPT + 1:
            kind = self.agent_type if acc is self.main else None
            acc.set_title(f"{kind}: {text}" if kind else text, RANK_PROMPT, replace_equal=False)

    def _assistant(self, rec: dict[str, Any], acc: SessionAcc | None, ts: str | None) -> None:
        acc = acc or self._route(rec, ts)
        msg = rec.get("message")
        if not isinstance(msg, dict):
            return
        content = msg.get("content")
        model = msg.get("model")
        synthetic = model == "<synthetic>"
        if isinstance(model, str) and model and not synthetic:
            acc.info.model = model
        if rec.get("isApiErrorMessage") or (synthetic and rec.get("error")):
            text = text_of(content).strip() or blocks.error_text(rec.get("error")) or "API error"
            acc.add(ERROR, text, ts, is_error=True)
            return
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        elif not isinstance(content, list):
            return
        mid = msg.get("id")
        key = mid if isinstance(mid, str) and mid else f"#{self.stats.records}"
        for block in content:
            if not isinstance(block, dict):
                continue
            kind = block.get("type")
            if kind == "text":
                value = block.get("text")
                value = value.strip() if isinstance(value, str) else ""
                if not value:
                    continue
                if acc.extend_key == key and acc.turns:
                    acc.extend_last(value)
                else:
                    acc.add(ANSWER, value, ts)
                    acc.extend_key = key
            elif kind == "thinking" or kind == "redacted_thinking":
                self.stats.reasoning += 1
            elif kind in ("tool_use", "server_tool_use"):
                name = block.get("name")
                name = name if isinstance(name, str) and name else "tool"
                text, paths, edited = blocks.tool_call(name, block.get("input"))
                acc.add(TOOL_CALL, text, ts, tool=name, paths=paths, edited=edited)
                tool_id = block.get("id")
                if isinstance(tool_id, str):
                    self.tools[tool_id] = name
            elif isinstance(kind, str) and kind.endswith("_tool_result"):
                text = blocks.tool_result_text(block)
                if text:
                    acc.add(TOOL_OUTPUT, text, ts, tool=kind[: -len("_tool_result")])

    def _system(self, rec: dict[str, Any], acc: SessionAcc | None, ts: str | None) -> None:
        acc = acc or self._route(rec, ts)
        turn = blocks.system_turn(rec)
        if turn is not None:
            kind, text = turn
            acc.add(kind, text, ts, is_error=kind == ERROR)

    def _attachment(self, rec: dict[str, Any]) -> None:
        # A prompt typed while the agent was busy reaches it as a `queued_command` attachment.
        att = rec.get("attachment")
        if isinstance(att, dict) and att.get("type") == "queued_command":
            text = text_of(att.get("prompt"))
            if text.strip():
                ts = iso_fast(rec.get("timestamp"))
                self._user_text(self._route(rec, ts), text, False, ts)

    def _progress(self, rec: dict[str, Any]) -> None:
        data = rec.get("data")
        if not isinstance(data, dict) or data.get("type") != "agent_progress":
            return
        agent_id = data.get("agentId")
        inner = data.get("message")
        if not isinstance(agent_id, str) or not agent_id or not isinstance(inner, dict):
            return
        if self._subagent_file_exists(agent_id):
            self.stats.duplicates += 1
            return
        kind = inner.get("type")
        if kind not in ("user", "assistant"):
            return
        sub = self._sub(agent_id)
        # The copy is timed by the subagent's message; its cwd and branch are the parent line's.
        ts = iso_fast(inner.get("timestamp") or rec.get("timestamp"))
        self._touch(sub, rec, ts)
        self.turn_handlers[kind](inner, sub, ts)

    def _subagent_file_exists(self, agent_id: str) -> bool:
        known = self.progress_file.get(agent_id)
        if known is None:
            name = f"agent-{agent_id}.jsonl"
            folder = self.source.parent
            known = (folder / name).is_file() or (
                self.sid is not None and (folder / self.sid / "subagents" / name).is_file()
            )
            self.progress_file[agent_id] = known
        return known
