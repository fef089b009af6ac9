"""Packs and passes: folders of TOML, Markdown and fixtures that tell dreaming what to look for.

A pack holds no code and nothing in it is run: `pack.toml` names the passes, each
`passes/<name>.toml` names its prompt, what it may read, an input budget and a reviewer persona,
and the Markdown files are text that goes into prompts. pydantic checks every file; an error names
the file and the key. Packs are found in the workspace's `.hippo/packs/<name>/`, else among the
packs shipped inside hippo_git (`hippo_git._packs`).
"""

from __future__ import annotations

import hashlib
import re
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from hippo_git.errors import HippoError, UsageError

PACK_FORMAT = 1
CORE = "core"
DEFAULT_PERSONA = "reviewer.md"  # the shipped core persona that reviews passes of other packs
NAME_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")
_FILE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}\.md$")
READS = ("sessions", "notes", "turns", "human_confirmed")
TURN_KINDS = ("prompt", "answer", "tool_call", "tool_output", "summary", "error", "system")
HEURISTICS = ("decision", "rule", "correction", "error_fix")


class PackError(HippoError):
    """A pack or pass file is malformed; the message names the file and the key."""


class PackManifest(BaseModel):
    """`pack.toml`."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    format: Literal[1] = 1
    name: str
    version: str = Field(min_length=1, max_length=40)
    description: str = Field(min_length=1, max_length=2000)
    passes: tuple[str, ...] = Field(min_length=1)

    @field_validator("name")
    @classmethod
    def _name(cls, value: str) -> str:
        if not NAME_RE.match(value):
            raise ValueError("must be lower-case letters, digits, '-' or '_' (at most 64)")
        return value

    @field_validator("passes")
    @classmethod
    def _passes(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for name in value:
            if not NAME_RE.match(name):
                raise ValueError(f"pass name {name!r} must be lower-case letters, digits, '-' or '_'")
        if len(set(value)) != len(value):
            raise ValueError("a pass is listed twice")
        return value


class PassSpec(BaseModel):
    """`passes/<name>.toml`: one thing dreaming looks for, with its own prompt and reviewer."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    description: str = Field(min_length=1, max_length=2000)
    prompt: str  # file under prompts/
    persona: str = DEFAULT_PERSONA  # file under personas/
    template: str | None = None  # file under templates/: the shape of an appended entry
    # "new_notes": instead of the notes sessions touched, empty notes for topics that recur in a
    # period whose sessions touched no note (a newcomer's first notes); such a pass runs only then
    reads: tuple[Literal["sessions", "notes", "turns", "human_confirmed", "new_notes"], ...] = (
        "sessions",
        "notes",
        "turns",
    )
    budget_bytes: int = Field(default=60_000, ge=1_000, le=2_000_000)
    turn_kinds: tuple[
        Literal["prompt", "answer", "tool_call", "tool_output", "summary", "error", "system"], ...
    ] = (
        "prompt",
        "answer",
        "tool_call",
        "tool_output",
        "error",
    )
    ops: tuple[Literal["append", "replace"], ...] = ("append", "replace")
    max_proposals: int = Field(default=20, ge=1, le=200)
    # What the built-in offline model looks for in this pass (data for `git hippo model heuristic`).
    heuristic: tuple[Literal["decision", "rule", "correction", "error_fix"], ...] = ()

    @field_validator("prompt", "persona", "template")
    @classmethod
    def _file(cls, value: str | None) -> str | None:
        if value is not None and not _FILE.match(value):
            raise ValueError("must be a plain .md file name inside the pack's folder (no '/' or '..')")
        return value

    @field_validator("reads", "ops")
    @classmethod
    def _not_empty(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("must name at least one")
        return value


@dataclass(frozen=True)
class Pass:
    """A loaded pass: its spec and the text of the files it names."""

    pack: str
    name: str
    spec: PassSpec
    prompt: str
    template: str | None
    persona_name: str  # "<pack>/<file stem>" of the persona that reviews it
    persona: str  # the persona text (always from hippo_git's shipped files for workspace packs)

    @property
    def full_name(self) -> str:
        return f"{self.pack}/{self.name}"

    @property
    def persona_sha256(self) -> str:
        return hashlib.sha256(self.persona.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Pack:
    """A loaded pack: its manifest, folder, where it came from (workspace or shipped) and its passes."""

    manifest: PackManifest
    root: Path
    source: str  # "workspace" | "shipped"
    passes: tuple[Pass, ...]

    @property
    def name(self) -> str:
        return self.manifest.name

    def get_pass(self, name: str) -> Pass:
        for p in self.passes:
            if p.name == name:
                return p
        raise UsageError(
            f"pack {self.name!r} has no pass {name!r}",
            hint="passes: " + ", ".join(p.name for p in self.passes),
        )


def shipped_root() -> Path:
    return Path(str(resources.files("hippo_git._packs")))


def workspace_root(hippo_dir: Path) -> Path:
    return hippo_dir / "packs"


def _read_toml(path: Path) -> dict[str, object]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise PackError(f"{path}: missing") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{path}: cannot read: {exc}") from None
    except tomllib.TOMLDecodeError as exc:
        raise PackError(f"{path}: {exc}", hint="fix the TOML syntax at that line") from None


def _validation_error(path: Path, exc: ValidationError) -> PackError:
    first = exc.errors()[0]
    key = ".".join(str(p) for p in first["loc"]) or "(file)"
    msg = str(first["msg"]).removeprefix("Value error, ")
    if first["type"] == "extra_forbidden":
        msg = "unknown key"
    return PackError(
        f"{path}: key {key!r}: {msg}", hint="see `git hippo packs show core` for a working example"
    )


def _read_text_inside(root: Path, folder: str, name: str, owner: Path, key: str) -> str:
    path = root / folder / name
    try:
        resolved = path.resolve(strict=True)
    except (FileNotFoundError, RuntimeError, OSError):
        raise PackError(f"{owner}: key {key!r}: {folder}/{name} does not exist in the pack") from None
    if not resolved.is_relative_to(root.resolve()) or not resolved.is_file():
        raise PackError(f"{owner}: key {key!r}: {folder}/{name} is not a file inside the pack")
    try:
        return resolved.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise PackError(f"{owner}: key {key!r}: cannot read {folder}/{name}: {exc}") from None


def _shipped_persona(pack: str, name: str) -> str:
    """A reviewer persona from hippo_git's own files (never from the workspace)."""
    path = shipped_root() / pack / "personas" / name
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise PackError(
            f"{path}: cannot read the reviewer persona: {exc}", hint="reinstall hippo_git"
        ) from None


def load_pack(root: Path, source: str) -> Pack:
    """Read and check one pack folder. Every problem raises PackError naming the file and key."""
    manifest_path = root / "pack.toml"
    try:
        manifest = PackManifest.model_validate(_read_toml(manifest_path))
    except ValidationError as exc:
        raise _validation_error(manifest_path, exc) from None
    if manifest.name != root.name:
        raise PackError(
            f"{manifest_path}: key 'name': {manifest.name!r} differs from the folder name {root.name!r}"
        )
    passes = []
    for pass_name in manifest.passes:
        path = root / "passes" / f"{pass_name}.toml"
        try:
            spec = PassSpec.model_validate(_read_toml(path))
        except ValidationError as exc:
            raise _validation_error(path, exc) from None
        prompt = _read_text_inside(root, "prompts", spec.prompt, path, "prompt")
        template = (
            _read_text_inside(root, "templates", spec.template, path, "template") if spec.template else None
        )
        _read_text_inside(root, "personas", spec.persona, path, "persona")
        # Only packs shipped inside hippo_git pick their reviewer; a workspace pack (even one named
        # "core") is reviewed by hippo_git's shipped core reviewer, so a pack cannot lower the bar
        # its own proposals have to clear.
        if source == "shipped":
            persona_pack, persona_file = manifest.name, spec.persona
        else:
            persona_pack, persona_file = CORE, DEFAULT_PERSONA
        passes.append(
            Pass(
                pack=manifest.name,
                name=pass_name,
                spec=spec,
                prompt=prompt,
                template=template,
                persona_name=f"{persona_pack}/{persona_file.removesuffix('.md')}",
                persona=_shipped_persona(persona_pack, persona_file),
            )
        )
    return Pack(manifest=manifest, root=root, source=source, passes=tuple(passes))


def pack_dirs(hippo_dir: Path) -> dict[str, tuple[Path, str]]:
    """name → (folder, source) of every pack this workspace can use; the workspace's win."""
    found: dict[str, tuple[Path, str]] = {}
    for root, source in ((shipped_root(), "shipped"), (workspace_root(hippo_dir), "workspace")):
        if not root.is_dir():
            continue
        for child in sorted(root.iterdir()):
            if child.is_dir() and (child / "pack.toml").is_file() and NAME_RE.match(child.name):
                found[child.name] = (child, source)
    return found


def find_pack(hippo_dir: Path, name: str) -> Pack:
    dirs = pack_dirs(hippo_dir)
    if name not in dirs:
        raise UsageError(f"no pack named {name!r}", hint="installed packs: " + ", ".join(sorted(dirs)))
    folder, source = dirs[name]
    return load_pack(folder, source)


def default_packs(hippo_dir: Path) -> list[Pack]:
    """The packs a dream runs without `--pack`: those installed in the workspace, else core."""
    local = workspace_root(hippo_dir)
    names = (
        sorted(c.name for c in local.iterdir() if c.is_dir() and (c / "pack.toml").is_file())
        if local.is_dir()
        else []
    )
    return [find_pack(hippo_dir, n) for n in (names or [CORE])]


def list_packs(hippo_dir: Path) -> list[dict[str, object]]:
    """One row per pack; a pack that does not load is listed with its error."""
    rows: list[dict[str, object]] = []
    for name, (folder, source) in sorted(pack_dirs(hippo_dir).items()):
        try:
            pack = load_pack(folder, source)
        except HippoError as exc:
            rows.append({"name": name, "source": source, "path": str(folder), "error": exc.message})
            continue
        rows.append(
            {
                "name": name,
                "version": pack.manifest.version,
                "source": source,
                "path": str(folder),
                "passes": [p.name for p in pack.passes],
                "description": pack.manifest.description.strip(),
            }
        )
    return rows


def describe_pack(pack: Pack) -> dict[str, object]:
    """Everything `packs show` prints."""
    return {
        "name": pack.name,
        "version": pack.manifest.version,
        "source": pack.source,
        "path": str(pack.root),
        "description": pack.manifest.description.strip(),
        "passes": [
            {
                "name": p.name,
                "description": p.spec.description.strip(),
                "prompt": f"prompts/{p.spec.prompt}",
                "template": f"templates/{p.spec.template}" if p.spec.template else None,
                "reads": list(p.spec.reads),
                "turn_kinds": list(p.spec.turn_kinds),
                "ops": list(p.spec.ops),
                "budget_bytes": p.spec.budget_bytes,
                "max_proposals": p.spec.max_proposals,
                "reviewer": p.persona_name,
                "reviewer_sha256": p.persona_sha256,
                "heuristic": list(p.spec.heuristic),
            }
            for p in pack.passes
        ],
    }
