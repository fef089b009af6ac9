"""A registry of packs: one index file in a git repository (or a folder), each entry pinned to the
exact content its review read.

`hippo-registry.json`: {"format": 1, "packs": [{name, source, ref, subdir, version, description,
content_sha256, review}]}. An entry's `source` may be "" for "the registry's own repository",
with `subdir` naming the pack's folder in it. `check` fetches every entry and fails one whose
content hash differs from the entry's, or whose review covers other content or did not confirm;
`packs add NAME` refuses such an entry the same way.
"""

from __future__ import annotations

import json
import shutil
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hippo_git.dream.pack_files import content_hash, read_folder
from hippo_git.dream.pack_review import PackReceipt, review_pack
from hippo_git.dream.pack_source import Fetched, fetch, pack_name
from hippo_git.dream.runner import Model
from hippo_git.errors import HippoError, UsageError
from hippo_git.files import write_text_atomic
from hippo_git.git.fetch_source import fetch_checkout

REGISTRY_FILE = "hippo-registry.json"


class RegistryEntry(BaseModel):
    model_config = ConfigDict(extra="forbid")

    name: str
    source: str = ""  # "" = the registry's own repository or folder
    ref: str | None = None
    subdir: str = ""
    version: str = ""
    description: str = ""
    content_sha256: str = Field(pattern=r"^[0-9a-f]{64}$")
    review: PackReceipt


class RegistryIndex(BaseModel):
    model_config = ConfigDict(extra="forbid")

    format: Literal[1] = 1
    packs: list[RegistryEntry] = Field(default_factory=list)


class RegistryError(HippoError):
    """A registry cannot be read, or one of its entries does not hold up."""


@dataclass(frozen=True)
class Registry:
    """A pack registry as read: where it is, the base its entries' sources are relative to, and its index."""

    location: str  # as configured or given
    base: str  # the folder or URL that "" sources mean
    ref: str | None  # the commit of a git registry, so "" sources read the same commit
    index: RegistryIndex

    def entry(self, name: str) -> RegistryEntry:
        for e in self.index.packs:
            if e.name == name:
                return e
        names = ", ".join(e.name for e in self.index.packs) or "none"
        raise UsageError(f"the registry {self.location} has no pack {name!r}", hint=f"packs in it: {names}")


def _parse(text: str, where: str) -> RegistryIndex:
    try:
        return RegistryIndex.model_validate_json(text)
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise RegistryError(
            f"{where}: key {key!r}: {first['msg']}", hint="rebuild it with `git hippo registry build`"
        ) from None


def load_registry(location: str) -> Registry:
    """A registry index: a file, a folder holding `hippo-registry.json`, or a git URL (its root)."""
    path = Path(location).expanduser()
    if path.is_file():
        return Registry(
            location, str(path.resolve().parent), None, _parse(path.read_text(encoding="utf-8"), str(path))
        )
    if path.is_dir() and (path / REGISTRY_FILE).is_file():
        file = path / REGISTRY_FILE
        return Registry(
            location, str(path.resolve()), None, _parse(file.read_text(encoding="utf-8"), str(file))
        )
    if path.is_dir() and not (path / ".git").exists():
        raise RegistryError(
            f"{location} holds no {REGISTRY_FILE}", hint="build one with `git hippo registry build`"
        )
    scratch = Path(tempfile.mkdtemp(prefix="hippo-registry-"))
    try:
        commit = fetch_checkout(str(path.resolve()) if path.is_dir() else location, None, scratch / "r")
        file = scratch / "r" / REGISTRY_FILE
        if not file.is_file():
            raise RegistryError(
                f"{location} holds no {REGISTRY_FILE} at its root",
                hint="build one with `git hippo registry build`",
            )
        return Registry(
            location,
            str(path.resolve()) if path.is_dir() else location,
            commit,
            _parse(file.read_text(encoding="utf-8"), f"{location}:{REGISTRY_FILE}"),
        )
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def fetch_entry(reg: Registry, entry: RegistryEntry) -> Fetched:
    if entry.source:
        return fetch(entry.source, entry.ref, entry.subdir)
    return fetch(reg.base, entry.ref or reg.ref, entry.subdir)


