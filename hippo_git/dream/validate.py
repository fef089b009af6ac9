"""Checks in code that every proposal passes before anyone reviews it (invariant 3).

`check(proposal, shown, ...)` returns the reasons a proposal is refused (empty = valid). Path rules
come first and stop the checks: nothing else is looked at for a path that could leave the notes.
"""

from __future__ import annotations

import os
import re
import unicodedata
from collections.abc import Sequence
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

from hippo_git.dream.evidence import PassInput, max_change_bytes
from hippo_git.dream.quotes import MIN_QUOTE, quotes_in
from hippo_git.dream.records import EVIDENCE_RE, Proposal
from hippo_git.transcripts.redact import find_secrets

_DRIVE = re.compile(r"^[A-Za-z]:")
_NOT_PORTABLE = set(':*?"<>|')  # drive letters, alternate data streams, wildcards: never in a note path
# The smallest per-component limit of common file systems (ext4, APFS, NTFS): bytes in UTF-8.
NAME_MAX = 255


def path_problems(path: str, root: Path, notes_dir: str) -> list[str]:
    """Why `path` (repo-relative) is not a note this dream may change; [] when it is."""
    if not path or path != path.strip():
        return ["the path is empty or has surrounding spaces"]
    if any(unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") for c in path):
        return ["the path holds control or invisible characters"]
    if "\\" in path:
        return ["the path holds a backslash"]
    if path.startswith(("/", "~")) or _DRIVE.match(path):
        return ["the path is not relative"]
    if any(c in _NOT_PORTABLE for c in path):
        return ['the path holds a character Windows forbids in file names (: * ? " < > |)']
    if unquote(path) != path:
        return ["the path is percent-encoded"]
    parts = path.split("/")
    if "" in parts:
        return ["the path has an empty component"]
    if ".." in parts or "." in parts:
        return ["the path contains '..' or '.'"]
    if any(len(part.encode("utf-8")) > NAME_MAX for part in parts):
        return [f"a component of the path is longer than {NAME_MAX} bytes"]
    if ".hippo" in parts:
        return ["the path is under .hippo/"]
    if any(part.startswith(".") for part in parts):
        return ["the path names a hidden file or folder"]
    notes_parts = [p for p in notes_dir.strip("/").split("/") if p]
    if parts[: len(notes_parts)] != notes_parts or len(parts) <= len(notes_parts):
        return [f"the path is not under {notes_dir.strip('/')}/"]
    if not path.endswith(".md"):  # ("notes/.md" is refused above, as hidden)
        return ["the path is not a .md file"]
    return _resolved_problems(path, root, notes_dir)


def _resolved_problems(path: str, root: Path, notes_dir: str) -> list[str]:
    """Symbolic links along the way must not lead out of notes_dir; the note itself is no link."""
    try:
        top = root.resolve()
        notes = (root / notes_dir).resolve()
        target = root / PurePosixPath(path)
        resolved = target.resolve()
        # Python 3.13's resolve() no longer raises on a symbolic link loop: ask strictly for the
        # deepest part of the path that exists.
        existing = next(p for p in (target, *target.parents) if os.path.lexists(p))
        os.path.realpath(existing, strict=True)
    except (OSError, RuntimeError):
        return ["the path cannot be resolved (a symbolic link loop?)"]
    if not notes.is_relative_to(top):
        return [f"{notes_dir}/ resolves outside the repository"]
    if not resolved.is_relative_to(notes):
        return [f"the path leads out of {notes_dir}/ through a symbolic link"]
    try:
        is_link = target.is_symlink()
    except OSError:  # a name the file system refuses is no note either
        return ["the path cannot be looked up on this file system"]
    if is_link:
        return ["the note is a symbolic link"]
    return []


def _norm(text: str) -> str:
    return " ".join(text.split())


def brings_back(new: str, reverted: Sequence[str]) -> str | None:
    """A reverted text that `new` would bring back, or None."""
    new_n = _norm(new)
    for text in reverted:
        text_n = _norm(text)
        if len(text_n) < MIN_QUOTE:
            continue
        if text_n in new_n or (len(new_n) >= 20 and new_n in text_n):
            return text
        for quote in quotes_in(text):  # the same words again, cited from another session
            if len(quote) >= 12 and _norm(quote) in new_n:
                return quote
        for line in text.splitlines():
            line_n = _norm(line.lstrip("-*> #"))
            if len(line_n) >= 20 and line_n in new_n:
                return line
    return None


def secret_problems(text: str) -> list[str]:
    """A reason per kind of secret in `text` (the redactor's kinds, never the value): a note is
    shared through git, and no secret may reach one (invariant 2)."""
    kinds = sorted({kind for _, kind in find_secrets(text)})
    return [f"the new text holds what looks like a secret ({kind})" for kind in kinds]


def check(
    proposal: Proposal,
    shown: PassInput,
    *,
    root: Path,
    notes_dir: str,
    ops: Sequence[str] = ("append", "replace"),
) -> list[str]:
    """Every reason to refuse `proposal`; [] when it may go on to review."""
    reasons = path_problems(proposal.path, root, notes_dir)
    if reasons:
        return reasons
    note = shown.note(proposal.path)
    if note is None:
        exists = (root / proposal.path).is_file()
        return [f"the note was not in the prompt{'' if exists else ' and does not exist'}"]
    if proposal.op not in ops:
        reasons.append(f"this pass may not {proposal.op}")
    shown_ids = shown.turn_ids()
    for ev in proposal.evidence:
        if not EVIDENCE_RE.match(ev):
            reasons.append(f"evidence {ev[:60]!r} is not of the form <session>#<turn>")
        elif ev not in shown_ids:
            reasons.append(f"evidence {ev} was not in the prompt")
    if "\0" in proposal.new or not proposal.new.strip():
        reasons.append("the new text is empty or holds NUL characters")
    size = len(proposal.new.encode("utf-8"))
    if proposal.op == "replace":
        old = proposal.old or ""
        count = note.text.count(old) if old else 0
        if count != 1:
            reasons.append(
                f"the text to replace occurs {count} times in the note (it must occur exactly once)"
            )
        if old == proposal.new:
            reasons.append("the replacement equals the text it replaces")
        size = max(size, len(old.encode("utf-8")))
        turns = shown.turns_by_id()
        evidence_text = [turns[e].text for e in proposal.evidence if e in turns]
        if not any(q in t for q in quotes_in(proposal.new) for t in evidence_text):
            reasons.append("the replacement does not quote its evidence verbatim")
    elif proposal.old is not None:  # even "": an append that names text to replace is malformed
        reasons.append("an append carries text to replace")
    limit = max_change_bytes(note.text)
    if size > limit:
        reasons.append(f"the change is {size} bytes, more than half the note (limit {limit} bytes)")
    reasons += secret_problems(proposal.new)
    back = brings_back(proposal.new, shown.reverted.get(proposal.path, ()))
    if back is not None:
        reasons.append(f"the new text brings back text a human reverted: {_norm(back)[:80]!r}")
    from hippo_git.memories.remember import rejected_in

    rejected = rejected_in(root, notes_dir, proposal.new)
    if rejected is not None:
        reasons.append(
            f"the new text brings back a value a resolved conflict rejected: {_norm(rejected)[:80]!r}"
        )
    return reasons
