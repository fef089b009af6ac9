"""The compiled tables `redact.py` scans with, built once from the formats in `redact_rules.py`:
vendor tokens keyed by their first two characters, prefix-less shapes keyed by run length, the
context and assignment rules, and the literal gates of each rule (looked up by `redact_gates`).
"""

from __future__ import annotations

import re
import sys
from collections.abc import Callable, Iterator
from typing import Any

from hippo_git.transcripts import redact_rules as formats


class LazyPattern:
    """A regex compiled on its first use, which then takes this stand-in's place in its table
    (`settle`), so a scanning loop meets the compiled pattern from then on and pays nothing more.
    Compiling every table at import cost ~100 ms; the pre-commit check of a few notes reaches a
    handful of patterns, ingest all of them within its first transcripts."""

    __slots__ = ("pattern", "_settle")

    def __init__(self, pattern: str, settle: Callable[[re.Pattern[str]], None]) -> None:
        self.pattern = pattern
        self._settle = settle

    def compiled(self) -> re.Pattern[str]:
        rx = re.compile(self.pattern)
        self._settle(rx)
        return rx

    def match(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().match(text, pos, endpos)

    def fullmatch(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().fullmatch(text, pos, endpos)

    def search(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> re.Match[str] | None:
        return self.compiled().search(text, pos, endpos)

    def finditer(self, text: str, pos: int = 0, endpos: int = sys.maxsize) -> Iterator[re.Match[str]]:
        return self.compiled().finditer(text, pos, endpos)


Pattern = re.Pattern[str] | LazyPattern
Rule = tuple[str, Pattern, bool, tuple[str, ...], bool, tuple[str, ...]]


def tokens() -> dict[bytes, list[tuple[str, Pattern]]]:
    """Vendor token patterns keyed by their first two (literal) characters, compiled when first used."""
    table: dict[bytes, list[tuple[str, Pattern]]] = {}
    for kind, pattern in formats.TOKENS:
        if re.escape(pattern[:2]) != pattern[:2]:
            raise ValueError(f"a token pattern must start with two literal characters: {pattern!r}")
        slots = table.setdefault(pattern[:2].encode(), [])
        slots.append((kind, LazyPattern(pattern, _settle_at(slots, len(slots), 1))))
    return table


def _settle_at(table: list[Any], i: int, field: int) -> Callable[[re.Pattern[str]], None]:
    """Puts a compiled pattern in field `field` of the tuple at `table[i]`."""

    def settle(rx: re.Pattern[str]) -> None:
        row = table[i]
        table[i] = (*row[:field], rx, *row[field + 1 :])

    return settle


def shapes() -> dict[int, list[tuple[str, re.Pattern[str], re.Pattern[str] | None]]]:
    table: dict[int, list[tuple[str, re.Pattern[str], re.Pattern[str] | None]]] = {}
    for kind, lengths, pattern, context in formats.SHAPES:
        if context and re.search(context, ""):
            raise ValueError(f"a shape's context must need some text: {context!r}")
        for length in lengths:
            entry = (kind, re.compile(pattern), re.compile(context) if context else None)
            table.setdefault(length, []).append(entry)
    return table


def rules() -> tuple[list[Rule], list[tuple[tuple[str, ...], bool]]]:
    """(kind, or family for assignments; regex; matches the lowercased text; secret groups; is an
    assignment; the literal its matches start with, when longer than its gates), and each rule's
    gates. Anchored rules claim their spans before assignments."""
    found: list[Rule] = []
    gates: list[tuple[tuple[str, ...], bool]] = []
    for kind, literals, low, pattern in formats.ANCHORED:
        rx = LazyPattern(pattern, _settle_at(found, len(found), 1))
        gates.append((tuple(g.lower() if low else g for g in literals), low))
        leads = _leads(pattern)
        # Worth a look of their own only when no gate already holds one (`/api/v1/` behind `//`).
        if any(len(lead) < 3 or any(lead in gate for gate in gates[-1][0]) for lead in leads):
            leads = ()
        groups = tuple(g for g in ("s", "t", "u", "n", "b") if f"(?P<{g}>" in pattern)
        found.append((kind, rx, low, groups, False, leads))
    for family, literals, head in formats.ASSIGN_HEADS:
        assign = LazyPattern(head + formats.ASSIGN_TAIL, _settle_at(found, len(found), 1))
        found.append((family, assign, True, (), True, ()))
        gates.append((literals, True))
    return found, gates


def _leads(pattern: str) -> tuple[str, ...]:
    """Literals one of which every match of `pattern` starts with (none when unsure): its lead,
    or, for a pattern that opens with a group of alternatives `(?:a|b…)`, the lead of each (a
    rule gated on `: |` runs only where one of the words before it occurs at all)."""
    lead = _lead(pattern)
    if lead or not pattern.startswith("(?:"):
        return (lead,) if lead else ()
    alternatives, depth, start, i = [], 0, 3, 3
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 1
        elif c == "[":
            return ()  # a class among the alternatives: unsure
        elif c == "(":
            depth += 1
        elif c == ")" and depth:
            depth -= 1
        elif c == ")":
            if pattern[i + 1 : i + 2] in ("?", "*", "{"):
                return ()  # the group may match nothing: a match need not start with it
            alternatives.append(pattern[start:i])
            break
        elif c == "|" and depth == 0:
            alternatives.append(pattern[start:i])
            start = i + 1
        i += 1
    else:
        return ()
    leads = tuple(_lead(alternative) for alternative in alternatives)
    return leads if leads and all(leads) else ()


def _lead(pattern: str) -> str:
    """The literal every match of `pattern` starts with ("" when unsure): its leading plain
    characters, less one that a quantifier makes optional; nothing when `|` splits the whole."""
    depth, i = 0, 0
    while i < len(pattern):
        c = pattern[i]
        if c == "\\":
            i += 1
        elif c == "[":  # a class: skip to its end (a `]` first in it is literal)
            i += 2 if pattern[i + 1 : i + 2] == "^" else 1
            i += 1 if pattern[i : i + 1] == "]" else 0
            while i < len(pattern) and pattern[i] != "]":
                i += 2 if pattern[i] == "\\" else 1
        elif c in "()":
            depth += 1 if c == "(" else -1
        elif c == "|" and depth == 0:
            return ""
        i += 1
    lead, i = [], 0
    while i < len(pattern):
        if pattern[i] == "\\" and not pattern[i + 1 : i + 2].isalnum():
            char, i = pattern[i + 1 : i + 2], i + 2
        elif pattern[i] not in ".^$*+?{}[]\\|()":
            char, i = pattern[i], i + 1
        else:
            break
        if pattern[i : i + 1] in ("?", "*", "{"):
            break
        lead.append(char)
        if pattern[i : i + 1] == "+":
            break
    return "".join(lead)
