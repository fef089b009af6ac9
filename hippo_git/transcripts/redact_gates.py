"""Which rules run on a text: each rule's literal gates, looked up in one pass.

`gate_lookup` gives `hits(text, low)`, the rules whose gates occur in `text` as bits, by one of
two engines that give the same bits. Where the `hyperscan` wheel is installed, all the gates are
one Hyperscan database, and a text is scanned once (a tenth of the pure-Python cost on long
text). Elsewhere (no wheel for the platform, or `HIPPO_REDACT_ENGINE=re`), the standard library:
in short text each gate with `in`, nested under a rarer character or shorter gate it contains, so
that text without `/` never pays for `://`; in long text a pass apiece would add up to most of
the cost, so the gates are put in groups that share a rare character (`GateGroups`): one regex a
group, about one pass, tells which of its gates occur.
"""

from __future__ import annotations

import os
import re
import threading
from collections.abc import Callable

RuleGates = list[tuple[tuple[str, ...], bool]]
Gate = tuple[str, bool, int]  # (literal, look in the lowercased text, the rules it enables)
GateKid = tuple[str, bool, int, tuple[Gate, ...]]  # a Gate, and the gates tried only after it
GateNode = tuple[str, int, tuple[GateKid, ...]]  # (literal, rules it enables, gates tried after it)
# Where a gate's group finds it: (group or -1 for none, the group's literal it holds as a bit,
# whether finding that literal is finding the gate)
Found = tuple[int, int, bool]
GroupGate = tuple[str, bool, int, int, int, bool]  # a Gate and its Found
GroupKid = tuple[str, bool, int, tuple[GroupGate, ...], int, int, bool]  # a GateKid and its Found
GroupNode = tuple[str, int, tuple[GroupKid, ...]]
WordNode = tuple[str, int, tuple[GateKid, ...], int, int, bool]  # a word's GateNode and its Found
_PARENTS = "~!($@=/:_-"
# The anchors of gate groups, rarest first in code and prose (0.5-3% of the characters each).
ANCHORS = "kb(=puc/"
_RARE_PARENTS = "~$"  # their gates are looked up directly: the character itself is seldom there
# Looked up directly: found early in most long texts (comments, URLs), and in a group it would
# stand for the rarer gates tried after it (`://`, `1//0`).
_COMMON = ("//",)
# From this length on, gates are looked up through their groups; below it the calls cost more.
LONG = 600


def engine() -> str:
    """The gate engine this process uses: "hyperscan" when its wheel loads, else "re"."""
    if os.environ.get("HIPPO_REDACT_ENGINE", "").strip().lower() == "re":
        return "re"
    try:
        import hyperscan  # noqa: F401
    except ImportError:  # no wheel for this platform: the standard library does it
        return "re"
    return "hyperscan"


def gate_lookup(rule_gates: RuleGates, long: int = LONG, use: str | None = None) -> Callable[[str, str], int]:
    """`hits(text, low)`: the rules whose gates occur in `text` (`low` is it lowercased, one
    byte a character, non-ASCII as `?`), as bits; by `use` ("hyperscan" or "re"; default:
    `engine()`). For "re": gates without letters are looked for in `low`; from `long`
    characters on, the nested gates are found through their groups, and none once every rule it
    enables runs (both ways give the same bits)."""
    chosen = use or engine()
    if chosen == "hyperscan":
        import hyperscan

        try:
            return _hyperscan_lookup(rule_gates)
        except hyperscan.error:
            # The wheel loads but its library refuses this CPU (Hyperscan needs SSSE3): the
            # standard library, unless the caller asked for Hyperscan by name.
            if use == "hyperscan":
                raise
    return _re_lookup(rule_gates, long)


