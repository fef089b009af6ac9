"""Decoding one JSON line of a transcript: `msgspec` first, the standard library for whatever it
rejects, and recovery of `}{`-concatenated objects. Used by `jsonl.LineReader`.

`msgspec` is several times faster than `json` on transcripts, and ingest is mostly decoding. It
gives the standard library's values (integers of any size exactly, floats correctly rounded,
a repeated key's last value) and rejects what only the standard library reads: `NaN`, `Infinity`,
numbers out of a float's range, lone surrogate escapes, invalid UTF-8. A line it rejects goes
through the standard library exactly as before (invalid UTF-8 replaced, `}{` recovery), so both
paths yield the same records. `LineReader` calls `fast_loads` inline, keeping a function call off
its per-line loop.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from typing import Any

import msgspec

from hippo_git.transcripts.model import ParseStats

_DECODER = json.JSONDecoder()
fast_loads: Callable[[bytes | str], Any] = msgspec.json.Decoder().decode
# What `fast_loads` raises for a text it does not read: `msgspec.DecodeError` is a ValueError, and
# so is the UnicodeEncodeError of a `str` holding a lone surrogate. Nesting deeper than the
# recursion limit raises RecursionError, which the standard library then meets too.
FAST_REJECTS = (ValueError, RecursionError)


def loads_json(text: str) -> Any:
    """`json.loads(text)`, through `msgspec` when it accepts the text (same value); a text nested
    too deeply to read raises ValueError, like any other text that does not parse."""
    try:
        return fast_loads(text)
    except FAST_REJECTS:
        pass
    try:
        return json.loads(text)
    except RecursionError as exc:
        raise ValueError("JSON nested too deeply") from exc


def decode_slow(line: bytes, stats: ParseStats, *, count_torn: bool) -> Iterator[dict[str, Any]]:
    """The standard library's reading of a line (what `msgspec` rejects)."""
    text = line.decode("utf-8", errors="replace").strip()
    try:
        obj = json.loads(text)
    except RecursionError:
        # Nested too deeply to read: skipped like a torn line rather than failing the whole file.
        if count_torn:
            stats.torn += 1
        return
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
    elif found == 0 and count_torn:
        stats.torn += 1  # a line with no JSON object in it at all
