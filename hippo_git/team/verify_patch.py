"""Reading a dream commit's patch with unidiff and checking it against what the receipt describes.

A receipt names one note, the blob before and the blob after. `verify` reads the commit's patch
and checks that it touches that note only and that its hunks, applied to the receipt's before
text, give exactly the receipt's after text: the change a reviewer saw is the change that ships.
"""

from __future__ import annotations

from unidiff.errors import UnidiffParseError
from unidiff.patch import PatchSet


def _lines(text: str) -> list[str]:
    """Lines as git and unidiff see them: split at "\n" only (str.splitlines also splits at
    \r, \f, \u2028 and more, which a note may hold inside a line)."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def patch_problem(diff_text: str, path: str, before: str, after: str) -> str | None:
    """None when `diff_text` changes only `path` and turns `before` into `after`; else what is wrong."""
    try:
        patch = PatchSet(diff_text)
    except UnidiffParseError as exc:
        return f"its patch cannot be read: {exc}"
    if len(patch) != 1:
        return f"its patch changes {len(patch)} files; a proposal changes exactly one note"
    changed = patch[0]
    if changed.path != path:
        return f"its patch changes {changed.path}, not the receipt's {path}"
    old = _lines(before)
    out: list[str] = []
    pos = 0
    for hunk in changed:
        start = hunk.source_start - 1 if hunk.source_length else hunk.source_start
        if start < pos or start > len(old):
            return "its hunks do not fit the note the receipt names as before"
        out.extend(old[pos:start])
        pos = start
        previous = ""
        for line in hunk:
            kind = line.line_type
            if kind == "\\":
                if previous == "+" and out:
                    out[-1] = out[-1].removesuffix("\n")
                continue
            if kind in (" ", "-"):
                if pos >= len(old) or old[pos].rstrip("\n") != line.value.rstrip("\n"):
                    return "its hunks do not fit the note the receipt names as before"
                if kind == " ":
                    out.append(old[pos])
                pos += 1
            elif kind == "+":
                out.append(line.value)
            previous = kind
    out.extend(old[pos:])
    if "".join(out) != after:
        return "its hunks do not give the note the receipt names as after"
    return None
