"""Reading one source into rows ready to store: plan the read, parse, redact every string.

This is the half of ingest that needs no database, so it can run in worker processes
(`index.pipeline`) while the one writer (`index.writer`) stores what they prepared. Every string
a `Prepared` holds has passed through the `Scrubber` (invariant 2); the writer stores it as given.

Planning a read: an append-only source that grew is read from its stored cursor; one that shrank
or whose head changed is read whole and its old turns replaced. The head hash is kept with its
length, so a small file that grows is compared over the bytes it had.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import msgspec

from hippo_git.index.scrub import Scrubber
from hippo_git.transcripts.model import (
    ANSWER,
    PROMPT,
    TOOL_CALL,
    TOOL_OUTPUT,
    TURN_KINDS,
    Cursor,
    ParsedSession,
    ParseResult,
    ParseStats,
    Turn,
)
from hippo_git.transcripts.registry import get_adapter
from hippo_git.transcripts.regular import read_head

HEAD_BYTES = 4096
TITLE_CHARS = 120

# Notes a turn cites: `[[target]]`, `[[target|label]]`, `[[target#heading]]`, and `*.md` paths.
_LINK = re.compile(r"\[\[([^\[\]\n|#]{1,200})(?:[|#][^\[\]\n]{0,200})?\]\]")
_MD_PATH = re.compile(r"(?<![\w./~-])((?:~|\.{1,2})?/?[\w][\w./@+-]{0,300}?\.md)(?![\w/-])")
# Injected context (system notices, compaction summaries) does not count as the session citing.
_CITING_KINDS = frozenset((PROMPT, ANSWER, TOOL_CALL, TOOL_OUTPUT))
_KINDS = frozenset(TURN_KINDS)

# (seq, kind, text, ts, tool, is_error, paths_json, edited): a turn as the writer stores it.
Row = tuple[int, str, str, str | None, str | None, int, str | None, int]


@dataclass(frozen=True, slots=True)
class Task:
    """One source to read. `row` is the index's (offset, state_json, size, head_hash) for it, or
    None for a new source or a forced re-read of a `known` one."""

    harness: str
    path: str
    size: int  # as found by discovery
    is_dir: bool
    row: tuple[int, str, int, str | None] | None
    known: bool


@dataclass(slots=True)
class PreparedSession:
    """One session's rows from a source, redacted and ready to write, with its metadata, paths, mentions."""

    sid: str
    harness: str
    # cwd, title, started, ended, parent_id, model, git_branch
    meta: tuple[str | None, str | None, str | None, str | None, str | None, str | None, str | None]
    append: bool  # the turns continue the session (else they are the whole of it in this source)
    rows: list[Row]  # seqs unique, in transcript order
    paths: dict[str, int]  # path -> 1 when a turn edited it
    mentions: set[tuple[str, str]]  # (target, "link" | "path")


@dataclass(slots=True)
class Prepared:
    """A source read and redacted; `error` (redacted) when it could not be read."""

    offset: int = 0
    state_json: str = "{}"
    head_hash: str | None = None
    reset: bool = False  # re-read whole: its old turns go first
    sessions: tuple[PreparedSession, ...] = ()
    stats: ParseStats | None = None
    secrets: tuple[tuple[str, int], ...] = ()
    error: str | None = None


def prepare(task: Task, scrub: Scrubber) -> Prepared:
    """Read and redact one source. A broken transcript (or an adapter bug) becomes `error`."""
    scrub.reset({})
    try:
        adapter = get_adapter(task.harness)
        cursor, reset, head = plan(task, adapter.append_only)
        result: ParseResult = adapter.parse(Path(task.path), cursor)
        state = scrub.state(result.cursor.state)
        sessions = tuple(_session(scrub, task.harness, parsed) for parsed in result.sessions)
    except Exception as exc:  # a broken transcript (or adapter bug) must not stop the rest
        scrub.reset({})
        error = scrub.small(f"{type(exc).__name__}: {exc}")
        return Prepared(error=error, secrets=tuple(scrub.counts.items()))
    return Prepared(
        offset=result.cursor.offset,
        state_json=_dumps(state),
        head_hash=head,
        reset=reset,
        sessions=sessions,
        stats=result.stats,
        secrets=tuple(scrub.counts.items()),
    )


def plan(task: Task, append_only: bool) -> tuple[Cursor, bool, str | None]:
    """The cursor to read from, whether the source's old turns must go first, and its head hash.
    `append_only`: the adapter reads the source as a file that only grows."""
    path, row = Path(task.path), task.row
    if task.is_dir or not append_only:
        # Databases and whole-file JSON: the adapter's own state says what changed inside.
        return (Cursor(), False, None) if row is None else (Cursor(row[0], _state(row[1])), False, None)
    size = task.size
    if row is None:
        return Cursor(), task.known, _head_hash(path, min(size, HEAD_BYTES))
    offset, state, old_size, old_head = row
    head_len = _head_len(old_head)
    head = _head_hash(path, head_len)
    if size >= old_size and head == old_head:
        if head_len < HEAD_BYTES and size > head_len:
            head = _head_hash(path, min(size, HEAD_BYTES))
        return Cursor(offset, _state(state)), False, head
    return Cursor(), True, _head_hash(path, min(size, HEAD_BYTES))