def entry_problems(entry: RegistryEntry, fetched: Fetched) -> list[str]:
    """Why an entry does not hold up against the content it names (empty: it holds)."""
    problems = []
    actual = content_hash(fetched.files)
    if fetched.name != entry.name:
        problems.append(f"the pack at its source is named {fetched.name!r}")
    if actual != entry.content_sha256:
        problems.append(
            f"its content changed since the entry was written (sha256 {actual[:12]}, entry says {entry.content_sha256[:12]})"
        )
    if entry.review.content_sha256 != entry.content_sha256:
        problems.append("its review read other content than the entry names")
    if entry.review.pack != entry.name:
        problems.append(f"its review is of the pack {entry.review.pack!r}")
    if entry.review.verdict != "confirm":
        problems.append(f"its review did not confirm it: {entry.review.reason}")
    return problems


@dataclass
class EntryCheck:
    """The problems found with one registry entry (none: it is fine)."""

    name: str
    problems: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems


def check_registry(location: str) -> list[EntryCheck]:
    reg = load_registry(location)
    out = []
    seen: set[str] = set()
    for entry in reg.index.packs:
        check = EntryCheck(entry.name)
        if entry.name in seen:
            check.problems.append("listed twice")
        seen.add(entry.name)
        try:
            check.problems += entry_problems(entry, fetch_entry(reg, entry))
        except HippoError as exc:
            check.problems.append(f"does not resolve: {exc.message}")
        out.append(check)
    return out


def resolve(location: str, name: str) -> tuple[Fetched, Registry]:
    """The content of registry entry `name`, refused when it is not what its review read."""
    reg = load_registry(location)
    entry = reg.entry(name)
    fetched = fetch_entry(reg, entry)
    problems = entry_problems(entry, fetched)
    if problems:
        raise RegistryError(
            f"registry entry {name!r} refused: {'; '.join(problems)}",
            hint="the registry's maintainers must review the new content and rebuild the entry",
        )
    return fetched, reg


@dataclass
class BuildResult:
    """A registry index file written from pack folders: the entries in it and the packs left out, with why."""

    path: Path
    entries: list[RegistryEntry]
    rejected: list[tuple[str, str]]  # (pack, reason): left out of the index


def build_registry(
    folder: Path, model: Model, *, source: str = "", ref: str | None = None, out: Path | None = None
) -> BuildResult:
    """Review every pack folder under `folder` and write the index of the confirmed ones."""
    if not folder.is_dir():
        raise UsageError(f"{folder} is not a folder", hint="name the folder that holds the packs")
    path = out or folder / REGISTRY_FILE
    base = path.parent.resolve()
    entries, rejected = [], []
    for child in sorted(p for p in folder.iterdir() if (p / "pack.toml").is_file()):
        files = read_folder(child)
        name = pack_name(files, str(child))
        receipt = review_pack(name, files, model)
        if receipt.verdict != "confirm":
            rejected.append((name, receipt.reason))
            continue
        manifest = tomllib.loads(files["pack.toml"].decode("utf-8"))
        entries.append(
            RegistryEntry(
                name=name,
                source=source,
                ref=ref,
                subdir=_subdir(child, base),
                version=str(manifest.get("version", "")),
                description=str(manifest.get("description", "")).strip()[:500],
                content_sha256=content_hash(files),
                review=receipt,
            )
        )
    if not entries and not rejected:
        raise UsageError(f"no pack folders (with pack.toml) under {folder}")
    index = RegistryIndex(packs=entries)
    write_text_atomic(path, json.dumps(index.model_dump(mode="json"), indent=2, sort_keys=True) + "\n")
    return BuildResult(path, entries, rejected)


def _subdir(child: Path, base: Path) -> str:
    """A pack folder's path from the index file's folder: how "" sources find it."""
    try:
        return child.resolve().relative_to(base).as_posix()
    except ValueError:
        raise UsageError(
            f"{child} is not inside {base}, where the index is written",
            hint="write the index (--out) in a folder that holds the packs",
        ) from None
