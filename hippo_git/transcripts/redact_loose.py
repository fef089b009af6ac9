"""Secrets without a telling prefix, found among the runs of 20+ token characters that
`redact_tokens.scan_tokens` already walks (so text without such a run pays nothing here):

* a high-entropy value (base64, base64url, base62 or hex, detect-secrets-like thresholds scaled
  to its length) given to any name (`X = "…"`, `"d": "…"`, `name: …`), or following a
  secret-like word in prose ("the signing value is …");
* the body lines of a key block whose BEGIN line is not there (a PEM, PGP, OpenSSH or PuTTY body
  cut by a pager or a size cap): two or more lines made only of base64, one of them 40+ long.

Ids are left alone: values given to id-like names (`id`, `uuid`, `sessionId`, `sha`...) and
values with an id prefix (`msg_01…`, `toolu_…`, `call_…`).
"""

from __future__ import annotations

import math
import re
from collections import Counter

Span = tuple[int, int, str]

_B64_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/_-")
B64_MASK = bytes(0x61 if chr(i) in _B64_CHARS else 0x20 for i in range(256))
_HEX = frozenset("0123456789abcdef")
_HEX_UP = frozenset("0123456789ABCDEF")
# Before the value: the name, an operator, blanks and an opening quote (read backwards).
_BEFORE = re.compile(
    r"(?P<name>[A-Za-z_$@][\w.$@-]{0,60})?\\?[\"'`]?\]?[ \t]*(?P<op>:=|=>|=|:|->)[ \t]*(?:!!?binary[ \t]+)?\\?[\"'`]?\Z"
)
_ID_NAME = re.compile(
    r"(?:^|[._@/-])(?:ids?|sum|rev|ref|path|url|uri|href|src|file|name|model|type|kind|parent\w*|"
    r"request|session|message|trace|span|event|thread|run|node|object|tree|image|cursor|anchor|"
    r"branch|data|content|body|text)\Z"
    r"|(?:uuid|guid|sha\d*|md5|hash|digest|checksum|commit|revision|etag|nonce|signature|version|"
    r"integrity|fingerprint|thumbprint|number|locator|handler|class)\Z"
    r"|(?:id|Id|ID|uuid|Uuid|UUID|Hash|Sha|Digest|Url|Path|Name|Branch|Data)\Z",
    re.I,
)
_ID_VALUE = re.compile(
    r"(?:msg|toolu|srvtoolu|req|call|resp|chatcmpl|file|run|asst|thread|fc|rs|ws|item|evt|batch|"
    r"cus|sub|prod|price|pi|ch|in|txn|sess|conv|step|task|user|org|proj)[_-]"
)
_SECRET_WORD = re.compile(
    r"(?:secret|token|passw|passphrase|\bkey\b|api[ _-]?key|credential|signing|private|auth|bearer|seed|"
    r"access[ _-]?key|session[ _-]?key|license[ _-]?key)"
)
_HASH_WORD = re.compile(r"commit|sha|hash|digest|checksum|uuid|\bid\b|revision|etag|merge|tree|blob")
# A line of a key's body: base64 alone, or after a JSON key or a quote (a body rendered in JSON).
_KEY_LINE = re.compile(r"(?:[^\n]*[\"' \t])?(?P<b>[A-Za-z0-9+/]{16,}={0,2})(?:\\n)?[\\\"',}\])]*[ \t]*\Z")
# Base64 of a file's first bytes: PNG, JPEG, GIF, WebP, PDF, gzip, zip.
_FILE_MAGIC = (
    "iVBORw0KGgo",
    "/9j/",
    "R0lGOD",
    "UklGR",
    "JVBERi",
    "H4sI",
    "UEsDB",
    "3hIElQ",
    "YnBsaXN0",
    "PD94bWwg",
)
_WORDS = re.compile(r"(?:[A-Za-z][a-z]+|[A-Z]+|\d+)(?:[_-](?:[A-Za-z][a-z]+|[A-Z]+|\d+))+\Z")
_LOWER = frozenset("abcdefghijklmnopqrstuvwxyz")
_UPPER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZ")
_DIGITS = frozenset("0123456789")


def entropy(value: str) -> float:
    """Shannon entropy in bits per character."""
    n = len(value)
    return -sum(c / n * math.log2(c / n) for c in Counter(value).values())


