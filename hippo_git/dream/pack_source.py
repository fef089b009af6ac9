"""Where a pack comes from: a folder, or a git URL at a ref (with an optional sub-folder).

What is fetched is read into memory (`pack_files.read_folder`) and its scratch clone removed; no
file of a source is ever run or imported.
"""

from __future__ import annotations

import shutil
import tempfile
import tomllib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from hippo_git.dream.pack_files import PackLayoutError, read_folder
from hippo_git.dream.packs import NAME_RE, shipped_root
from hippo_git.errors import UsageError
from hippo_git.git.fetch_source import fetch_checkout

SHIPPED = "shipped:"  # a pack that ships inside hippo_git: updated when hippo_git is


@dataclass(frozen=True)
class Fetched:
    """A pack's files as read from its source folder or git URL, with the ref and commit read."""

    name: str
    files: dict[str, bytes]
    source: str  # the folder (absolute) or URL as fetched
    ref: str | None
    subdir: str
    commit: str | None  # the commit read, for git sources


def looks_like_name(source: str) -> bool:
    """A bare pack name (resolved through the registry) rather than a folder or URL."""
    return bool(NAME_RE.match(source)) and not Path(source).exists()


def _checked_subdir(subdir: str) -> str:
    sub = PurePosixPath(subdir or ".")
    if sub.is_absolute() or ".." in sub.parts:
        raise UsageError(f"sub-folder {subdir!r} must be relative, without '..'")
    return "" if str(sub) == "." else str(sub)


def pack_name(files: dict[str, bytes], where: str) -> str:
    try:
        name = tomllib.loads(files["pack.toml"].decode("utf-8")).get("name")
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise PackLayoutError(f"{where}/pack.toml: {exc}", hint="fix the pack's TOML") from None
    if not isinstance(name, str) or not NAME_RE.match(name):
        raise PackLayoutError(
            f"{where}/pack.toml: key 'name' must be lower-case letters, digits, '-' or '_'",
            hint="fix the pack",
        )
    return name


def fetch(source: str, ref: str | None = None, subdir: str = "") -> Fetched:
    """Read the pack at `source`: a folder (as it is on disk, unless `ref` is given and it is a git
    repository), or anything `git clone` takes, checked out at `ref`."""
    sub = _checked_subdir(subdir)
    if source.startswith(SHIPPED):
        name = source.removeprefix(SHIPPED)
        folder = shipped_root() / name
        if not NAME_RE.match(name) or not (folder / "pack.toml").is_file():
            raise UsageError(f"hippo_git ships no pack named {name!r}", hint="see `git hippo packs list`")
        files = read_folder(folder)
        return Fetched(pack_name(files, source), files, source, None, "", None)
    folder = Path(source).expanduser()
    if folder.is_dir() and ref is None:
        folder = folder.resolve()
        files = read_folder(folder / sub if sub else folder)
        return Fetched(pack_name(files, str(folder)), files, str(folder), None, sub, None)
    url = str(folder.resolve()) if folder.is_dir() else source
    scratch = Path(tempfile.mkdtemp(prefix="hippo-pack-"))
    try:
        commit = fetch_checkout(url, ref, scratch / "src")
        root = scratch / "src" / sub if sub else scratch / "src"
        files = read_folder(root)
        return Fetched(pack_name(files, f"{url}@{commit[:12]}"), files, url, ref, sub, commit)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