def _hyperscan_lookup(rule_gates: RuleGates) -> Callable[[str, str], int]:
    """One Hyperscan database of every gate literal, each reported once per scan. A text is
    scanned as ASCII with `?` for the rest, which is `low` up to case: a gate read in the
    lowercased text is matched caselessly (ASCII letters only, as in `low`)."""
    import hyperscan  # only here: a process that never redacts never loads it

    masks: dict[tuple[str, bool], int] = {}
    for i, (literals, on_low) in enumerate(rule_gates):
        for literal in literals:
            if not literal.isascii() or (on_low and literal != literal.lower()):
                raise ValueError(f"a gate must be ASCII, and lowercase when read lowercased: {literal!r}")
            masks[(literal, on_low)] = masks.get((literal, on_low), 0) | 1 << i
    keys = list(masks)
    bits = [masks[key] for key in keys]
    database = hyperscan.Database(mode=hyperscan.HS_MODE_BLOCK)
    database.compile(
        expressions=[re.escape(literal).encode() for literal, _ in keys],
        ids=list(range(len(keys))),
        flags=[hyperscan.HS_FLAG_SINGLEMATCH | (hyperscan.HS_FLAG_CASELESS if low else 0) for _, low in keys],
    )
    # A scratch space serves one scan at a time: one per thread (the web server redacts in several).
    local = threading.local()

    def hits(text: str, low: str) -> int:
        scratch = getattr(local, "scratch", None)
        if scratch is None:
            scratch = local.scratch = hyperscan.Scratch(database)
        found = 0

        def on_match(gate: int, start: int, end: int, flags: int, context: object) -> None:
            nonlocal found
            found |= bits[gate]

        database.scan(text.encode("ascii", "replace"), match_event_handler=on_match, scratch=scratch)
        return found

    _READS_TEXT_ONLY.add(hits)
    return hits


# Lookups that never read `low` (Hyperscan matches the text caselessly): `redact.scan` lowercases
# a text for them only when a rule is to run on it (four texts in five enable none).
_READS_TEXT_ONLY: set[Callable[[str, str], int]] = set()


def reads_low(hits: Callable[[str, str], int]) -> bool:
    """Whether the lookup `hits` (from `gate_lookup`) reads its `low` argument."""
    return hits not in _READS_TEXT_ONLY


def _re_lookup(rule_gates: RuleGates, long: int) -> Callable[[str, str], int]:
    by_char, by_word = _gate_tree(rule_gates)
    groups, char_grouped, word_grouped = _gate_groups(by_char, by_word)
    count = len(ANCHORS)

    def hits(text: str, low: str) -> int:
        found = 0
        if len(text) < long:
            for char, own, kids in by_char:
                if char in text:
                    found |= own
                    for gate, on_low, mask, after in kids:
                        if gate in (low if on_low else text):
                            found |= mask
                            for gate2, on_low2, mask2 in after:
                                if gate2 in (low if on_low2 else text):
                                    found |= mask2
            for word, own, word_kids in by_word:
                if word in low:
                    found |= own
                    for gate, _, mask, after_word in word_kids:
                        if gate in low:
                            found |= mask
                            for gate2, _, mask2 in after_word:  # `htpasswd` after `passw`
                                if gate2 in low:
                                    found |= mask2
            return found
        seen = [-1] * count  # per group, the bits of its literals found (-1: not looked yet)

        def in_group(group: int, bit: int) -> bool:
            if seen[group] < 0:
                seen[group] = groups.found(group, low)
            return bool(seen[group] & bit)

        for char, own, grouped in char_grouped:
            if char in low:
                found |= own
                for gate, on_low, mask, later, group, bit, exact in grouped:
                    if found & mask == mask and not later:
                        continue
                    if group >= 0 and not in_group(group, bit):
                        continue
                    if not exact and gate not in (low if on_low else text):
                        continue
                    found |= mask
                    for gate2, on_low2, mask2, group2, bit2, exact2 in later:
                        if found & mask2 == mask2 or (group2 >= 0 and not in_group(group2, bit2)):
                            continue
                        if exact2 or gate2 in (low if on_low2 else text):
                            found |= mask2
        for word, own, word_kids, group, bit, exact in word_grouped:
            if group >= 0 and not in_group(group, bit):
                continue
            if exact or word in low:
                found |= own
                for gate, _, mask, after_word in word_kids:
                    if (found & mask == mask and not after_word) or gate not in low:
                        continue
                    found |= mask
                    for gate2, _, mask2 in after_word:
                        if found & mask2 != mask2 and gate2 in low:
                            found |= mask2
        return found

    return hits


