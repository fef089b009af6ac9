"""`git patch-id --stable`, computed in-process from a unified diff.

Receipts carry the patch-id of the proposal commit, and the dream loop writes one receipt per
proposal, so spawning `git patch-id` per proposal would dominate a run. This follows git's
algorithm (builtin/patch-id.c, non-verbatim): each file's diff (its `diff --git` line, header
lines other than `index`, `---`/`+++`, and every hunk line) is SHA-1 hashed with all whitespace
removed and the hunk line numbers left out; with `--stable` the per-file digests are added
together as little-endian 160-bit numbers, so file order does not matter. A test compares it with
the real `git patch-id --stable` output. Binary diffs return None (the caller asks git instead).
"""

from __future__ import annotations

import hashlib
import re

_HUNK_RE = re.compile(r"^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@")
_SPACE = re.compile(rb"[ \t\n\r]+")  # git's isspace: no \v or \f


def _add(total: bytearray, digest: bytes) -> None:
    carry = 0
    for i, byte in enumerate(digest):
        carry += total[i] + byte
        total[i] = carry & 0xFF
        carry >>= 8


def stable_patch_id(diff_text: str) -> str | None:
    """The stable patch-id of `diff_text` (git's diff format); None for binary or empty diffs."""
    total = bytearray(20)
    hasher = hashlib.sha1()
    before = after = -1  # lines left in the current hunk; -1 = parsing a file header
    started = False
    for raw in diff_text.splitlines(keepends=True):
        if raw.startswith("\\ "):
            continue  # "\ No newline at end of file"
        if not started:
            if not raw.startswith("diff "):
                continue
            started = True
        if before == -1:
            if raw.startswith(("GIT binary patch", "Binary files")):
                return None
            if raw.startswith("index "):
                continue
            if raw.startswith("--- "):
                before = after = 1
            elif not raw[:1].isalpha():
                break
        if before == 0 and after == 0:
            hunk = _HUNK_RE.match(raw)
            if hunk:
                before = int(hunk.group(1)) if hunk.group(1) is not None else 1
                after = int(hunk.group(2)) if hunk.group(2) is not None else 1
                continue
            if not raw.startswith("diff "):
                break
            _add(total, hasher.digest())
            hasher = hashlib.sha1()
            before = after = -1
        if raw[:1] in ("-", " "):
            before -= 1
        if raw[:1] in ("+", " "):
            after -= 1
        hasher.update(_SPACE.sub(b"", raw.encode("utf-8", "surrogateescape")))
    if not started:
        return None
    _add(total, hasher.digest())
    return total.hex()