def high_entropy(value: str) -> bool:
    """Random-looking enough to be a key: hex of 32+ (3.0 bits), or base64/base62 of 20+ with a
    digit, a capital and a small letter, over 0.8 x log2(length) bits (random strings pass 99 in
    100; words and identifiers, which repeat letters, fall below)."""
    n = len(value)
    if n < 20:
        return False
    chars = set(value)
    if chars <= _HEX or chars <= _HEX_UP:
        return n >= 32 and bool(chars & _DIGITS) and len(chars - _DIGITS) > 0 and entropy(value) >= 3.0
    if not (chars & _DIGITS and chars & _UPPER and chars & _LOWER):
        return False
    return entropy(value.rstrip("=")) >= min(4.8, 0.8 * math.log2(n))


def value_span(text: str, b64: bytes, start: int, end: int) -> tuple[int, int, bool]:
    """The value around the run text[start:end], and whether it is a loose secret (see the
    module). `b64` is the text with its base64 characters as `a`, the rest blank (`B64_MASK`).
    The caller skips the runs inside a value already looked at."""
    vs = b64.rfind(b" ", 0, start) + 1
    ve = b64.find(b" ", end)
    ve = len(text) if ve == -1 else ve
    while ve < len(text) and text[ve] == "=" and ve - end < 3:
        ve += 1
    p = vs  # what precedes the value, past its quote and blanks: an operator, or look for a word
    while p and vs - p < 8 and text[p - 1] in " \t\"'`\\[]!":
        p -= 1
    if not (p and text[p - 1] in "=:>") and not _SECRET_WORD.search(text[max(0, vs - 48) : vs].lower()):
        return vs, ve, False
    value = text[vs:ve]
    if (
        _ID_VALUE.match(value)
        or value.startswith(_FILE_MAGIC)
        or _WORDS.match(value)  # `Rocket_Launcher_0001`: words joined, a name
        or not high_entropy(value.rstrip("="))
    ):
        return vs, ve, False
    if "/" in value and value.split("/", 1)[0].isalpha() and value.split("/", 1)[0].islower():
        return vs, ve, False  # a path or a branch: `claude/fix-…`, `images/…`
    before = text[max(0, vs - 80) : vs]
    word = before[max(before.rfind(" "), before.rfind("\n"), before.rfind("\t")) + 1 :]
    if "://" in word or "?" in word:
        return vs, ve, False  # part of a URL (its credentials and query keys have rules of their own)
    m = _BEFORE.search(before)
    if m:
        name = m.group("name") or ""
        if name and (_ID_NAME.search(name) and not _SECRET_WORD.search(name.lower())):
            return vs, ve, False
        if not name and m.group("op") in (":", "->"):
            return vs, ve, False  # `at 12:…`, a scp path: no name, no assignment
        return vs, ve, True
    tail = before[-48:].lower()
    return vs, ve, bool(_SECRET_WORD.search(tail) and not _HASH_WORD.search(tail))


def key_body(text: str, start: int, end: int) -> tuple[int, int] | None:
    """The lines of base64 around the run text[start:end] when they look like a key block's body
    (from the first body character, after any JSON key or quote on its line)."""
    ls = text.rfind("\n", 0, start) + 1
    le = text.find("\n", end)
    le = len(text) if le == -1 else le
    at = _body_at(text, max(ls, le - 110), le, 40) if le - ls >= 40 else -1
    if at < 0:
        return None
    first, last = at, le
    while first > 0:
        prev = text.rfind("\n", 0, first - 1) + 1
        below = _body_at(text, max(prev, first - 111), first - 1, 16)
        if below < 0:
            break
        first = below
        if below != prev:
            break  # a line with a prefix (`"key": "…`) starts the body
    while last < len(text):
        nxt = text.find("\n", last + 1)
        nxt = len(text) if nxt == -1 else nxt
        if nxt - last > 111 or _body_at(text, last + 1, nxt, 16) < 0:
            break
        last = nxt
    if first == at and last == le:
        return None  # one line alone is an ordinary long value
    if text.startswith(_FILE_MAGIC, first):
        return None  # an image or a file's data, in base64
    return first, last


def _body_at(text: str, start: int, end: int, least: int) -> int:
    """Where the base64 body of the line text[start:end] starts, or -1 when it is no key line."""
    m = _KEY_LINE.match(text, start, end)
    if m is None:
        return -1
    body = m.group("b")
    if least >= 40:
        return m.start("b") if least <= len(body) <= 100 and high_entropy(body.rstrip("=")) else -1
    chars = set(body)  # a neighbour: base64 with both cases (a key's header lines repeat `A`)
    return m.start("b") if len(body) >= least and chars & _UPPER and chars & _LOWER else -1
