"""The values every adapter produces: sessions, turns, and a cursor for incremental reads.

Adapters read raw transcript records as plain dicts (the inner loop of ingest stays light) and
yield these slotted dataclasses. Text here is *raw*: `transcripts.redact` is applied by the
index before anything is stored (invariant 2).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

# The kinds a turn can have. Reasoning/thinking blocks are never a turn: adapters only count them.
PROMPT = "prompt"  # a person's words to the agent
ANSWER = "answer"  # the agent's visible text
TOOL_CALL = "tool_call"  # the agent invoking a tool (name + input, rendered as text)
TOOL_OUTPUT = "tool_output"  # what a tool returned
SUMMARY = "summary"  # compaction summaries, session summaries/titles carried as text
ERROR = "error"  # API errors and harness failures shown in the transcript
SYSTEM = "system"  # harness notices worth keeping (compaction boundaries, injected instructions)
TURN_KINDS = (PROMPT, ANSWER, TOOL_CALL, TOOL_OUTPUT, SUMMARY, ERROR, SYSTEM)

# Tool calls and tool output are size-capped before indexing (characters).
TOOL_TEXT_CAP = 8_000


@dataclass(slots=True)
class Turn:
    """One indexed unit of a session, numbered from 0 in transcript order within its session.

    Not frozen: ingest makes one per turn, and a frozen dataclass's `__init__` (a
    `object.__setattr__` per field) cost three times a plain one's. Treat it as a value all the same."""

    seq: int
    kind: str
    text: str
    ts: str | None = None  # ISO-8601 UTC, e.g. "2026-02-23T12:54:34.123Z"
    tool: str | None = None  # tool name for tool_call / tool_output
    is_error: bool = False  # a failed tool call or an error line
    # Paths the turn read or edited (tool inputs), so ingest can tell which notes a session touched.
    paths: tuple[str, ...] = ()
    edited: bool = False  # True when the tool call wrote/edited `paths`


@dataclass(slots=True)
class SessionInfo:
    """What is known about a session. Mutable while an adapter builds it."""

    id: str  # the harness's own id (Claude Code's sessionId, Codex's session id, ...)
    harness: str
    cwd: str | None = None
    title: str | None = None
    started: str | None = None  # ISO-8601 UTC of the first record
    ended: str | None = None  # ISO-8601 UTC of the last record
    parent_id: str | None = None  # subagent → parent session, fork → forked-from session
    model: str | None = None
    git_branch: str | None = None


@dataclass(slots=True)
class ParsedSession:
    """A session read from a source: its info and turns, replacing or appending to what is indexed."""

    info: SessionInfo
    turns: list[Turn] = field(default_factory=list)
    # "replace": these turns are the whole session as found in this source (delete old, insert).
    # "append": these turns continue the session from `first_seq` given in the cursor.
    mode: str = "replace"


@dataclass(slots=True)
class ParseStats:
    """Counts of what an adapter read and skipped in one parse."""

    records: int = 0  # records (lines, rows, messages) read
    unknown: int = 0  # records of a type the adapter does not know: counted, skipped
    torn: int = 0  # torn or garbage lines skipped
    recovered: int = 0  # `}{`-concatenated objects split and recovered
    reasoning: int = 0  # thinking/reasoning blocks seen (never indexed)
    # copies of content indexed from another record (Codex event_msg echoes of response items,
    # Claude Code agent_progress copies of a subagent file): counted, skipped
    duplicates: int = 0


@dataclass(slots=True)
class Cursor:
    """Where the last read of a source stopped. `state` is adapter-owned and JSON-serialisable."""

    offset: int = 0  # byte offset just past the last complete record consumed
    state: dict[str, Any] = field(default_factory=dict)


@dataclass(slots=True)
class ParseResult:
    """What an adapter read from one source: its sessions, the cursor to resume from, and counts."""

    sessions: list[ParsedSession]
    cursor: Cursor
    stats: ParseStats


class Adapter(Protocol):
    """One per harness, in `transcripts/<harness>.py`, registered in `transcripts/registry.py`."""

    harness: str  # e.g. "claude-code"
    append_only: bool  # True for JSONL-like files that grow; False for databases/whole-JSON files

    def discover(self, root: Path) -> Iterator[Path]:
        """Yield every transcript source (file or database) under `root`."""
        ...

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        """Read `source` from `cursor` (offset 0 and empty state = from the start)."""
        ...
