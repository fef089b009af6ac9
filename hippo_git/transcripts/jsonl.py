"""Reading JSON-lines transcripts robustly: torn lines, `}{`-concatenated objects, zstd files.

Every JSONL adapter reads through `LineReader`, which yields plain dicts and tracks the byte
offset just past the last complete line, so a growing file can be read again from there.

Lines are decoded by `jsonl_decode` (`msgspec`, with the standard library behind it).
"""

from __future__ import annotations

import json
import os
import re
import sqlite3
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote

from hippo_git.transcripts.jsonl_decode import FAST_REJECTS, decode_slow, fast_loads, loads_json
from hippo_git.transcripts.model import ParseStats
from hippo_git.transcripts.regular import open_regular, read_regular

ZSTD_SUFFIXES = (".zst", ".zstd")


@dataclass(slots=True)
class LineReader:
    """Yields dict records from `path` starting at `offset`; `offset` advances per complete line."""

    path: Path
    offset: int
    stats: ParseStats
    # Set when the file turned out shorter than `offset` and was read from the start again:
    # an adapter then drops the session state it kept in its cursor.
    restarted: bool = False

    def __iter__(self) -> Iterator[dict[str, Any]]:
        data, base = self._read()
        pos = self.offset - base
        end = len(data)
        stats = self.stats
        loads, rejects = fast_loads, FAST_REJECTS
        while pos < end:
            nl = data.find(b"\n", pos)
            if nl == -1:
                # A last line without a newline may still be being written: only take it when
                # it parses whole, and do not move the cursor past it unless it is complete.
                # There is at most one such line, so it takes the standard library's reading.
                tail = data[pos:]
                records = list(decode_slow(tail, self.stats, count_torn=False))
                if records and tail.rstrip().endswith(b"}"):
                    self.offset = base + end
                    yield from records
                return
            line = data[pos:nl]
            pos = nl + 1
            self.offset = base + pos
            try:
                obj = loads(line)
            except rejects:
                pass
            else:
                stats.records += 1
                if isinstance(obj, dict):
                    yield obj
                else:
                    stats.unknown += 1
                continue
            if line.strip():
                yield from decode_slow(line, stats, count_torn=True)

    def _read(self) -> tuple[bytes, int]:
        """The bytes from `offset` on, and the file offset they start at: a growing file is read
        from where the last read stopped, not whole again. A file now shorter than `offset` is read
        from the start (`restarted`); a compressed file is always decompressed whole."""
        if self.path.name.endswith(ZSTD_SUFFIXES):
            data = read_bytes(self.path)
            if self.offset > len(data):
                self.offset = 0
                self.restarted = True
            return data, 0
        with open_regular(self.path) as handle:
            if self.offset > os.fstat(handle.fileno()).st_size:
                self.offset = 0
                self.restarted = True
            handle.seek(self.offset)
            return handle.read(), self.offset


def read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when it is a zstd file."""
    raw = read_regular(path)
    if path.name.endswith(ZSTD_SUFFIXES):
        return _decompress_frames(raw)
    return raw


def _decompress_frames(raw: bytes) -> bytes:
    """Decompress a stream of zstd frames, stopping quietly at a frame still being written.

    DeepSeek Harness appends one frame per batch, so a live log can end in a partial frame:
    what decompressed before it is returned and the torn tail is left for the next read.
    """
    import zstandard  # imported here: only compressed transcripts need it

    dctx = zstandard.ZstdDecompressor()
    out: list[bytes] = []
    while raw:
        frame = dctx.decompressobj()
        try:
            chunk = frame.decompress(raw)
        except zstandard.ZstdError:
            break
        if not frame.eof:
            break
        out.append(chunk)
        raw = frame.unused_data
    return b"".join(out)


def text_of(content: Any) -> str:
    """Flatten the common shapes of message content (str, list of blocks, dict) into text."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [text_of(item) for item in content]
        return "\n".join(p for p in parts if p)
    if isinstance(content, dict):
        for key in ("text", "content", "output", "result"):
            if key in content:
                return text_of(content[key])
        return ""
    return str(content)


def cap(text: str, limit: int) -> str:
    """Size-cap tool text, saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit] + f"\n[… {len(text) - limit} more characters not indexed]"


# --- small helpers shared by the adapters -----------------------------------------------------------

_PATH_KEYS = (
    "file_path",
    "filePath",
    "path",
    "file",
    "filename",
    "notebook_path",
    "target_file",
    "absolute_path",
    "paths",
    "files",
    "file_paths",
)
_PATH_KEY_SET = frozenset(_PATH_KEYS)
_PATCH_KEYS = ("patch", "input", "patchText")
_EDIT_WORDS = ("write", "edit", "patch", "replace", "create", "delete", "move", "rename", "insert")
# `*** Update File: <path>` at the start of a line of a patch (`_patch_files` checks the start: a
# pattern that begins with a literal is searched far quicker than one anchored with `^` and re.M).
_PATCH_FILE = re.compile(r"\*\*\* (?:Add|Update|Delete) File: (.+)")


def iso_ms(value: Any) -> str | None:
    """Epoch milliseconds → ISO-8601 UTC with milliseconds (`2026-02-23T12:54:34.123Z`)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return None
    try:
        moment = datetime.fromtimestamp(value / 1000, tz=UTC)
    except (OverflowError, OSError, ValueError):
        return None
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def iso_text(value: Any) -> str | None:
    """An ISO-8601 / RFC 3339 string in any offset → ISO-8601 UTC with milliseconds."""
    if not isinstance(value, str) or not "0" <= value[:1] <= "9":
        return None  # not a time (`fromisoformat` wants the year's digits first): no exception to raise
    try:
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return iso_ms(moment.timestamp() * 1000)


