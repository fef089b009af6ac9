"""Secret redaction: the only way transcript text reaches the index (invariant 2).

`Redactor().redact(text)` replaces each secret with `[redacted:<kind>]` and counts it by kind;
`find_secrets(text)` names the line and kind of each secret, never the secret (pre-commit hook).
Ingest runs every string through here, so what runs is decided by cheap passes, each in its
module: vendor tokens, key bodies and loose high-entropy values in the runs of 20+ token
characters (`redact_tokens`); every context rule and assignment only when a literal gate of its
occurs (`redact_gates`: one Hyperscan pass, or `in` and grouped regexes), run and vetted by
`redact_assign`; emails and echoes here. The formats live in `redact_rules` and
`redact_families`, compiled by `redact_tables`. Spans are claimed in priority order (a vendor
token beats the `password=` around it), never overlap (`redact_spans`), and the text is rebuilt
once.

Text rendered inside JSON strings is scanned with its escapes blanked (`redact_escapes`):
vendor tokens, context rules and emails are found in that copy, and an assignment's name is
delimited in it.
"""

from __future__ import annotations

import re
from collections.abc import Collection

from hippo_git.transcripts import redact_assign as _assign
from hippo_git.transcripts import redact_gates as gates
from hippo_git.transcripts import redact_rules as rules
from hippo_git.transcripts import redact_tokens as _tokens
from hippo_git.transcripts.redact_escapes import blank_escapes
from hippo_git.transcripts.redact_spans import Span, claim, randomish

KINDS: tuple[str, ...] = rules.KINDS

# The tables, under the names the pre-commit check's tests look them up by.
_DISPATCH = _tokens.DISPATCH
_RULES, _RULE_GATES = _assign.RULES, _assign.RULE_GATES
_lower = _assign.lower
_gates = gates.gate_lookup(_RULE_GATES)
_GATES_READ_LOW = gates.reads_low(_gates)
# Text with none of these characters can hold only a bare vendor token.
_SPECIAL = re.compile(r"[^\w.\-]")
_SPECIAL_ASCII = re.compile(r"[^A-Za-z0-9_.\-]")  # the same in ASCII text, without Unicode lookups
_LOCAL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_DOMAIN = re.compile(rules.EMAIL_DOMAIN)
_RESERVED = re.compile(rules.EMAIL_RESERVED_DOMAIN)


def _emails(text: str, spans: list[Span]) -> None:
    at = text.find("@")
    while at != -1:
        m = _DOMAIN.match(text, at + 1)
        if m and at and text[at - 1] in _LOCAL_CHARS and m.group("tld").lower() not in rules.EMAIL_FILE_TLDS:
            start = at - 1
            while start and at - start < 64 and text[start - 1] in _LOCAL_CHARS:
                start -= 1
            local, domain = text[start:at], m.group().lower()
            scp = text.startswith(":", m.end()) and not text.startswith("://", m.end())  # git@host:path
            if not (
                scp
                or local != local.strip(".")
                or local.lower() in rules.EMAIL_NOT_PERSONAL
                or _RESERVED.search(domain)
            ):
                claim(spans, start, m.end(), "email")
        at = text.find("@", at + 1)


def scan(text: str) -> list[Span]:
    """Every secret in `text` as sorted, non-overlapping (start, end, kind) spans."""
    spans: list[Span] = []
    if len(text) < 6:
        return spans
    view = blank_escapes(text) if "\\" in text else text
    raw = b""
    loose: list[Span] = []
    if len(text) >= _tokens.MIN_RUN:
        raw = view.encode("ascii", "replace")  # one byte per character, so offsets agree
        loose = _tokens.scan_tokens(view, raw, spans)
    if not (_SPECIAL_ASCII if text.isascii() else _SPECIAL).search(text):
        for span in loose:
            claim(spans, *span)
        return spans
    if _GATES_READ_LOW:
        low = _low(text, view, raw)
        hits = _gates(text, low)
    else:  # the gates read the text itself: most texts enable no rule and need no `low`
        hits = _gates(text, "")
        low = _low(text, view, raw) if hits else ""
    if hits:
        _assign.run_rules(text, low, view, hits, spans)
    for span in loose:
        claim(spans, *span)
    if "@" in text:
        _emails(view, spans)
    return spans


def _low(text: str, view: str, raw: bytes) -> str:
    """`text` lowercased. Lowercasing keeps positions when the text is ASCII; otherwise non-ASCII
    becomes "?" first (a few characters lowercase to two), which no rule that reads `low` looks for."""
    if text.isascii():
        return text.lower()
    if raw and view is text:
        return raw.lower().decode("ascii")
    return _lower(text)


class Redactor:
    """Redacts text and keeps a running count of secrets per kind (for the ingest summary).

    With `echoes` on (`start_echoes`), every secret redacted is remembered, and its later bare
    occurrences are redacted too, in any text this redactor is given until the next
    `start_echoes` (agents repeat keys back: "I will export KEY now"). Ingest starts afresh per
    session."""

    __slots__ = ("counts", "echoes")

    def __init__(self) -> None:
        self.counts: dict[str, int] = {}
        self.echoes: dict[str, str] | None = None

    def start_echoes(self) -> None:
        self.echoes = {}

    def redact(self, text: str) -> str:
        spans = scan(text)
        echoes = self.echoes
        if echoes is not None:
            for start, end, kind in spans:
                if kind not in rules.PII_KINDS and _echo_worthy(text, start, end):
                    echoes[text[start:end]] = kind
            if echoes and len(text) >= _MIN_ECHO:
                _claim_echoes(text, spans, echoes)
        if not spans:
            return text
        counts, pos = self.counts, 0
        parts: list[str] = []
        for start, end, kind in spans:
            counts[kind] = counts.get(kind, 0) + 1
            parts += (text[pos:start], f"[redacted:{kind}]")
            pos = end
        parts.append(text[pos:])
        return "".join(parts)


_MIN_ECHO = 6


def _echo_worthy(text: str, start: int, end: int) -> bool:
    """Long or random enough that finding it again bare is finding the secret, not a word."""
    n = end - start
    if n < _MIN_ECHO or n > 4096 or "\n" in text[start:end]:
        return False
    return n >= 12 or randomish(text[start:end])


def _claim_echoes(text: str, spans: list[Span], echoes: dict[str, str]) -> None:
    for value, kind in echoes.items():
        at = text.find(value)
        while at != -1:
            claim(spans, at, at + len(value), kind)
            at = text.find(value, at + len(value))


def redact(text: str) -> tuple[str, dict[str, int]]:
    """`text` with each secret replaced by `[redacted:<kind>]`, and how many of each kind."""
    redactor = Redactor()
    return redactor.redact(text), redactor.counts


def find_secrets(text: str, *, ignore: Collection[str] = rules.PII_KINDS) -> list[tuple[int, str]]:
    """(1-based line, kind) of each secret in `text`; never the secret itself.

    Personal data such as emails is skipped by default: it is redacted from the index, but a
    note may name its author.
    """
    found: list[tuple[int, str]] = []
    line, pos = 1, 0
    for start, _, kind in scan(text):
        if kind in ignore:
            continue
        line += text.count("\n", pos, start)
        pos = start
        found.append((line, kind))
    return found