def _gate_tree(
    rule_gates: RuleGates,
) -> tuple[tuple[GateNode, ...], tuple[GateNode, ...]]:
    """Gates nested under a rarer character or a shorter word they contain, so that text without
    `/` never pays for the `://` scan, nor text without `pass` for `password`. Returns the nodes
    under characters (looked up in the text) and under words (looked up in the lowercased text)."""
    enables: dict[tuple[str, bool], int] = {}
    for i, (literals, low) in enumerate(rule_gates):
        for literal in literals:
            # A gate without letters reads the same in the lowercased text (one byte a character).
            caseless = literal.lower() == literal.upper() and literal.isascii() and "?" not in literal
            enables[(literal, low or caseless)] = enables.get((literal, low or caseless), 0) | 1 << i
    words = [literal for literal, low in enables if not any(c in literal for c in _PARENTS)]
    if any(not low for literal, low in enables if literal in words):
        raise ValueError(f"a gate without one of {_PARENTS!r} must be looked up in lowercase")
    nodes: dict[str, list[Gate]] = {}
    for (literal, low), mask in enables.items():
        char = next((c for c in _PARENTS if c in literal), None)
        parent = char or next((w for w in words if w != literal and w in literal), literal)
        nodes.setdefault(parent, []).append((literal, low, mask))
    by_char: list[GateNode] = []
    by_word: list[GateNode] = []
    for parent, kids in nodes.items():
        own = next((mask for literal, _, mask in kids if literal == parent), 0)
        node = (parent, own, _nest([kid for kid in kids if kid[0] != parent]))
        (by_char if parent in _PARENTS else by_word).append(node)
    return tuple(by_char), tuple(by_word)


def _nest(gates: list[Gate]) -> tuple[GateKid, ...]:
    """A gate that contains another of its node's (looked up the same way) is tried only after
    that one is found: text with paths but no `//` never pays for `://`, nor `-` for `--user`."""

    def inside(gate: Gate, other: Gate) -> bool:
        return other is not gate and other[1] == gate[1] and other[0] in gate[0]

    tops = [gate for gate in gates if not any(inside(gate, other) for other in gates)]
    after: dict[str, list[Gate]] = {top[0]: [] for top in tops}
    for gate in gates:
        if gate not in tops:
            after[next(top for top in tops if inside(gate, top))[0]].append(gate)
    return tuple((*top, tuple(after[top[0]])) for top in tops)


