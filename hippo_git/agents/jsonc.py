"""JSON with comments, as Gemini CLI reads its settings: `//` and `/* */` comments outside strings.

Edits keep the user's comments: only the top-level members hippo changed are rewritten in place
(the rest of the text, comments included, is kept byte for byte). A comment inside a member that
has to change would be lost, so that edit is refused with that reason instead.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from hippo_git.errors import HippoError

_WS = re.compile(r"\s*")


def _skip(text: str, at: int) -> int:
    """The first offset at or after `at` that is not whitespace."""
    match = _WS.match(text, at)
    return match.end() if match else at


def blank_comments(text: str) -> str:
    """`text` with every comment replaced by spaces (line breaks kept), so offsets stay the same."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i : j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(ch)
            i += 1
    return "".join(out)


def has_comments(text: str) -> bool:
    return blank_comments(text) != text


@dataclass(frozen=True)
class Member:
    """Where a top-level member of a JSONC object sits: offsets of its key, and its value's start and end."""

    key_start: int
    value_start: int
    value_end: int


def _members(blank: str) -> tuple[dict[str, Member], int]:
    """Top-level members of the object in `blank`, and the offset of its closing brace."""
    decoder = json.JSONDecoder()
    i = _skip(blank, 0)
    if blank[i : i + 1] != "{":
        raise ValueError("top level is not an object")
    i += 1
    found: dict[str, Member] = {}
    while True:
        i = _skip(blank, i)
        if blank[i : i + 1] == "}":
            return found, i
        key, after = decoder.raw_decode(blank, i)
        colon = _skip(blank, after)
        start = _skip(blank, colon + 1)
        _, end = decoder.raw_decode(blank, start)
        found[str(key)] = Member(i, start, end)
        i = _skip(blank, end)
        if blank[i : i + 1] == ",":
            i += 1


def loads(text: str) -> Any:
    return json.loads(blank_comments(text))


def _indent_of(text: str, at: int) -> str:
    line_start = text.rfind("\n", 0, at) + 1
    match = re.match(r"[ \t]*", text[line_start:])
    return match.group(0) if match else ""


def splice(
    text: str, new: dict[str, Any], dump: Callable[[Any, str], str], refuse: Callable[[str], HippoError]
) -> str:
    """`text` (JSON with comments) changed to hold `new`, rewriting only the members that differ.

    `dump(value, indent)` serialises one value whose first line follows the key and whose later lines
    start with `indent`."""
    blank = blank_comments(text)
    old = json.loads(blank)
    members, close = _members(blank)
    edits: list[tuple[int, int, str]] = []
    keys = list(members)
    for key, member in members.items():
        if key in new and new[key] == old[key]:
            continue
        if blank[member.key_start : member.value_end] != text[member.key_start : member.value_end]:
            raise refuse(f'a comment inside "{key}" would be lost')
        if key in new:
            indent = _indent_of(text, member.key_start)
            edits.append((member.value_start, member.value_end, dump(new[key], indent)))
            continue
        # Removed: take the member out with one of the commas around it.
        pos = keys.index(key)
        start, end = member.key_start, member.value_end
        after = _skip(blank, end)
        if blank[after : after + 1] == ",":
            end = _skip(blank, after + 1)
        elif pos > 0:
            start = members[keys[pos - 1]].value_end
        if blank[start:end] != text[start:end]:
            raise refuse(f'a comment beside "{key}" would be lost')
        edits.append((start, end, ""))
    added = [k for k in new if k not in members]
    if added:
        indent = _indent_of(text, members[keys[0]].key_start) if keys else "  "
        body = ",".join(f"\n{indent}{json.dumps(k)}: {dump(new[k], indent)}" for k in added)
        if keys:
            last = max(members.values(), key=lambda m: m.value_end).value_end
            edits.append((last, last, "," + body))
        else:
            edits.append((close, close, body + "\n"))
    for start, end, replacement in sorted(edits, reverse=True):
        text = text[:start] + replacement + text[end:]
    return text
