"""Spans of secrets in a text, as the redactor claims them: earlier claims win, none overlap."""

from __future__ import annotations

import bisect

Span = tuple[int, int, str]


def claim(spans: list[Span], start: int, end: int, kind: str) -> None:
    """Add the span unless it overlaps one claimed earlier (earlier rules win)."""
    i = bisect.bisect_left(spans, (start,))
    if (i < len(spans) and spans[i][0] < end) or (i and spans[i - 1][1] > start):
        return
    spans.insert(i, (start, end, kind))


def randomish(value: str) -> bool:
    """Looks machine-made: a digit, an inner capital, or base64 punctuation."""
    return (
        any(c.isdigit() for c in value)
        or any(c.isupper() for c in value[1:])
        or any(c in "+/=" for c in value)
    )
