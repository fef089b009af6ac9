"""What the adapter tests share: reading a source, counting turns, writing JSON-lines files."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hippo_git.transcripts.model import Adapter, Cursor, ParsedSession, ParseResult


@dataclass(frozen=True)
class Reads:
    """One adapter's reads as the tests make them: from the start unless a cursor is given."""

    adapter: Adapter

    def parse(self, path: Path, cursor: Cursor | None = None) -> ParseResult:
        return self.adapter.parse(path, cursor or Cursor())

    def one(self, path: Path) -> ParsedSession:
        """The only session a read from the start finds."""
        result = self.parse(path)
        assert len(result.sessions) == 1
        return result.sessions[0]


def line_cuts(data: bytes, most: int) -> list[int]:
    """About `most` offsets just past a line end, spread over `data` (its last line end left out)."""
    ends = [i + 1 for i, b in enumerate(data) if b == 0x0A][:-1]
    return ends[:: max(1, len(ends) // most)]


def read_in_two(adapter: Adapter, path: Path, data: bytes, cut: int) -> tuple[ParseResult, ParseResult]:
    """`data[:cut]` read from the start at `path`, then all of `data` read on from that cursor,
    its state sent through JSON as the index stores it."""
    path.write_bytes(data[:cut])
    first = adapter.parse(path, Cursor())
    path.write_bytes(data)
    state = json.loads(json.dumps(first.cursor.state))
    return first, adapter.parse(path, Cursor(first.cursor.offset, state))


def kinds(session: ParsedSession) -> dict[str, int]:
    """A session's turns counted by kind."""
    return dict(Counter(t.kind for t in session.turns))


def by_id(sessions: Iterable[ParsedSession]) -> dict[str, ParsedSession]:
    return {s.info.id: s for s in sessions}


def jsonl(*records: Any) -> str:
    """One line per record; a string is written as it is (a damaged line)."""
    return "".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records)


def write_jsonl(path: Path, *records: Any, tail: str = "") -> Path:
    """A new JSON-lines file (its folders made), ending in `tail`: a line still being written."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(jsonl(*records) + tail)
    return path


def append_jsonl(path: Path, *records: Any, tail: str = "") -> None:
    """More lines at the end of a JSON-lines file (made when absent), as a harness writes them."""
    with path.open("a") as handle:
        handle.write(jsonl(*records) + tail)