class GateGroups:
    """Gates put in groups that share a rare character (`ANCHORS`), for long texts: each group
    is one regex that starts with its anchor, which `re` looks for with a tight loop, and tries
    the group's gates only there. Looking up every gate costs a pass over the text apiece; a
    group costs about one pass, found gates or not."""

    __slots__ = ("_alternatives", "_regexes")

    def __init__(self, alternatives: tuple[tuple[tuple[str, int], ...], ...]) -> None:
        self._alternatives = alternatives  # per group, its lowercase literals and their anchor's place
        self._regexes: dict[tuple[int, int], tuple[re.Pattern[str], tuple[int, ...]]] = {}

    def found(self, group: int, low: str) -> int:
        """Which of the group's literals occur in `low`, as bits. After each find the search goes
        on from the same place for the literals not found yet (earlier, none of them occurs)."""
        left = (1 << len(self._alternatives[group])) - 1
        found = pos = 0
        while left:
            rx, bits = self._regexes.get((group, left)) or self._compile(group, left)
            m = rx.search(low, pos)
            if m is None:
                break
            bit = bits[m.lastindex or 0]
            found |= bit
            left &= ~bit
            pos = m.start()
        return found

    def _compile(self, group: int, left: int) -> tuple[re.Pattern[str], tuple[int, ...]]:
        """The regex of the group's literals in `left`: the anchor, then, for each literal, what
        follows its anchor, an empty group after the first character of that to tell which
        literal matched (`re` skips an alternative whose first character differs at C speed),
        and a look-behind at the whole literal when the anchor is not its first character.
        A lone literal needs no group: what follows its anchor joins `re`'s literal prefix."""
        alternatives = self._alternatives[group]
        chosen = [i for i in range(len(alternatives)) if left >> i & 1]
        parts = []
        for i in chosen:
            literal, at = alternatives[i]
            part = re.escape(literal[at + 1 : at + 2]) + ("()" if len(chosen) > 1 else "")
            parts.append(part + re.escape(literal[at + 2 :]) + (f"(?<={re.escape(literal)})" if at else ""))
        body = parts[0] if len(parts) == 1 else "(?:" + "|".join(parts) + ")"
        entry = re.compile(re.escape(ANCHORS[group]) + body), (1 << chosen[0], *(1 << i for i in chosen))
        self._regexes[(group, left)] = entry
        return entry


def _gate_groups(
    by_char: tuple[GateNode, ...], by_word: tuple[GateNode, ...]
) -> tuple[GateGroups, tuple[GroupNode, ...], tuple[WordNode, ...]]:
    """The gate tree again, each gate with where its group finds it (`Found`). Gates under a
    rare character, `_COMMON` ones and those with no anchor are looked up directly."""
    literals: list[dict[str, int]] = [{} for _ in ANCHORS]
    groups: dict[str, int] = {}
    for char, _, kids in by_char:
        if char.lower() != char.upper() or char == "?":
            raise ValueError(f"a gate character must have no case and survive lowercasing: {char!r}")
        for gate, _, _, after in kids:
            if char not in _RARE_PARENTS and gate not in _COMMON:
                groups[gate] = _anchor(gate.lower(), literals)
            groups.update((g, _anchor(g.lower(), literals)) for g, _, _ in after)
    groups.update((word, _anchor(word, literals)) for word, _, _ in by_word)
    # A literal containing another of its group is found through it (`key=` through `key`).
    alternatives = tuple(
        tuple(sorted((lit, at) for lit, at in group.items() if not any(o != lit and o in lit for o in group)))
        for group in literals
    )

    def where(gate: str, on_low: bool) -> Found:
        group = groups.get(gate, -1)
        if group < 0:
            return -1, 0, False
        low = gate.lower()
        i = next(i for i, (lit, _) in enumerate(alternatives[group]) if lit in low)
        return group, 1 << i, on_low and alternatives[group][i][0] == low

    chars = tuple(
        (
            char,
            own,
            tuple(
                (g, low, mask, tuple((*gate, *where(gate[0], gate[1])) for gate in after), *where(g, low))
                for g, low, mask, after in kids
            ),
        )
        for char, own, kids in by_char
    )
    words = tuple((word, own, kids, *where(word, True)) for word, own, kids in by_word)
    return GateGroups(alternatives), chars, words


def _anchor(literal: str, literals: list[dict[str, int]]) -> int:
    """The group of a lowercase literal (-1: none), which is entered in `literals` with its
    anchor's place: the first anchor it holds before its last character (a character after the
    anchor tells the group's literals apart at C speed), else one it ends with."""
    spots = sorted(
        (at == len(literal) - 1, group, at)
        for group, anchor in enumerate(ANCHORS)
        if (at := literal.find(anchor)) >= 0 and len(literal) > 1
    )
    if not spots:
        return -1
    _, group, at = spots[0]
    literals[group][literal] = at
    return group
