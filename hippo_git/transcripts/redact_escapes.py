"""JSON escapes in text to be redacted: text rendered inside a JSON string (a tool's input,
printed JSON) puts `\\n`, `\\t` or `\\u0027` right before a secret, and the escape's letters
would join the secret's word (`\\nSG.…` reads as the word `nSG`). `redact.scan` looks for secrets
in a copy with the escapes blanked, of the same length so that its spans fit the text.
"""

from __future__ import annotations

import re

# JSON escapes in a string, blanked to the same length; `\n` keeps a line break for rules that
# read lines. `\"` and `\\` need nothing: neither character can be part of a secret's word.
_BLANKED = (("\\r", " \r"), ("\\t", "  "), ("\\b", "  "), ("\\f", "  "))  # and `\\n`, first
_UNICODE_ESCAPE = re.compile(r"\\u[0-9A-Fa-f]{4}")
# Every escape but the common `\n` and `\"`, each with its backslash: one pass tells which of the
# replacements below have anything to do (an escaped backslash shows as a pair).
_RARER = re.compile(r'\\[^n"]')
_HEX = frozenset(b"0123456789abcdefABCDEF")


def blank_escapes(text: str) -> str:
    """`text` with its JSON escape sequences blanked (same length). An escaped backslash (`\\\\n`
    is a backslash and an `n`) is kept, unless the text holds NUL, the placeholder used for it."""
    rarer = set(_RARER.findall(text))
    pairs = "\\\\" in rarer
    if pairs and "\x00" in text:  # no placeholder: pairs are not set apart, which `rarer` assumed
        return _blank_each(text)
    view = text.replace("\\\\", "\x00\x00") if pairs else text
    if "\\n" in view:
        view = view.replace("\\n", " \n")
    for escape, blank in _BLANKED:
        if escape in rarer:
            view = view.replace(escape, blank)
    if "\\u" in rarer:
        view = _UNICODE_ESCAPE.sub("      ", view)
    return view.replace("\x00\x00", "\\\\") if pairs else view


def _blank_each(text: str) -> str:
    """Every kind of escape blanked in turn, escaped backslashes not set apart."""
    for escape, blank in (("\\n", " \n"), *_BLANKED):
        if escape in text:
            text = text.replace(escape, blank)
    return _UNICODE_ESCAPE.sub("      ", text) if "\\u" in text else text


def after_escape(raw: bytes, pos: int) -> int:
    """Where a word starting at `pos` begins once an escape's letters are dropped (`\\nSG.…`,
    `\\u0027ghp_…`): the escapes `blank_escapes` kept, such as those of JSON inside JSON."""
    if not pos or raw[pos - 1] != 0x5C:
        return pos
    if raw[pos : pos + 1] in (b"n", b"r", b"t", b"b", b"f"):
        return pos + 1
    if raw[pos : pos + 1] == b"u" and len(raw) >= pos + 5 and all(c in _HEX for c in raw[pos + 1 : pos + 5]):
        return pos + 5
    return pos
