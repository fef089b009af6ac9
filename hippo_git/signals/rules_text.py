"""How the rollup's rules read an answer's or a prompt's words: prose lines and sentences (not
code), and a fast test for the words a pattern needs before the pattern runs."""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Sequence

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_BULLET = re.compile(r"^\s*(?:[-*+>]|\d+[.)]|#+)\s+")
_MARKER = re.compile(r"^[^\w`\"'(\[]+")


def prose_lines(text: str) -> Iterator[str]:
    """The lines of an answer that are prose: not in a fenced block, not indented code."""
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced and not line.startswith("    "):
            yield line


def sentences(line: str) -> list[str]:
    body = _BULLET.sub("", line).replace("**", "").strip()
    body = _MARKER.sub("", body)  # ✅ and other markers before the words
    return [s.strip() for s in _SENTENCE.split(body) if s.strip()]


def prose(text: str) -> Iterable[str]:
    for line in prose_lines(text):
        yield from sentences(line)


def holds(low: str, words: Sequence[str]) -> bool:
    for word in words:  # noqa: SIM110 (`any()` over a generator takes a third longer)
        if word in low:
            return True
    return False


# Characters that `re.I` matches to an ASCII letter but `str.lower` keeps apart (ſ s, ı İ i, K k):
# where one shows, a pattern can match a text whose lower case lacks the words it needs.
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")


def folds(text: str) -> bool:
    return not text.isascii() and _FOLDS_TO_ASCII.search(text) is not None