def tool_text(name: str | None, args: Any, limit: int) -> str:
    """A tool call rendered for search: its name, then its input as JSON (strings kept as they are)."""
    if args is None or args == {} or args == "":
        body = ""
    elif isinstance(args, str):
        body = args
    else:
        body = json.dumps(args, ensure_ascii=False, default=str)
    return cap(f"{name or 'tool'} {body}".rstrip(), limit)


def tool_paths(name: str | None, args: Any) -> tuple[tuple[str, ...], bool]:
    """The file paths a tool input names, and whether the tool (by its name) writes them."""
    if isinstance(args, str):
        stripped = args.strip()
        if stripped.startswith("{"):
            try:
                args = loads_json(stripped)
            except ValueError:
                return (), False
        else:
            patched = tuple(dict.fromkeys(m.strip() for m in _patch_files(args)))
            return patched, bool(patched)
    if not isinstance(args, dict):
        return (), False
    found: list[str] = []
    if not _PATH_KEY_SET.isdisjoint(args):
        for key in _PATH_KEYS:
            value = args.get(key)
            if isinstance(value, str):
                if value and "\n" not in value:
                    found.append(value)
            elif isinstance(value, list):
                found.extend(v for v in value if isinstance(v, str) and v and "\n" not in v)
    for key in _PATCH_KEYS:
        value = args.get(key)
        if isinstance(value, str):
            found.extend(m.strip() for m in _patch_files(value))
    paths = tuple(dict.fromkeys(found))
    lowered = (name or "").lower()
    edited = bool(paths) and any(word in lowered for word in _EDIT_WORDS)
    return paths, edited


def _patch_files(text: str) -> list[str]:
    """The paths a patch's `*** Add/Update/Delete File:` lines name, in order."""
    if "*** " not in text:
        return []
    return [m[1] for m in _PATCH_FILE.finditer(text) if not m.start() or text[m.start() - 1] == "\n"]


def connect_readonly(path: Path) -> sqlite3.Connection:
    """Open another program's SQLite database without ever writing to it.

    `mode=ro` reads a live database consistently, with the owner's locks. A WAL database that
    nobody has open (no `-wal` beside it) is read with `immutable=1`, because a read-only
    connection would otherwise leave fresh `-wal`/`-shm` files in the owner's folder; the same
    fallback serves databases that `mode=ro` cannot open (read-only media).
    """
    base = "file:" + quote(str(path.resolve()))
    queries = ["?mode=ro", "?mode=ro&immutable=1"]
    try:
        with open_regular(path) as handle:  # a FIFO named like a database would block sqlite too
            header = handle.read(20)
    except OSError:
        header = b""
    wal_mode = len(header) == 20 and header[18] == 2
    if wal_mode and not Path(f"{path}-wal").exists():
        queries.reverse()
    last: sqlite3.Error | None = None
    for query in queries:
        conn = sqlite3.connect(base + query, uri=True, timeout=5.0)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        except sqlite3.Error as exc:
            conn.close()
            last = exc
            continue
        conn.row_factory = sqlite3.Row
        return conn
    assert last is not None
    raise last


def records_after(path: Path, offset: int, stats: ParseStats) -> tuple[list[dict[str, Any]], int, bool]:
    """The records past `offset`, the offset after the last complete line, and whether the read
    started from the beginning (offset 0, or a file now shorter than the cursor)."""
    reader = LineReader(path, offset, stats)
    records = list(reader)
    return records, reader.offset, offset == 0 or reader.restarted


def render_fields(value: Any) -> str:
    """A tool input as searchable text: one `key: value` line per field, strings unescaped
    (JSON would turn newlines in code into `\\n`, which the FTS tokenizer glues onto words)."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(
            f"{key}: {_field_text(item)}" for key, item in value.items() if item is not None and item != ""
        )
    return _field_text(value)


def _field_text(item: Any) -> str:
    if isinstance(item, str):
        return item
    # JSON's own spelling of the commonest scalars, without building an encoder per value.
    if item is True or item is False:
        return "true" if item else "false"
    if type(item) is int:
        return str(item)
    if isinstance(item, list) and all(isinstance(part, str) for part in item):
        return " ".join(item)
    return json.dumps(item, ensure_ascii=False)


def iso_fast(value: Any) -> str | None:
    """A record's timestamp: the common `…T…Z` form as it is, anything else through `iso_text`."""
    if isinstance(value, str) and len(value) >= 20 and value[-1] == "Z" and value[10:11] == "T":
        return value
    return iso_text(value)


def as_dict(value: Any) -> dict[str, Any]:
    """`value` when it is a JSON object, else an empty one: lets optional nesting be read in one go."""
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    """`value` when it is a JSON array, else an empty one."""
    return value if isinstance(value, list) else []


def as_str(value: Any) -> str | None:
    """`value` when it is a non-empty string, else None (for SessionInfo fields read from records)."""
    return value if isinstance(value, str) and value else None