def _session(scrub: Scrubber, harness: str, parsed: ParsedSession) -> PreparedSession:
    info = parsed.info
    scrub.start_session()  # a secret redacted in this session is redacted wherever it recurs in it
    rows, paths, mentions = _turn_rows(scrub, parsed.turns)
    return PreparedSession(
        sid=scrub.small(str(info.id)),
        harness=scrub.small(info.harness or harness),
        meta=(
            scrub.opt(info.cwd),
            _title(scrub.opt(info.title)),
            scrub.ts(info.started),
            scrub.ts(info.ended),
            scrub.opt(info.parent_id),
            scrub.opt(info.model),
            scrub.opt(info.git_branch),
        ),
        append=parsed.mode == "append",
        rows=rows,
        paths=paths,
        mentions=mentions,
    )


def _title(title: str | None) -> str | None:
    """A title as stored: cut to TITLE_CHARS once redacted (cut first, a secret split at the cut
    would match nothing), never inside a `[redacted:kind]` marker."""
    if title is None or len(title) <= TITLE_CHARS:
        return title
    cut = title[:TITLE_CHARS]
    marker = cut.rfind("[")
    if marker != -1 and title.startswith("[redacted:", marker) and "]" not in cut[marker:]:
        cut = cut[:marker]
    return cut.rstrip()


def _turn_rows(scrub: Scrubber, turns: list[Turn]) -> tuple[list[Row], dict[str, int], set[tuple[str, str]]]:
    rows: list[Row] = []
    paths: dict[str, int] = {}
    mentions: set[tuple[str, str]] = set()
    seen: set[int] = set()
    text_of, small, ts = scrub.text, scrub.small, scrub.ts
    same_ts: str | None = None  # the last time that came back as it was: turns often share one
    for turn in turns:
        if turn.seq in seen:
            continue  # an adapter repeating a seq: the first one stands
        seen.add(turn.seq)
        text = text_of(turn.text) if turn.text else ""
        kind = turn.kind if turn.kind in _KINDS else small(str(turn.kind))
        paths_json = None
        edited = 1 if turn.edited else 0
        if turn.paths:
            clean = [small(p) for p in turn.paths if p]
            paths_json = _dumps(clean)
            for p in clean:
                if paths.get(p, -1) < edited:
                    paths[p] = edited
        if kind in _CITING_KINDS and ("[[" in text or ".md" in text):
            mentions.update(_mentions(text))
        tool = small(turn.tool) if turn.tool else None
        when = turn.ts
        if when is not None and when != same_ts:
            stored = ts(when)
            same_ts = when if stored is when else None
            when = stored
        rows.append((turn.seq, kind, text, when, tool, 1 if turn.is_error else 0, paths_json, edited))
    return rows, paths, mentions


def _mentions(text: str) -> set[tuple[str, str]]:
    found: set[tuple[str, str]] = set()
    if "[[" in text:
        found.update((m.strip(), "link") for m in _LINK.findall(text) if m.strip())
    if ".md" in text:
        found.update((m, "path") for m in _md_paths(text))
    return found


def _md_paths(text: str) -> list[str]:
    """`_MD_PATH` matches, looked for only in the blank-free stretches around each `.md`: a path
    holds no blank, and the pattern tried at every word of a long text was most of its cost."""
    found: list[str] = []
    end = len(text)
    at = text.find(".md")
    while at != -1:
        start = max(text.rfind(" ", 0, at), text.rfind("\n", 0, at), text.rfind("\t", 0, at)) + 1
        stop = min(
            (i for i in (text.find(" ", at), text.find("\n", at), text.find("\t", at)) if i != -1),
            default=end,
        )
        found += _MD_PATH.findall(text, start, stop)
        at = text.find(".md", stop)
    return found


def _dumps(value: Any) -> str:
    """Compact JSON, non-ASCII as it is; the standard library for what msgspec refuses (keys
    that are not str or numbers, subclasses of str or int, lone surrogates: a ValueError)."""
    try:
        return msgspec.json.encode(value).decode()
    except (TypeError, ValueError):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _state(text: str) -> dict[str, Any]:
    try:
        value = json.loads(text or "{}")
    except ValueError:
        return {}
    return value if isinstance(value, dict) else {}


def _head_len(head: str | None) -> int:
    if not head or ":" not in head:
        return HEAD_BYTES
    length = head.split(":", 1)[0]
    return int(length) if length.isdigit() else HEAD_BYTES


def _head_hash(path: Path, length: int) -> str | None:
    """`<length>:<sha256 of the first length bytes>`; the length is kept so a small file that grows
    is compared over the bytes it had."""
    try:
        data = read_head(path, length)
    except OSError:
        return None
    return f"{len(data)}:{hashlib.sha256(data).hexdigest()}"
