"""Decoding one JSON line of a transcript: `orjson` when it is installed, the standard library
for whatever it rejects, and recovery of `}{`-concatenated objects. Used by `jsonl.LineReader`.

`orjson` is three times faster than `json` on transcripts, and ingest is mostly decoding. A line
it rejects goes through the standard library exactly as before (invalid UTF-8 replaced, `NaN`,
lone surrogates, `}{` recovery), and so does a line with 19 digits in a row, since `orjson` reads
an integer beyond 64 bits as a float: both paths yield the same records. `LineReader` calls
`fast_loads` inline, keeping a function call off its per-line loop.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any

from hippo_git.transcripts.model import ParseStats

_DECODER = json.JSONDecoder()
# Digits mapped to "9", everything else to " ": a run of 19 of them may be an integer orjson
# would read as a float (its range is -2**63+1 .. 2**64-1).
_DIGIT_MASK = bytes(0x39 if 0x30 <= i <= 0x39 else 0x20 for i in range(256))
_LONG_NUMBER = b"9" * 19
_LONG_NUMBER_TEXT = re.compile("[0-9]{19}")
fast_loads: Callable[[bytes | str], Any] | None
try:
    from orjson import loads as _orjson_loads
except ImportError:  # pragma: no cover - orjson is a dependency; the stdlib path is complete
    fast_loads = None
else:
    fast_loads = _orjson_loads


def long_numbers(data: bytes) -> list[int]:
    """Where the runs of 19+ digits in `data` start, last first."""
    mask = data.translate(_DIGIT_MASK)
    found: list[int] = []
    at = mask.find(_LONG_NUMBER)
    while at != -1:
        found.append(at)
        at = mask.find(b" ", at)
        at = -1 if at == -1 else mask.find(_LONG_NUMBER, at)
    found.reverse()
    return found


def loads_json(text: str) -> Any:
    """`json.loads(text)`, through `orjson` when it is installed and accepts the text (same value)."""
    if fast_loads is not None and not _LONG_NUMBER_TEXT.search(text):
        try:
            return fast_loads(text)
        except ValueError:
            pass
    return json.loads(text)


def decode_slow(line: bytes, stats: ParseStats, *, count_torn: bool) -> Iterator[dict[str, Any]]:
    """The standard library's reading of a line (what `orjson` rejects, or all lines without it)."""
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
    elif found == 0 and count_torn:
        stats.torn += 1  # a line with no JSON object in it at all
