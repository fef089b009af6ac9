"""A session an append-only adapter is building (Claude Code, Codex), carried across incremental
reads in the source's cursor state."""

from __future__ import annotations

from dataclasses import dataclass, field, fields, replace
from typing import Any

from hippo_git.transcripts.model import ParsedSession, SessionInfo, Turn

_INFO_FIELDS = tuple(f.name for f in fields(SessionInfo))


TITLE_READ = 600  # characters of a title's source read; `index.prepare` cuts it after redaction


def title_words(text: str) -> str:
    """The first words of `text`, blanks folded, and never a word cut in two: a secret cut short
    would match no rule, so the cut to the shown length (`index.prepare.TITLE_CHARS`) is made
    after redaction."""
    words = text[: TITLE_READ + 1].split()
    if len(text) > TITLE_READ and words and not text[TITLE_READ].isspace():
        words.pop()  # the word the read ended in
    return " ".join(words)


@dataclass(slots=True)
class SessionAcc:
    """A session an append-only adapter is building; `to_state`/`from_state` carry it in a Cursor."""

    info: SessionInfo
    seq: int = 0  # the next turn's number
    title_rank: int = -1  # adapters rank their title sources; a better source replaces a worse one
    known: bool = False  # read before (restored from cursor state): this read's turns are appended
    turns: list[Turn] = field(default_factory=list)
    touched: bool = False  # this read saw a record of this session
    # Set while the last turn may still grow: Claude Code streams one message over several lines.
    extend_key: str | None = None

    def add(
        self,
        kind: str,
        text: str,
        ts: str | None = None,
        *,
        tool: str | None = None,
        is_error: bool = False,
        paths: tuple[str, ...] = (),
        edited: bool = False,
    ) -> None:
        self.turns.append(Turn(self.seq, kind, text, ts, tool, is_error, paths, edited))
        self.seq += 1
        self.touched = True
        self.extend_key = None

    def extend_last(self, text: str) -> None:
        """Append text to this read's last turn (only valid while `extend_key` is set)."""
        last = self.turns[-1]
        self.turns[-1] = replace(last, text=f"{last.text}\n\n{text}")

    def stamp(self, ts: str | None) -> None:
        self.touched = True
        if ts is None:
            return
        info = self.info
        if info.started is None or ts < info.started:
            info.started = ts
        if info.ended is None or ts > info.ended:
            info.ended = ts

    def set_title(self, text: str | None, rank: int, *, replace_equal: bool = True) -> None:
        if not text or rank < self.title_rank or (rank == self.title_rank and not replace_equal):
            return
        title = title_words(text)
        if title:
            self.info.title = title
            self.title_rank = rank

    def to_state(self) -> dict[str, Any]:
        info = self.info
        return {
            "info": {name: getattr(info, name) for name in _INFO_FIELDS},
            "seq": self.seq,
            "rank": self.title_rank,
        }

    @classmethod
    def from_state(cls, state: dict[str, Any]) -> SessionAcc:
        saved = state["info"]
        info = SessionInfo(**{name: saved.get(name) for name in _INFO_FIELDS})
        return cls(info, seq=int(state["seq"]), title_rank=int(state["rank"]), known=True)

    def result(self) -> ParsedSession:
        return ParsedSession(self.info, self.turns, "append" if self.known else "replace")
