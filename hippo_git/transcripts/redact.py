"""Secret redaction: the only way transcript text reaches the index (invariant 2).

`Redactor().redact(text)` replaces each secret with `[redacted:<kind>]` and counts it by kind;
`find_secrets(text)` names the line and kind of each secret, never the secret (pre-commit hook).
The formats live in `redact_rules.py`. Ingest runs every string through here, so what runs is
decided by cheap C-level passes: vendor tokens are looked for only in runs of 20+ token
characters (found with one `bytes.translate` and `find`), through a dict on their first two
characters; every other rule runs only when a literal gate of its occurs (looked up as
`redact_tables.gate_lookup` says: `in` under a rarer character, or a regex per group of gates in
long text), and when what its matches start with is there; assignments (`password=`,
`"api_key": "..."`, `--token x`) are vetted in Python so that code such as `token = get_token()`
is left alone. Spans are claimed in priority order (a vendor token beats the `password=` around
it), never overlap, and the text is rebuilt once.

Text rendered inside JSON strings is scanned with its escapes blanked (`redact_escapes`):
vendor tokens, context rules and emails are found in that copy, and an assignment's name is
delimited in it. The rule tables are compiled by `redact_tables`.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import re
from collections.abc import Collection

from hippo_git.transcripts import redact_gates as gates
from hippo_git.transcripts import redact_loose as _loose
from hippo_git.transcripts import redact_rules as rules
from hippo_git.transcripts import redact_tables as tables
from hippo_git.transcripts.redact_escapes import after_escape, blank_escapes

KINDS: tuple[str, ...] = rules.KINDS
Span = tuple[int, int, str]

_RUN_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-")
_RUN_MASK = bytes(0x61 if chr(i) in _RUN_CHARS else 0x20 for i in range(256))
_MIN_RUN = 20  # the shortest token looked for without a context word (AKIA + 16) is 20 long
_RUN_NEEDLE = b"a" * _MIN_RUN
_MAX_DOTTED_PREFIX = 26  # `SG.`, `ya29.`, a JWT header (19+ chars), with an escape before it


_DISPATCH = tables.tokens()
_SHAPES = tables.shapes()
_RULES, _RULE_GATES = tables.rules()
_gates = gates.gate_lookup(_RULE_GATES)
# Text with none of these characters can hold only a bare vendor token.
_SPECIAL = re.compile(r"[^\w.\-]")
_SPECIAL_ASCII = re.compile(r"[^A-Za-z0-9_.\-]")  # the same in ASCII text, without Unicode lookups
_AWS_NEAR = re.compile(rules.AWS_SECRET_NEAR)
_TELEGRAM_ID = re.compile(r"(?<![0-9])[0-9]{6,12}:\Z")
_NETRC_USER = re.compile(r"(?:login|user)[ \t]+\S+\s+\Z")

_REF = re.compile(rules.VALUE_REF, re.X)
_PLACEHOLDER = re.compile(rules.VALUE_PLACEHOLDER)
_NOT_A_SECRET = re.compile(rules.VALUE_NOT_A_SECRET)
_CODE = re.compile(rules.VALUE_CODE)
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")
_DOTTED_NAME = re.compile(r"[a-z_][a-z0-9_]*(?:\.[a-z_][a-z0-9_]*)+\Z")
_LINE_ESCAPE = re.compile(r"\\[nrt]")
_LINE_END = re.compile(r"[ \t]*(?:$|\r|\n|;|#|//)", re.M)
_AFTER_TAG = re.compile(r"!!?[A-Za-z][\w/:.-]*[ \t]+[\"']?([^\s\"'`;,&<>(){}\[\]|][^\s\"']*)")
_CONTINUED = re.compile(r"(?:[ \t]*\n[ \t]+[^\s=:#;\[\]{}\"'][^\s=]*(?=[ \t]*(?:\n|\Z)))+")
_DIGIT = re.compile(r"[0-9]")
_MIXED_CASE = re.compile(r"(?=[^A-Z]*[A-Z])(?=[^a-z]*[a-z])")
_HEX_RUN = re.compile(r"[0-9a-fA-F]{32,}")
_B64_40 = re.compile(r"[A-Za-z0-9/+]{40}\Z")
_JSON_KEY_NEXT = re.compile(r"\\?[\"'`][ \t]*:(?!=)")
_FAMILY_WORDS = ("pass", "pwd", "secret", "token", "key", "auth")
_STRICT_HEADS = frozenset(
    {"auth", "pat", "salt", "secure", "credential", "credentials"}
)  # names too common to trust without a random value
_LOCAL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._%+-")
_DOMAIN = re.compile(rules.EMAIL_DOMAIN)
_RESERVED = re.compile(rules.EMAIL_RESERVED_DOMAIN)


def _claim(spans: list[Span], start: int, end: int, kind: str) -> None:
    """Add the span unless it overlaps one claimed earlier (earlier rules win)."""
    i = bisect.bisect_left(spans, (start,))
    if (i < len(spans) and spans[i][0] < end) or (i and spans[i - 1][1] > start):
        return
    spans.insert(i, (start, end, kind))


def _randomish(value: str) -> bool:
    """Looks machine-made: a digit, an inner capital, or base64 punctuation."""
    return (
        any(c.isdigit() for c in value)
        or any(c.isupper() for c in value[1:])
        or any(c in "+/=" for c in value)
    )


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
        _claim(spans, start - 23, end, "api_token")  # Terraform Cloud: <14>.atlasv1.<60+>
        return end
    if start and raw[start - 1] == 0x2E:  # a dotted prefix: SG.xxx, ya29.xxx, dp.pt.xxx
        q = start - 1
        while q and start - q < _MAX_DOTTED_PREFIX and (text[q - 1] in _RUN_CHARS or text[q - 1] == "."):
            q -= 1
        candidates[:0] = {q: None, after_escape(raw, q): None}
    elif start >= 16 and raw[start - 1] == 0x21:  # Salesforce: 00<org id>!<session>
        candidates.insert(0, start - 16)
    elif start and raw[start - 1] == 0x5C and (unescaped := after_escape(raw, start)) != start:
        candidates.append(unescaped)
    for pos in candidates:
        for kind, rx in _DISPATCH.get(raw[pos : pos + 2], ()):
            m = rx.match(text, pos)
            span = _token_span(kind, text, m) if m else None
            if span is None:
                continue
            _claim(spans, span[0], span[1], kind)
            if kind == "aws_access_key_id":
                near = _AWS_NEAR.search(text, span[1], span[1] + 120)
                if near:
                    _claim(spans, near.start(), near.end(), "aws_secret_key")
            return max(end, span[1])
    for pos in (start, candidates[-1]) if candidates[-1] > start else (start,):
        for kind, rx, context in _SHAPES.get(end - pos, ()):
            # No context word fits in nothing (`redact_tables.shapes`): a run that starts the text
            # (a bare UUID as a session id) skips the look back.
            if context and (not pos or not context.search(text[max(0, pos - 80) : pos].lower())):
                continue
            if rx.fullmatch(text, pos, end):
                _claim(spans, pos, end, kind)
                return end
    return end


def _scan_tokens(text: str, raw: bytes, spans: list[Span]) -> list[Span]:
    """Claim the vendor tokens; returns the loose secrets (`redact_loose`), to be claimed after
    the rules (a rule's kind and span are the better ones)."""
    loose: list[Span] = []
    looked = 0  # the end of the last value looked at (its other runs are not looked at again)
    b64 = b""
    mask = raw.translate(_RUN_MASK)
    start = mask.find(_RUN_NEEDLE)
    while start != -1:
        end = mask.find(b" ", start + _MIN_RUN)
        if end == -1:
            end = len(mask)
        claimed = len(spans)
        if (
            raw[start : start + 2] in _DISPATCH
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


def _value_ok(value: str, family: str, *, quoted: bool) -> bool:
    """Whether a value given to a secret's name holds one (not a reference, path or placeholder)."""
    if len(value) < (4 if family == "password" else 8):
        return False
    if _REF.match(value) or _PLACEHOLDER.match(value) or _NOT_A_SECRET.match(value):
        return False
    if quoted:
        if value[0].isspace() or value[-1].isspace():
            return False
        if any(c.isspace() for c in value):
            return family == "password" and value.count(" ") <= 3 and "password" not in value.lower()
        return True
    return value.lower() not in rules.NOT_VALUES and not _CODE.match(value)


def _assignment(text: str, low: str, view: str, m: re.Match[str], family: str, spans: list[Span]) -> None:
    """Vet one assignment. Its value is read in the text as written (an escaped quote or newline
    is part of a JSON-rendered value); its name, delimited in `view` (escapes blanked)."""
    k0, k1 = m.start(), m.start("kq")
    head = low[k0:k1]
    ks = k0
    while ks and k0 - ks < 64 and (view[ks - 1].isalnum() or view[ks - 1] in "_.-$>"):
        ks -= 1
    if ks < k0 and text[ks - 1 : ks] == "\\" and text[ks] in "nrtbf":  # JSON inside JSON: `\\n`
        ks += 1
    key = text[ks:k1]
    op, sp1, sp2, kq = m.group("op"), m.group("sp1"), m.group("sp2") or "", m.group("kq")
    if head in ("pass", "pwd"):
        before = text[k0 - 1] if ks != k0 else " "
        if not (before in " _-.>$" or (before.islower() and text[k0].isupper()) or key.isupper()):
            return  # bypass, compass...
        if ks == k0 and op == ":" and head == "pass" and not kq:
            return  # "PASS: test_name" in test runner output
    flag = key.startswith("-")
    group = next((g for g in ("v1", "v2", "v3") if m.group(g) is not None), "uv")
    quoted = group != "uv"
    if op is None:  # a flag (`--token x`) or a quoted password after a blank (Gradle, netrc)
        if not ((flag and sp1) or (head.startswith("passw") and group in ("v1", "v2") and sp1 and not kq)):
            return
    elif not quoted and (op in ("==", "!=", "===", "!==") or "\n" in sp2):
        return  # comparisons and values on the next line must be literals
    elif op == "," and not (quoted and kq and "\n" not in sp2):
        return  # only `getenv("API_KEY", "default")` on one line
    vs, ve = m.span(group)
    if group == "uv" and text.startswith("!", vs):  # a YAML tag (`!!binary`, `!secret`): the value follows
        tagged = _AFTER_TAG.match(text, vs)
        if tagged is None:
            return
        vs, ve = tagged.span(1)
    if group == "uv" and view is not text:  # a bare value ends at an escaped line break or tab
        cut = _LINE_ESCAPE.search(text, vs + 1, ve)
        if cut and view[cut.start()] == " ":
            ve = cut.start()
    if op == "," and _JSON_KEY_NEXT.match(text, ve):
        return  # `"...they pass", "timeout": 5`: the "value" is the next key
    value = text[vs:ve]
    if not _value_ok(value, family, quoted=quoted):
        return
    if (
        not (quoted or flag)
        and _IDENT.match(value)
        and not (len(value) >= 8 and any(c.isdigit() for c in value))
    ):
        # A bare word is a variable in code (`token = token`, `self.token = nextchar`) unless it
        # ends a config line (`PASSWORD=hunter2`).
        spaced_code = (sp1 or sp2) and (
            "." in key or ">" in key or any(w in value.lower() for w in _FAMILY_WORDS)
        )
        if spaced_code or not _LINE_END.match(view, ve):
            return
    if (head in _STRICT_HEADS or key == "pass") and not (len(value) >= 8 and _randomish(value)):
        return  # `pass = "facts"` names a pass; `SERVER_AUTH = "serverAuth"` is no credential
    if op == "," and not any(c.isdigit() for c in value):
        return  # a list of names, `("token", "secret")`, not a default value
    kind = "password" if family == "password" else "secret"
    if ("aws" in key.lower() or "access" in key.lower()) and _B64_40.match(value):
        kind = "aws_secret_key"
    if group == "uv" and op == "=" and (more := _CONTINUED.match(view, ve)):
        ve = more.end()  # INI continuation lines
    _claim(spans, vs, ve, kind)


def _lower(text: str) -> str:
    """`text` lowercased the way `scan` lowercases it (see there)."""
    return text.lower() if text.isascii() else text.encode("ascii", "replace").lower().decode("ascii")


def _run_rules(text: str, low: str, view: str, hits: int, spans: list[Span]) -> None:
    """Assignments read the text (see `_assignment`); the anchored rules read `view`."""
    view_low = low if view is text else ""
    for i, (kind, rx, on_low, groups, assignment, lead) in enumerate(_RULES):
        if not hits >> i & 1:
            continue
        if assignment:
            for m in rx.finditer(low):
                _assignment(text, low, view, m, kind, spans)
            continue
        if on_low and not view_low:
            view_low = _lower(view)
        if lead and lead not in (view_low if on_low else view):
            continue  # what every match starts with is not there: one `in` instead of a search
        for m in rx.finditer(view_low if on_low else view):
            group = next((g for g in groups if m.group(g) is not None), None)
            vs, ve = m.span(group) if group else m.span()
            if view.startswith("[redacted:", vs):
                continue
            if group == "n" and not _NETRC_USER.search(view_low, max(0, m.start() - 200), m.start()):
                continue
            if (
                kind in ("password", "secret")
                and group not in (None, "b")
                and not _value_ok(view[vs:ve], kind, quoted=True)
            ):
                continue
            if kind == "auth_header" and (not _randomish(view[vs:ve]) or _DOTTED_NAME.match(view, vs, ve)):
                continue  # `authorization = base64.decodebytes(...)` is code
            _claim(spans, vs, ve, kind)


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
                _claim(spans, start, m.end(), "email")
        at = text.find("@", at + 1)


def scan(text: str) -> list[Span]:
    """Every secret in `text` as sorted, non-overlapping (start, end, kind) spans."""
    spans: list[Span] = []
    if len(text) < 6:
        return spans
    view = blank_escapes(text) if "\\" in text else text
    raw = b""
    loose: list[Span] = []
    if len(text) >= _MIN_RUN:
        raw = view.encode("ascii", "replace")  # one byte per character, so offsets agree
        loose = _scan_tokens(view, raw, spans)
    if not (_SPECIAL_ASCII if text.isascii() else _SPECIAL).search(text):
        for span in loose:
            _claim(spans, *span)
        return spans
    # Lowercasing keeps positions when the text is ASCII; otherwise non-ASCII becomes "?" first
    # (a few characters lowercase to two), which no rule that reads `low` looks for.
    if text.isascii():
        low = text.lower()
    elif raw and view is text:
        low = raw.lower().decode("ascii")
    else:
        low = _lower(text)
    hits = _gates(text, low)
    if hits:
        _run_rules(text, low, view, hits, spans)
    for span in loose:
        _claim(spans, *span)
    if "@" in text:
        _emails(view, spans)
    return spans


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
    return n >= 12 or _randomish(text[start:end])


def _claim_echoes(text: str, spans: list[Span], echoes: dict[str, str]) -> None:
    for value, kind in echoes.items():
        at = text.find(value)
        while at != -1:
            _claim(spans, at, at + len(value), kind)
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
