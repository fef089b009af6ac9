"""Quoted spans of a change: what counts as quoting evidence.

Its own module so the built-in model (`git hippo model heuristic`, a process of its own when a
user configures it) reads quotes without loading the proposal records and pydantic.
"""

from __future__ import annotations

import re

# A quote in a replacement: "…", “…” or `…` of at least this many characters ("uv sync").
MIN_QUOTE = 6
_QUOTES = re.compile(r'"([^"\n]+)"|“([^”\n]+)”|`([^`\n]+)`')


def quotes_in(text: str) -> list[str]:
    """The quoted spans of `text` long enough to count as quoting evidence."""
    spans = [next(g for g in m.groups() if g is not None) for m in _QUOTES.finditer(text)]
    return [s for s in spans if len(s.strip()) >= MIN_QUOTE]
