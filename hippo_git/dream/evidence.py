"""What one pass of one chunk may read: notes, evidence turns, sessions and human-reverted text.

Values only; `gather.py` fills them from the index, the session records and the target tree.
The same values build the prompt and check the reply, so "was it in the prompt?" is exact.
"""

from __future__ import annotations

from dataclasses import dataclass, field

# The smallest change limit: a note of a few lines may still grow by a short entry.
MIN_CHANGE_BYTES = 600


def max_change_bytes(note_text: str) -> int:
    """The largest change a proposal may make to a note: half the note (at least MIN_CHANGE_BYTES)."""
    return max(len(note_text.encode("utf-8")) // 2, MIN_CHANGE_BYTES)


@dataclass(frozen=True)
class TurnRef:
    """A transcript turn a pass may cite as evidence, by session and sequence number."""

    session: str
    seq: int
    kind: str
    text: str
    ts: str | None = None
    tool: str | None = None
    is_error: bool = False

    @property
    def id(self) -> str:
        return f"{self.session}#{self.seq}"

    def meta(self) -> dict[str, object]:
        meta: dict[str, object] = {
            "type": "turn",
            "id": self.id,
            "session": self.session,
            "seq": self.seq,
            "kind": self.kind,
        }
        if self.ts:
            meta["time"] = self.ts
        if self.tool:
            meta["tool"] = self.tool
        if self.is_error:
            meta["error"] = True
        return meta


@dataclass(frozen=True)
class NoteText:
    """A note a pass may change: its text and the blob the proposal will build on."""

    path: str  # repo-relative, e.g. "notes/build.md"
    text: str
    blob: str  # blob id in the tree the proposal will build on
    sessions: tuple[str, ...] = ()  # the chunk's sessions that touched or cited it
    new: bool = False  # a note to write for a recurring topic: it does not exist yet

    def meta(self) -> dict[str, object]:
        meta: dict[str, object] = {
            "type": "note",
            "path": self.path,
            "blob": self.blob,
            "bytes": len(self.text.encode("utf-8")),
            "max_change_bytes": max_change_bytes(self.text),
            "sessions": list(self.sessions),
        }
        if self.new:
            meta["new"] = True
        return meta


@dataclass(frozen=True)
class SessionBrief:
    """A session in a chunk, summed up for a pass: harness, times, task and handoff."""

    id: str
    harness: str = ""
    started: str | None = None
    ended: str | None = None
    task: str = ""
    handoff: str = ""

    def meta(self) -> dict[str, object]:
        return {
            "type": "session",
            "id": self.id,
            "harness": self.harness,
            "started": self.started,
            "ended": self.ended,
        }

    def text(self) -> str:
        parts = [
            f"task: {self.task}" if self.task else "",
            f"handoff: {self.handoff}" if self.handoff else "",
        ]
        return "\n".join(p for p in parts if p) or "(no task recorded)"


@dataclass(frozen=True)
class PassInput:
    """Everything one proposing run is shown."""

    notes: tuple[NoteText, ...]
    turns: tuple[TurnRef, ...]
    sessions: tuple[SessionBrief, ...] = ()
    reverted: dict[str, tuple[str, ...]] = field(default_factory=dict)  # note path → texts a human reverted
    cut_turns: int = 0  # turns left out to keep within the pass's budget

    def note(self, path: str) -> NoteText | None:
        for n in self.notes:
            if n.path == path:
                return n
        return None

    def turn_ids(self) -> set[str]:
        return {t.id for t in self.turns}

    def turns_by_id(self) -> dict[str, TurnRef]:
        return {t.id: t for t in self.turns}


def fit_budget(
    notes: list[NoteText], turns: list[TurnRef], sessions: list[SessionBrief], budget: int
) -> tuple[list[NoteText], list[TurnRef], int]:
    """Keep the notes, then as many turns (in order) as fit in `budget` bytes; returns the cut count.

    Notes come first: a proposal is about a note, and a pass with a note but too few turns is still
    useful, while turns without their note are not. A note that alone exceeds the budget is dropped.
    """
    used = sum(len(s.text().encode("utf-8")) + 200 for s in sessions)
    kept_notes = []
    for note in notes:
        size = len(note.text.encode("utf-8")) + 200
        if used + size <= budget:
            kept_notes.append(note)
            used += size
    kept_turns = []
    for turn in turns:
        size = len(turn.text.encode("utf-8")) + 200
        if used + size > budget:
            break
        kept_turns.append(turn)
        used += size
    return kept_notes, kept_turns, len(turns) - len(kept_turns)
