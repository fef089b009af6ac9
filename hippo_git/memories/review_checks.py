"""The deterministic review of a memory change: what the built-in offline reviewer judges on.

A model reviewer brings judgement; the built-in one cannot, so it confirms a memory change only
when fixed checks pass: the file is a valid memory (front matter with its id, a known confidence,
a creation time, usable tags, a positive half-life), its text is not empty, not overlong and holds
no secret the redactor finds, and a new memory neither repeats a kept one nor brings back a value
a resolved conflict rejected. The kept and rejected values it compares with reach the reviewer as
evidence turns (`KEPT_KIND`, `REJECTED_KIND`), so a model reviewer sees them too.
"""

from __future__ import annotations

from collections.abc import Sequence

from hippo_git.memories.record import (
    MAX_TEXT_CHARS,
    NEAR_DUPLICATE,
    TIERS,
    is_memory_id,
    negates,
    normalise,
    parse_time,
    similarity,
)

KEPT_KIND = "kept_memory"
REJECTED_KIND = "rejected_value"
MAX_FILE_CHARS = MAX_TEXT_CHARS + 1000  # the text plus its front matter


def file_problems(text: str, path: str) -> list[str]:
    """What makes `text` (a whole memory file at `path`) not a valid memory; empty when valid."""
    import re

    from hippo_git.memories.record import _TAG, _as_bool
    from hippo_git.notes.parse import parse_front_matter, split_front_matter
    from hippo_git.transcripts.redact import redact

    if len(text) > MAX_FILE_CHARS:
        return [f"the file has {len(text)} characters; a memory has at most {MAX_FILE_CHARS}"]
    block, body, _, error = split_front_matter(text)
    if error or block is None:
        return [error or "the file has no front matter"]
    front, error = parse_front_matter(block)
    if error:
        return [error]
    problems: list[str] = []
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    ident = str(front.get("id") or "")
    if not is_memory_id(ident) or ident != stem:
        problems.append(f"its id {ident!r} is not the file's name {stem!r}")
    if _as_bool(front.get("forgotten")):
        return problems  # a tombstone keeps only its id
    if str(front.get("confidence")) not in TIERS:
        problems.append(f"unknown confidence {front.get('confidence')!r}")
    if parse_time(str(front.get("created") or "")) is None:
        problems.append(f"created {front.get('created')!r} is not a time")
    tags = front.get("tags")
    if not isinstance(tags, list) or not all(isinstance(t, str) and _TAG.match(t) for t in tags):
        problems.append(f"tags {tags!r} are not a list of usable tags")
    half = front.get("half_life")
    try:
        days = float(str(half))
    except ValueError:
        days = 0.0
    if isinstance(half, bool) or not days > 0:
        problems.append(f"half_life {half!r} is not a positive number of days")
    clean = body.strip()
    if not normalise(clean):
        problems.append("the text is empty")
    elif len(clean) > MAX_TEXT_CHARS:
        problems.append(f"the text has {len(clean)} characters; the most is {MAX_TEXT_CHARS}")
    _, found = redact(clean)
    if found:
        problems.append("the text holds what the redactor hides: " + ", ".join(sorted(found)))
    if re.search(r"^---\s*$", clean, re.M):
        problems.append("the text holds a front matter fence")
    return problems


def repeated(text: str, kept: Sequence[tuple[str, str]]) -> str | None:
    """The id of a kept memory (id, text) that `text` repeats, word for word or nearly."""
    norm = normalise(text)
    for ident, other in kept:
        if normalise(other) == norm:
            return ident
        if similarity(other, text) >= NEAR_DUPLICATE and not negates(other, text):
            return ident
    return None


def brings_back(text: str, rejected: Sequence[str]) -> str | None:
    """The rejected value `text` brings back, if any."""
    norm = normalise(text)
    for value in rejected:
        if normalise(value) == norm or similarity(value, text) >= NEAR_DUPLICATE:
            return value
    return None


def review_memory(
    op: str,
    before: str,
    old: str | None,
    new: str,
    path: str,
    kept: Sequence[tuple[str, str]] = (),
    rejected: Sequence[str] = (),
) -> tuple[str, str]:
    """(verdict, reason) of the built-in review of one memory change."""
    from hippo_git.memories.record import parse_memory

    if op == "append":
        if before.strip():
            return "reject", "a memory is a new file; this one exists already"
        after = new
    else:
        if not old or before.count(old) != 1:
            return "reject", "the replaced text is not in the memory exactly once"
        after = before.replace(old, new, 1)
        if parse_memory(before, path).id != parse_memory(after, path).id:
            return "reject", "the change renames the memory"
    problems = file_problems(after, path)
    if problems:
        return "reject", "not a valid memory: " + "; ".join(problems)
    memory = parse_memory(after, path)
    if memory.kind == "forgotten":
        return "confirm", "a tombstone of the memory (recall skips it; git keeps its history)"
    if op == "append":
        same = repeated(memory.text, kept)
        if same is not None:
            return "reject", f"repeats the kept memory {same}"
    value = brings_back(memory.text, rejected)
    if value is not None:
        return "reject", f"brings back a value a resolved conflict rejected: {value[:60]!r}"
    return "confirm", "a valid memory, redaction clean, of sane size, not a repeat nor a rejected value"
