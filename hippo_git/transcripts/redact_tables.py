"""The compiled tables `redact.py` scans with, built once from the formats in `redact_rules.py`:
vendor tokens keyed by their first two characters, prefix-less shapes keyed by run length, the
context and assignment rules, and the tree of literal gates that decides which rules run.
"""

from __future__ import annotations

import re

from hippo_git.transcripts import redact_rules as formats

Rule = tuple[str, re.Pattern[str], bool, tuple[str, ...], bool]
GateKid = tuple[str, bool, int]  # (literal, look in the lowercased text, the rules it enables)
GateNode = tuple[str, int, tuple[GateKid, ...]]  # (literal, rules it enables, gates tried after it)
_PARENT_CHARS = "~!($@=/:_-"


def tokens() -> dict[bytes, list[tuple[str, re.Pattern[str]]]]:
    """Vendor token patterns keyed by their first two (literal) characters."""
    table: dict[bytes, list[tuple[str, re.Pattern[str]]]] = {}
    for kind, pattern in formats.TOKENS:
        if re.escape(pattern[:2]) != pattern[:2]:
            raise ValueError(f"a token pattern must start with two literal characters: {pattern!r}")
        table.setdefault(pattern[:2].encode(), []).append((kind, re.compile(pattern)))
    return table


def shapes() -> dict[int, list[tuple[str, re.Pattern[str], re.Pattern[str] | None]]]:
    table: dict[int, list[tuple[str, re.Pattern[str], re.Pattern[str] | None]]] = {}
    for kind, lengths, pattern, context in formats.SHAPES:
        for length in lengths:
            entry = (kind, re.compile(pattern), re.compile(context) if context else None)
            table.setdefault(length, []).append(entry)
    return table


def rules() -> tuple[list[Rule], list[tuple[tuple[str, ...], bool]]]:
    """(kind, or family for assignments; regex; matches the lowercased text; secret groups; is an
    assignment), and each rule's gates. Anchored rules claim their spans before assignments."""
    found: list[Rule] = []
    gates: list[tuple[tuple[str, ...], bool]] = []
    for kind, literals, low, pattern in formats.ANCHORED:
        rx = re.compile(pattern)
        found.append((kind, rx, low, tuple(g for g in ("s", "t", "u", "n") if g in rx.groupindex), False))
        gates.append((tuple(g.lower() if low else g for g in literals), low))
    for family, literals, head in formats.ASSIGN_HEADS:
        found.append((family, re.compile(head + formats.ASSIGN_TAIL), True, (), True))
        gates.append((literals, True))
    return found, gates


def gate_tree(
    rule_gates: list[tuple[tuple[str, ...], bool]],
) -> tuple[tuple[GateNode, ...], tuple[GateNode, ...]]:
    """Gates nested under a rarer character or a shorter word they contain, so that text without
    `/` never pays for the `://` scan, nor text without `pass` for `password`. Returns the nodes
    under characters (looked up in the text) and under words (looked up in the lowercased text)."""
    enables: dict[tuple[str, bool], int] = {}
    for i, (literals, low) in enumerate(rule_gates):
        for literal in literals:
            enables[(literal, low)] = enables.get((literal, low), 0) | 1 << i
    words = [literal for literal, low in enables if not any(c in literal for c in _PARENT_CHARS)]
    if any(not low for literal, low in enables if literal in words):
        raise ValueError(f"a gate without one of {_PARENT_CHARS!r} must be looked up in lowercase")
    nodes: dict[str, list[GateKid]] = {}
    for (literal, low), mask in enables.items():
        char = next((c for c in _PARENT_CHARS if c in literal), None)
        parent = char or next((w for w in words if w != literal and w in literal), literal)
        nodes.setdefault(parent, []).append((literal, low, mask))
    by_char: list[GateNode] = []
    by_word: list[GateNode] = []
    for parent, kids in nodes.items():
        own = next((mask for literal, _, mask in kids if literal == parent), 0)
        node = (parent, own, tuple(kid for kid in kids if kid[0] != parent))
        (by_char if parent in _PARENT_CHARS else by_word).append(node)
    return tuple(by_char), tuple(by_word)
