"""Aider: the per-repository `.aider.chat.history.md` Markdown log (FORMATS.md §9).

The file is append-only Markdown: `# aider chat started at …` opens a session, `#### ` lines are
the person's prompt (a multi-line prompt is consecutive `#### ` lines), `> ` lines are aider's own
output (banner, command results, errors) and every other line is the model's answer. Aider keeps
no session id, so one is derived from the file's path and the header's start time.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterator
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippo_git.transcripts.jsonl import cap
from hippo_git.transcripts.model import (
    ANSWER,
    PROMPT,
    SYSTEM,
    TOOL_OUTPUT,
    TOOL_TEXT_CAP,
    Cursor,
    ParsedSession,
    ParseResult,
    ParseStats,
    SessionInfo,
    Turn,
)
from hippo_git.transcripts.regular import read_regular

HISTORY_SUFFIX = ".aider.chat.history.md"
_HEADER = re.compile(r"^# aider chat started at (\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)\s*$")
_ADDED = re.compile(r"^Added (.+?) to the chat")
_APPLIED = re.compile(r"^Applied edit to (.+?)\s*$")
_MODEL = re.compile(r"^(?:Main )?[Mm]odel: (\S+)")
_ERRORS = ("Error", "Traceback", "litellm.", "Exception")
_SKIP_DIRS = {"node_modules", "__pycache__", "venv"}


class AiderAdapter:
    harness = "aider"
    append_only = True

    def discover(self, root: Path) -> Iterator[Path]:
        # Aider writes its history at the git root: look there and one level down, not deeper,
        # so pointing ingest at a big workspace stays a couple of directory listings.
        if root.is_file():
            if root.name.endswith(HISTORY_SUFFIX):
                yield root
            return
        if not root.is_dir():
            return
        dirs = [root]
        for child in sorted(root.iterdir()):
            if child.is_dir() and not child.name.startswith(".") and child.name not in _SKIP_DIRS:
                dirs.append(child)
        for folder in dirs:
            for path in sorted(folder.glob("*" + HISTORY_SUFFIX)):
                if path.is_file():
                    yield path

    def parse(self, source: Path, cursor: Cursor) -> ParseResult:
        data = read_regular(source)
        offset = cursor.offset
        fresh = offset == 0 or offset > len(data)
        if fresh:
            offset = 0
        state: dict[str, Any] = {} if fresh else dict(cursor.state)
        end = data.rfind(b"\n", offset) + 1  # only whole lines: a line still being written waits
        if end <= offset:
            return ParseResult([], Cursor(offset, state), ParseStats())
        text = data[offset:end].decode("utf-8", errors="replace")
        reader = _HistoryReader(source, state)
        for line in text.split("\n")[:-1]:
            reader.feed(line.rstrip())
        sessions = reader.finish()
        return ParseResult(sessions, Cursor(end, reader.state()), reader.stats)


class _HistoryReader:
    """Folds the Markdown lines into sessions and turns; resumable from its saved state."""

    def __init__(self, source: Path, state: dict[str, Any]) -> None:
        self.source = source
        self.stats = ParseStats()
        self.sessions: list[ParsedSession] = []
        self.seen: dict[str, int] = dict(state.get("seen", {}))
        self.current: ParsedSession | None = None
        self.next_seq = 0
        self.prompted = False
        self.block_kind: str | None = None
        self.block: list[str] = []
        self.in_fence = False
        if state.get("info"):
            self.current = ParsedSession(SessionInfo(**state["info"]), mode="append")
            self.sessions.append(self.current)
            self.next_seq = int(state.get("next_seq", 0))
            self.prompted = bool(state.get("prompted", False))

    def feed(self, line: str) -> None:
        self.stats.records += 1
        header = _HEADER.match(line)
        if header:
            self._flush()
            self._start(header.group(1))
            return
        if self.current is None:
            if line.strip():
                self.stats.unknown += 1  # text before the first header: not part of any session
            return
        if self.in_fence:
            # Inside a code fence of an answer (edit blocks end in `>>>>>>> REPLACE`) every line is text.
            self.block.append(line)
            self.in_fence = not line.lstrip().startswith("```")
        elif line.startswith("####"):
            self._add_line("prompt", line[5:] if line.startswith("#### ") else line[4:])
        elif line == ">" or line.startswith("> "):
            self._add_line("output", line[2:])
        elif line.strip():
            self._add_line("answer", line)
            self.in_fence = line.lstrip().startswith("```")
        elif self.block_kind == "answer":
            self.block.append("")  # blank lines separate paragraphs inside an answer only

    def finish(self) -> list[ParsedSession]:
        self._flush()
        return [s for s in self.sessions if s.mode == "replace" or s.turns]

    def state(self) -> dict[str, Any]:
        if self.current is None:
            return {"seen": self.seen}
        return {
            "info": asdict(self.current.info),
            "next_seq": self.next_seq,
            "prompted": self.prompted,
            "seen": self.seen,
        }

    def _start(self, stamp: str) -> None:
        count = self.seen.get(stamp, 0)
        self.seen[stamp] = count + 1
        key = f"{self.source.resolve()}\n{stamp}" + (f"\n{count}" if count else "")
        session_id = "aider-" + hashlib.sha1(key.encode()).hexdigest()[:16]
        started = _local_to_utc(stamp)
        info = SessionInfo(
            id=session_id,
            harness="aider",
            cwd=str(self.source.resolve().parent),
            started=started,
            ended=started,
        )
        self.current = ParsedSession(info, mode="replace")
        self.sessions.append(self.current)
        self.next_seq = 0
        self.prompted = False

    def _add_line(self, kind: str, text: str) -> None:
        if kind != self.block_kind:
            self._flush()
            self.block_kind = kind
        self.block.append(text.rstrip())

    def _flush(self) -> None:
        kind, lines = self.block_kind, self.block
        self.block_kind, self.block, self.in_fence = None, [], False
        session = self.current
        if kind is None or session is None:
            return
        text = "\n".join(lines).strip()
        if not text:
            return
        if kind == "prompt":
            self.prompted = True
            self._emit(session, Turn(self.next_seq, PROMPT, text))
        elif kind == "answer":
            self._emit(session, Turn(self.next_seq, ANSWER, text))
        else:
            self._emit(session, self._output_turn(session, lines, text))

    def _output_turn(self, session: ParsedSession, lines: list[str], text: str) -> Turn:
        paths: list[str] = []
        edited = False
        for line in lines:
            added, applied, model = _ADDED.match(line), _APPLIED.match(line), _MODEL.match(line)
            if added:
                paths.append(added.group(1))
            if applied:
                paths.append(applied.group(1))
                edited = True
            if model and session.info.model is None:
                session.info.model = model.group(1)
        is_error = any(line.startswith(_ERRORS) or "Error:" in line for line in lines)
        # Before the first prompt these lines are aider's start-up banner, not a command's output.
        kind = TOOL_OUTPUT if self.prompted else SYSTEM
        return Turn(
            self.next_seq,
            kind,
            cap(text, TOOL_TEXT_CAP),
            tool="aider" if kind == TOOL_OUTPUT else None,
            is_error=is_error,
            paths=tuple(dict.fromkeys(paths)),
            edited=edited,
        )

    def _emit(self, session: ParsedSession, turn: Turn) -> None:
        session.turns.append(turn)
        self.next_seq += 1


def _local_to_utc(stamp: str) -> str | None:
    """Aider writes its local wall-clock time; this reads it in the machine's own zone."""
    try:
        moment = datetime.strptime(stamp, "%Y-%m-%d %H:%M:%S").astimezone(UTC)
    except ValueError:
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S.000Z")


ADAPTER = AiderAdapter()
