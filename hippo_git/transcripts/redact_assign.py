"""The context rules and assignments of `redact_rules`, run on a text whose gates opened them.

Anchored rules (key blocks, URLs, headers...) claim what their regex finds; assignments
(`password=`, `"api_key": "..."`, `--token x`) are vetted here in Python, so that code such as
`token = get_token()` is left alone. An assignment's value is read in the text as written, its
name in the view with JSON escapes blanked.
"""

from __future__ import annotations

import re

from hippo_git.transcripts import redact_rules as rules
from hippo_git.transcripts import redact_tables as tables
from hippo_git.transcripts.redact_spans import Span, claim, randomish

RULES, RULE_GATES = tables.rules()
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
_B64_40 = re.compile(r"[A-Za-z0-9/+]{40}\Z")
_JSON_KEY_NEXT = re.compile(r"\\?[\"'`][ \t]*:(?!=)")
_FAMILY_WORDS = ("pass", "pwd", "secret", "token", "key", "auth")
_STRICT_HEADS = frozenset(
    {"auth", "pat", "salt", "secure", "credential", "credentials"}
)  # names too common to trust without a random value


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
    if (head in _STRICT_HEADS or key == "pass") and not (len(value) >= 8 and randomish(value)):
        return  # `pass = "facts"` names a pass; `SERVER_AUTH = "serverAuth"` is no credential
    if op == "," and not any(c.isdigit() for c in value):
        return  # a list of names, `("token", "secret")`, not a default value
    kind = "password" if family == "password" else "secret"
    if ("aws" in key.lower() or "access" in key.lower()) and _B64_40.match(value):
        kind = "aws_secret_key"
    if group == "uv" and op == "=" and (more := _CONTINUED.match(view, ve)):
        ve = more.end()  # INI continuation lines
    claim(spans, vs, ve, kind)


def lower(text: str) -> str:
    """`text` lowercased the way `scan` lowercases it (see there)."""
    return text.lower() if text.isascii() else text.encode("ascii", "replace").lower().decode("ascii")


def run_rules(text: str, low: str, view: str, hits: int, spans: list[Span]) -> None:
    """Assignments read the text (see `_assignment`); the anchored rules read `view`."""
    view_low = low if view is text else ""
    while hits:  # the rules whose bits are set, lowest (first in priority) first
        low_bit = hits & -hits
        hits ^= low_bit
        kind, rx, on_low, groups, assignment, leads = RULES[low_bit.bit_length() - 1]
        if assignment:
            for m in rx.finditer(low):
                _assignment(text, low, view, m, kind, spans)
            continue
        if on_low and not view_low:
            view_low = lower(view)
        seen = view_low if on_low else view
        if leads and not any(lead in seen for lead in leads):
            continue  # what every match starts with is not there: an `in` instead of a search
        for m in rx.finditer(seen):
            group = next((g for g in groups if m.group(g) is not None), None)
            vs, ve = m.span(group) if group else m.span()
            if group == "b":  # a block ends at its last character (not an escape's blanked `\`)
                while ve > vs and view[ve - 1] in " \t\r":
                    ve -= 1
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
            if kind == "auth_header" and (not randomish(view[vs:ve]) or _DOTTED_NAME.match(view, vs, ve)):
                continue  # `authorization = base64.decodebytes(...)` is code
            claim(spans, vs, ve, kind)
