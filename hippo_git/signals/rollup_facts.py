"""The values the rollup rules produce and the rollup stores: commands, edits, waits, pull
requests, claims, incidents, and the per-session bundle of them. Plain frozen dataclasses."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Protocol

EXCERPT = 200


def excerpt(text: str, limit: int = EXCERPT) -> str:
    """`text` on one line, cut to `limit` characters."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def epoch(ts: str | None) -> float | None:
    """Seconds since the epoch of an ISO-8601 time, or None when there is none or it is unreadable."""
    if not ts:
        return None
    try:
        when = datetime.fromisoformat(ts)  # takes a trailing Z since Python 3.11
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return when.timestamp()


class Turn(Protocol):
    """A turn as the rules read it: `sessions.TurnRow`, or the rollup's lighter `IndexedTurn`."""

    @property
    def session_id(self) -> str: ...
    @property
    def seq(self) -> int: ...
    @property
    def kind(self) -> str: ...
    @property
    def text(self) -> str: ...
    @property
    def ts(self) -> str | None: ...
    @property
    def tool(self) -> str | None: ...
    @property
    def is_error(self) -> int: ...  # a bool, or SQLite's 0/1
    @property
    def paths(self) -> tuple[str, ...]: ...
    @property
    def edited(self) -> int: ...


@dataclass(frozen=True)
class Command:
    """A shell command an agent ran in a session, its categories and exit status."""

    seq: int  # the tool call
    out_seq: int | None  # its output (or the poll that reported its end)
    ts: str | None
    command: str
    categories: tuple[str, ...]
    exit: int | None  # None: no output seen, or it did not say
    session: str = ""

    @property
    def failed(self) -> bool:
        return self.exit is not None and self.exit != 0


@dataclass(frozen=True)
class Edit:
    """A file edit an agent made: lines added and removed, and a digest of the new text."""

    seq: int
    ts: str | None
    path: str
    added: int
    removed: int
    digest: str  # of the new text (normalised), "" when too short to compare


@dataclass(frozen=True)
class Wait:
    """A long gap between turns of a session, and whether a person's prompt ended it."""

    seq: int  # the turn after the gap
    ts: str | None
    seconds: float
    for_user: bool  # the gap ended with a person's prompt


@dataclass(frozen=True)
class PullRequest:
    """A pull request a session opened or merged."""

    seq: int
    ts: str | None
    action: str  # "opened" | "merged"
    url: str


@dataclass(frozen=True)
class Claim:
    """Something an agent said it did (tests pass, pushed, fixed, ...) and whether a command backs it."""

    seq: int
    ts: str | None
    kind: str  # tests | build | lint | pushed | merged | deployed | fixed
    text: str
    status: str  # checked | contradicted | unchecked
    evidence: Command | None = None


@dataclass(frozen=True)
class Incident:
    """Something that went wrong in a session, found by a rule, with where it shows and what caused it."""

    seq: int | None  # where it shows (the correction, the failing output ...)
    cause: int | None  # the turn that caused it, where a rule can say
    ts: str | None
    kind: str  # correction | blocked | tool_error | failing_command | destructive | overlap | redone
    rule: str
    summary: str
    excerpt: str = ""
    path: str | None = None
    other_session: str | None = None


@dataclass
class SessionFacts:
    """Everything the rollup rules found in one session: time, waits, edits, commands, claims, incidents."""

    work_seconds: float = 0.0
    wall_seconds: float = 0.0
    waits: list[Wait] = field(default_factory=list)
    edits: list[Edit] = field(default_factory=list)
    commands: list[Command] = field(default_factory=list)
    prs: list[PullRequest] = field(default_factory=list)
    claims: list[Claim] = field(default_factory=list)
    incidents: list[Incident] = field(default_factory=list)
    task: str = ""
    outcome: str = ""


@dataclass(frozen=True)
class EditRow:
    """An edit as the cross-session rules see it (from the rollup's edits table)."""

    session: str
    seq: int
    ts: str | None
    path: str
    digest: str
    at: float | None = None  # `ts` as an epoch, when the caller has it already


@dataclass(frozen=True)
class SessionSpan:
    """A session's id, start, end and parent, for rules that look across sessions."""

    id: str
    started: str | None
    ended: str | None
    parent: str | None
