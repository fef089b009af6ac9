"""Pieces several adapters share: finding their files, resuming from a cursor, and the one-session
log that Command Code, DeepSeek Harness, Muse Code and Cursor transcripts are read into.

A `SessionLog` is one session in one growing file. `read_log` reads the records past the cursor
into it: from the start the turns replace the session, after that they are appended to it, and the
log's own `state()` (info, turn counter, open tool calls, adapter extras) rides in the cursor.
"""

from __future__ import annotations

import hashlib
import os
from abc import ABC, abstractmethod
from collections.abc import Callable, Collection, Iterator
from dataclasses import asdict
from pathlib import Path
from typing import Any

from hippo_git.transcripts.jsonl import ZSTD_SUFFIXES, cap, records_after, text_of, tool_paths, tool_text
from hippo_git.transcripts.model import (
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

# --- finding sources --------------------------------------------------------------------------------


def jsonl_files(root: Path, skip: tuple[str, ...] = ()) -> Iterator[Path]:
    """`root` when it is a `.jsonl` file, else every `.jsonl` file below it in path order; names
    ending in one of `skip` are side streams, not sessions."""
    if root.is_file():
        if root.suffix == ".jsonl" and not root.name.endswith(skip):
            yield root
        return
    for path in sorted(root.rglob("*.jsonl")):
        if path.is_file() and not path.name.endswith(skip):
            yield path


def walk_files(root: Path, keep: Callable[[str, Collection[str]], bool]) -> Iterator[Path]:
    """`root` when it is a file `keep` takes, else the files below it that `keep` takes, folder by
    folder in name order (a folder's files before its subfolders). `keep` sees a file's name and the
    names of the files beside it (none for `root` itself)."""
    if root.is_file():
        if keep(root.name, ()):
            yield root
        return
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        siblings = set(filenames)
        folder = Path(dirpath)  # parsed once: a child path costs half a whole one
        for name in sorted(filenames):
            if keep(name, siblings):
                yield folder / name


# --- resuming -----------------------------------------------------------------------------------------


def resume(source: Path, cursor: Cursor, version: int) -> tuple[dict[str, Any], int]:
    """The state and offset to continue `source` from: none when the cursor's state is from another
    `version` or missing, or the file is now shorter than the cursor (it was replaced). A compressed
    file's size says nothing about its content: its reader notices the shrink itself."""
    state = cursor.state if cursor.offset > 0 else {}
    if state.get("v") != version:
        state = {}
    offset = cursor.offset if state else 0
    if offset and not source.name.endswith(ZSTD_SUFFIXES) and source.stat().st_size < offset:
        state, offset = {}, 0
    return state, offset


def newest(ids: dict[str, str], most: int) -> dict[str, str]:
    """`ids` (tool call id → name, kept in a cursor) cut to its newest half once it holds more than
    `most`: calls whose output never came must not make the cursor grow without end."""
    if len(ids) <= most:
        return ids
    return dict(list(ids.items())[-most // 2 :])


def digest(key: str) -> str:
    """16 hex characters standing for `key` in a cursor. Cursor state passes the redactor on every
    write, and each unique id of 20+ characters costs it a token scan; a hex digest is too short
    for one and holds no rule's gate, so the redactor reads it (it still does) at little cost."""
    return hashlib.blake2b(key.encode("utf-8", "surrogatepass"), digest_size=8).hexdigest()


# --- message content ----------------------------------------------------------------------------------


def text_runs(parts: list[Any]) -> Iterator[str | dict[str, Any]]:
    """The parts of a message in order, each run of `text` parts joined into one string: a run
    (maybe empty) comes before every other part and one at the end, so text keeps its place
    between tool calls. Parts that are not objects are skipped."""
    texts: list[str] = []
    for part in parts:
        if not isinstance(part, dict):
            continue
        if part.get("type") == "text":
            texts.append(str(part.get("text") or ""))
            continue
        yield "\n".join(texts)
        texts = []
        yield part
    yield "\n".join(texts)


def content_parts(content: Any) -> list[Any]:
    """Message content as a list of parts: a list as it is, anything else as one text part."""
    return content if isinstance(content, list) else [{"type": "text", "text": text_of(content)}]


# --- one session in one growing file ------------------------------------------------------------------


class SessionLog(ABC):
    """One session being read from one append-only file, restored from its cursor's state."""

    def __init__(self, source: Path, state: dict[str, Any], stats: ParseStats) -> None:
        self.stats = stats
        self.turns: list[Turn] = []  # this read's turns
        saved = state.get("info")
        self.info = SessionInfo(**saved) if saved else self.new_info(source)
        self.next_seq = int(state.get("next_seq", 0))
        self.calls: dict[str, str] = dict(state.get("calls", {}))  # tool call id → tool name

    @abstractmethod
    def new_info(self, source: Path) -> SessionInfo:
        """What the file's path says about a session read from its start."""

    @abstractmethod
    def add(self, record: dict[str, Any]) -> None:
        """Read one record into turns and info."""

    def state(self) -> dict[str, Any]:
        """What the next read needs; subclasses add their own keys."""
        return {"info": asdict(self.info), "next_seq": self.next_seq, "calls": self.calls}

    def stamp(self, ts: str | None) -> None:
        """Records come in time order: the first time starts the session, each later one ends it."""
        if ts:
            self.info.started = self.info.started or ts
            self.info.ended = ts

    def emit(self, kind: str, text: str, ts: str | None) -> None:
        """A turn of text, unless there is none."""
        text = text.strip()
        if text:
            self.turns.append(Turn(self.next_seq, kind, text, ts))
            self.next_seq += 1

    def emit_call(self, name: str, args: Any, ts: str | None, *, call_id: str | None = None) -> None:
        """A tool call; with `call_id`, its result will be named after the tool."""
        if call_id is not None:
            self.calls[call_id] = name
        paths, edited = tool_paths(name, self.call_input(args))
        text = tool_text(name, args, TOOL_TEXT_CAP)
        self.turns.append(Turn(self.next_seq, TOOL_CALL, text, ts, name, paths=paths, edited=edited))
        self.next_seq += 1

    def call_input(self, args: Any) -> Any:
        """The tool input its paths are read from (a subclass may decode it first)."""
        return args

    def emit_output(self, name: str, text: str, is_error: bool, ts: str | None) -> None:
        """A tool's output, kept even when empty (the call it answers is)."""
        self.turns.append(
            Turn(self.next_seq, TOOL_OUTPUT, cap(text.strip(), TOOL_TEXT_CAP), ts, name, is_error)
        )
        self.next_seq += 1


def read_log(
    make: Callable[[Path, dict[str, Any], ParseStats], SessionLog], source: Path, cursor: Cursor
) -> ParseResult:
    """Read `source` past `cursor` into the log `make` builds: one session, replaced or appended to."""
    stats = ParseStats()
    # A cursor without the session it belongs to cannot be continued: read from the start.
    start = cursor.offset if cursor.state.get("info") else 0
    records, offset, fresh = records_after(source, start, stats)
    state: dict[str, Any] = {} if fresh else cursor.state
    if not records and not fresh:
        return ParseResult([], Cursor(offset, state), stats)
    log = make(source, state, stats)
    for record in records:
        log.add(record)
    session = ParsedSession(log.info, log.turns, mode="replace" if fresh else "append")
    return ParseResult([session], Cursor(offset, log.state()), stats)
