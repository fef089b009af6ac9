"""A pack as files: read from a folder with the layout checks, hashed, compared and diffed.

A pack holds no code, so what a pack folder may contain is fixed: `pack.toml`, a README, and TOML
and Markdown (plus transcript samples) in the pack's known folders. Anything else (a script, a
symlink, a hidden file, a file of another kind or a very large one) refuses the pack before any
model reads it. The content hash covers every file's path and bytes, so a review receipt pins
exactly the content it read.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import re
import stat
from collections.abc import Mapping
from pathlib import Path

from hippo_git.errors import HippoError

ORIGIN = "origin.json"  # written by hippo next to an installed pack; not part of its content
MAX_FILE_BYTES = 256 * 1024
MAX_FILES = 200
_LAYOUT = (
    re.compile(r"^pack\.toml$"),
    re.compile(r"^(README|CHANGELOG|LICENSE)(\.md)?$"),
    re.compile(r"^passes/[a-z0-9][a-z0-9_-]{0,63}\.toml$"),
    re.compile(r"^(prompts|personas|templates)/[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.md$"),
    re.compile(r"^tests/[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.toml$"),
    re.compile(r"^samples/[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.(jsonl|md)$"),
)

PackFiles = Mapping[str, bytes]  # path inside the pack (posix) → bytes


class PackLayoutError(HippoError):
    """A pack folder holds something a pack may not hold."""


def allowed(path: str) -> bool:
    return any(p.match(path) for p in _LAYOUT)


def read_folder(folder: Path) -> dict[str, bytes]:
    """Every file of a pack folder (without `.git/` and `origin.json`), checked against the layout."""
    if not (folder / "pack.toml").is_file():
        raise PackLayoutError(f"{folder}: no pack.toml here", hint="point at the folder that holds pack.toml")
    files: dict[str, bytes] = {}
    for dirpath, dirnames, filenames in os.walk(folder, followlinks=False):
        here = Path(dirpath)
        dirnames[:] = sorted(d for d in dirnames if not (here == folder and d == ".git"))
        for d in dirnames:
            if (here / d).is_symlink():
                raise PackLayoutError(f"{here / d}: a symlink in a pack", hint="packs hold plain files only")
        for name in sorted(filenames):
            path = here / name
            rel = path.relative_to(folder).as_posix()
            if rel == ORIGIN:
                continue
            info = path.lstat()
            if not stat.S_ISREG(info.st_mode):
                raise PackLayoutError(f"{path}: not a regular file", hint="packs hold plain files only")
            if info.st_mode & 0o111:
                raise PackLayoutError(
                    f"{path}: executable", hint="a pack holds no code; nothing in it is run"
                )
            if not allowed(rel):
                raise PackLayoutError(
                    f"{path}: {rel!r} is not part of a pack's layout",
                    hint="a pack holds pack.toml, README.md, passes/*.toml, prompts|personas|templates/*.md, "
                    "tests/*.toml and samples/*.jsonl only",
                )
            if info.st_size > MAX_FILE_BYTES:
                raise PackLayoutError(
                    f"{path}: {info.st_size} bytes, over the {MAX_FILE_BYTES} a pack file may have"
                )
            files[rel] = path.read_bytes()
            if len(files) > MAX_FILES:
                raise PackLayoutError(f"{folder}: more than {MAX_FILES} files in one pack")
    return files


def content_hash(files: PackFiles) -> str:
    """sha256 over every path and the sha256 of its bytes, in path order."""
    h = hashlib.sha256()
    for path in sorted(files):
        h.update(path.encode("utf-8") + b"\0" + hashlib.sha256(files[path]).hexdigest().encode() + b"\n")
    return h.hexdigest()


def changed_paths(a: PackFiles, b: PackFiles) -> list[str]:
    return sorted(p for p in set(a) | set(b) if a.get(p) != b.get(p))


def diff(a: PackFiles, b: PackFiles, a_label: str, b_label: str) -> str:
    """A unified diff from `a` to `b`, file by file."""
    out: list[str] = []
    for path in changed_paths(a, b):
        old = a.get(path, b"").decode("utf-8", "replace").splitlines(keepends=True)
        new = b.get(path, b"").decode("utf-8", "replace").splitlines(keepends=True)
        out += difflib.unified_diff(
            old,
            new,
            f"{a_label}/{path}" if path in a else "/dev/null",
            f"{b_label}/{path}" if path in b else "/dev/null",
        )
    return "".join(line if line.endswith("\n") else line + "\n" for line in out)


def write_folder(folder: Path, files: PackFiles) -> None:
    """Write `files` into the new folder `folder` (a scratch copy that `load_pack` can read)."""
    for rel, data in files.items():
        target = folder / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
