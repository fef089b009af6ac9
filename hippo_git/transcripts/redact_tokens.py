"""Vendor tokens, key bodies and loose high-entropy values: what `redact.scan` finds in the runs
of 20+ token characters of a text (found with one `bytes.translate` and `find`), through a dict
on their first two characters (`DISPATCH`), shapes keyed by run length, and `redact_loose`.
"""

from __future__ import annotations

import base64
import binascii
import re

from hippo_git.transcripts import redact_loose as _loose
from hippo_git.transcripts import redact_rules as rules
from hippo_git.transcripts import redact_tables as tables
from hippo_git.transcripts.redact_escapes import after_escape
from hippo_git.transcripts.redact_spans import Span, claim

MIN_RUN = 20  # the shortest token looked for without a context word (AKIA + 16) is 20 long
_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_RUN_MASK = bytes(0x61 if chr(i) in _RUN_CHARS else 0x20 for i in range(256))
_RUN_NEEDLE = b"a" * MIN_RUN
_MAX_DOTTED_PREFIX = 26  # `SG.`, `ya29.`, a JWT header (19+ chars), with an escape before it

DISPATCH = tables.tokens()
_SHAPES = tables.shapes()
_AWS_NEAR = re.compile(rules.AWS_SECRET_NEAR)
_TELEGRAM_ID = re.compile(r"(?<![0-9])[0-9]{6,12}:\Z")
_DIGIT = re.compile(r"[0-9]")
_MIXED_CASE = re.compile(r"(?=[^A-Z]*[A-Z])(?=[^a-z]*[a-z])")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")


def _token_span(kind: str, text: str, m: re.Match[str]) -> tuple[int, int] | None:
    start, end = m.span()
    if kind == "openai_key":
        body = m.group()[3:]
        return (start, end) if any(c.isdigit() for c in body) and any(c.isalpha() for c in body) else None
    if kind == "telegram_bot_token":
        bot_id = _TELEGRAM_ID.search(text, max(0, start - 13), start)
        return (bot_id.start(), end) if bot_id else None
    if kind == "private_key":
        try:
            decoded = base64.b64decode(m.group()[:120])
        except (binascii.Error, ValueError):
            return None
        return (start, end) if b"PRIVATE KEY" in decoded else None
    return start, end


def _match_run(text: str, raw: bytes, start: int, end: int, spans: list[Span]) -> int:
    """Claim a vendor token in the run text[start:end]; returns where scanning resumes."""
    candidates = [start]
    if start >= 23 and text.startswith(".atlasv1.", start - 9) and end - start >= 60:
        claim(spans, start - 23, end, "api_token")  # Terraform Cloud: <14>.atlasv1.<60+>
        return end
    if start and raw[start - 1] == 0x2E:  # a dotted prefix: SG.xxx, ya29.xxx, dp.pt.xxx
        q = start - 1
        while q and start - q < _MAX_DOTTED_PREFIX and (text[q - 1] in _RUN_CHARS or text[q - 1] == "."):
            q -= 1
        candidates[:0] = {q: None, after_escape(raw, q): None}
    elif start >= 16 and raw[start - 1] == 0x21:  # Salesforce: 00<org id>!<session>
        candidates = [start - 16, start]
    elif start and raw[start - 1] == 0x5C and (unescaped := after_escape(raw, start)) != start:
        candidates.append(unescaped)
    for pos in candidates:
        for kind, rx in DISPATCH.get(raw[pos : pos + 2], ()):
            m = rx.match(text, pos)
            span = _token_span(kind, text, m) if m else None
            if span is None:
                continue
            claim(spans, span[0], span[1], kind)
            if kind == "aws_access_key_id":
                near = _AWS_NEAR.search(text, span[1], span[1] + 120)
                if near:
                    claim(spans, near.start(), near.end(), "aws_secret_key")
            return max(end, span[1])
    last = candidates[-1]  # after an escape, where the run starts once its letters are dropped
    for pos in (start, last) if last > start else (start,):
        for kind, rx, context in _SHAPES.get(end - pos, ()):
            # No context word fits in nothing (`redact_tables.shapes`): a run that starts the text
            # (a bare UUID as a session id) skips the look back.
            if context and (not pos or not context.search(text[max(0, pos - 80) : pos].lower())):
                continue
            if rx.fullmatch(text, pos, end):
                claim(spans, pos, end, kind)
                return end
    return end


def scan_tokens(text: str, raw: bytes, spans: list[Span]) -> list[Span]:
    """Claim the vendor tokens; returns the loose secrets (`redact_loose`), to be claimed after
    the rules (a rule's kind and span are the better ones)."""
    loose: list[Span] = []
    looked = 0  # the end of the last value looked at (its other runs are not looked at again)
    b64 = b""
    mask = raw.translate(_RUN_MASK)
    start = mask.find(_RUN_NEEDLE)
    while start != -1:
        end = mask.find(b" ", start + MIN_RUN)
        if end == -1:
            end = len(mask)
        claimed = len(spans)
        if (
            raw[start : start + 2] in DISPATCH
            or end - start in _SHAPES
            or (start and raw[start - 1] in b".\\!")
        ):
            resume = _match_run(text, raw, start, end, spans)
            if resume > end:  # a token that ran on past `.` or `/`: skip to the next gap
                end = mask.find(b" ", resume)
                if end == -1:
                    return loose
        if (
            len(spans) == claimed
            and start >= looked
            and _DIGIT.search(text, start, end)
            and (_MIXED_CASE.match(text, start, end) or _HEX_RUN.fullmatch(text, start, end))
        ):
            # (a run without a digit, or of one case and not hex, is a word, a name or an id:
            # random keys and key lines all but always have both)
            if not b64:
                b64 = raw.translate(_loose.B64_MASK)
            body = _loose.key_body(text, start, end)
            if body is not None:
                loose.append((*body, "private_key"))
                looked = body[1]
            else:
                vs, looked, secret = _loose.value_span(text, b64, start, end)
                if secret:
                    loose.append((vs, looked, "secret"))
        start = mask.find(_RUN_NEEDLE, end)
    return loose
