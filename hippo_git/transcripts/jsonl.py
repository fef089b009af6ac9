"""Reading JSON-lines transcripts robustly: torn lines, `}{`-concatenated objects, zstd files.

Every JSONL adapter reads through `read_records`, which yields plain dicts and tracks the byte
offset just past the last complete line, so a growing file can be read again from there.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hippo_git.transcripts.model import ParseStats

_DECODER = json.JSONDecoder()
ZSTD_SUFFIXES = (".zst", ".zstd")


@dataclass(slots=True)
class LineReader:
    """Yields dict records from `path` starting at `offset`; `offset` advances per complete line."""

    path: Path
    offset: int
    stats: ParseStats

    def __iter__(self) -> Iterator[dict[str, Any]]:
        data = read_bytes(self.path)
        if self.offset > len(data):
            self.offset = 0
        pos = self.offset
        end = len(data)
        while pos < end:
            nl = data.find(b"\n", pos)
            if nl == -1:
                # A last line without a newline may still be being written: only take it when
                # it parses whole, and do not move the cursor past it unless it is complete.
                tail = data[pos:]
                records = list(_decode_line(tail, self.stats, count_torn=False))
                if records and tail.rstrip().endswith(b"}"):
                    self.offset = end
                    yield from records
                return
            line = data[pos:nl]
            pos = nl + 1
            self.offset = pos
            if line.strip():
                yield from _decode_line(line, self.stats, count_torn=True)


def read_bytes(path: Path) -> bytes:
    """The file's bytes, decompressed when it is a zstd file."""
    raw = path.read_bytes()
    if path.name.endswith(ZSTD_SUFFIXES):
        import zstandard  # imported here: only compressed transcripts need it

        with zstandard.ZstdDecompressor().stream_reader(raw) as reader:
            return reader.read()
    return raw


def _decode_line(line: bytes, stats: ParseStats, *, count_torn: bool) -> Iterator[dict[str, Any]]:
    text = line.decode("utf-8", errors="replace").strip()
    try:
        obj = json.loads(text)
    except ValueError:
        yield from _split_concatenated(text, stats, count_torn=count_torn)
        return
    stats.records += 1
    if isinstance(obj, dict):
        yield obj
    else:
        stats.unknown += 1


def _split_concatenated(text: str, stats: ParseStats, *, count_torn: bool) -> Iterator[dict[str, Any]]:
    """Recover `{...}{...}` lines object by object; skip what does not parse."""
    pos = 0
    found = 0
    while pos < len(text):
        start = text.find("{", pos)
        if start == -1:
            break
        try:
            obj, end = _DECODER.raw_decode(text, start)
        except ValueError:
            if count_torn:
                stats.torn += 1
            return
        pos = end
        if isinstance(obj, dict):
            found += 1
            stats.records += 1
            yield obj
    if found > 1:
        stats.recovered += found


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
