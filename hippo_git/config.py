"""Configuration: the workspace's `.hippo/hippo.toml` and the machine's `$HIPPO_HOME/config.toml`.

Read with `tomllib` into frozen dataclasses: agent hooks read config on every prompt, so this
module stays light (no pydantic, no git libraries). The settings there are and their template
live in `config_schema`; reading and validating a file, in `config_files` (which the pre-commit
hook uses alone). Their names are re-exported here.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.config_files import checked_notes_dir, parse_toml_text, read_toml
from hippo_git.config_schema import HARNESS_ROOT_DOC, SCHEMA, Key, workspace_template
from hippo_git.config_schema import toml_value as _toml_value
from hippo_git.errors import ConfigError, NotARepoError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any

__all__ = [
    "HARNESS_ROOT_DOC",
    "MACHINE_FILE",
    "SCHEMA",
    "WORKERS_ENV",
    "WORKSPACE_FILE",
    "CaptureSettings",
    "Config",
    "ContextSettings",
    "DreamSettings",
    "Key",
    "_toml_value",
    "checked_notes_dir",
    "default_transcript_roots",
    "find_worktree_root",
    "hippo_home",
    "load_config",
    "machine_config",
    "parse_toml_text",
    "read_toml",
    "workspace_template",
]

WORKSPACE_FILE = Path(".hippo") / "hippo.toml"
WORKERS_ENV = "HIPPO_INGEST_WORKERS"
MACHINE_FILE = "config.toml"


@dataclass(frozen=True)
class ContextSettings:
    """The `[context]` table: what the session-start block holds and how big it may be."""

    entry: str = "index.md"
    required: tuple[str, ...] = ()
    budget_bytes: int = 9000


@dataclass(frozen=True)
class DreamSettings:
    """The `[dream]` table: how a dream reads sessions, calls the model and applies."""

    apply: str = "fast-forward"
    chunk_hours: int = 24
    max_model_calls: int = 200
    max_bytes: int = 4_000_000
    model_timeout_s: int = 300
    stale_days: int = 7


@dataclass(frozen=True)
class CaptureSettings:
    """The `[capture]` table: how `git hippo watch` waits before it ingests or dreams."""

    notes_debounce_ms: int = 2000
    transcripts_debounce_ms: int = 60000
    scan_seconds: int = 300
    markdown_dirs: tuple[str, ...] = ()
    turns: int = 5
    minutes: int = 20
    lock_timeout_s: int = 30


@dataclass(frozen=True)
class Config:
    """The effective configuration of one workspace on this machine."""

    root: Path  # the repository's working tree root
    home: Path  # $HIPPO_HOME
    notes_dir: str = "notes"
    target_branch: str = "main"
    model_command: tuple[str, ...] = ()
    notes_max_bytes: int = 20000
    context: ContextSettings = field(default_factory=ContextSettings)
    dream: DreamSettings = field(default_factory=DreamSettings)
    capture: CaptureSettings = field(default_factory=CaptureSettings)
    transcript_roots: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ci_install: str = ""
    ingest_workers: int | None = None  # None: decide by the machine and the amount to read
    packs_registry: str = ""
    semantic_model: str = "all-MiniLM-L6-v2"  # "off": no embeddings
    sources: dict[str, str] = field(default_factory=dict)  # dotted key → where its value came from

    @property
    def notes_path(self) -> Path:
        return self.root / self.notes_dir

    @property
    def hippo_dir(self) -> Path:
        return self.root / ".hippo"

    @property
    def index_path(self) -> Path:
        return self.home / "index.sqlite"

    def effective(self) -> list[dict[str, object]]:
        """Every setting with its value and where the value came from (for `config show`)."""
        values: dict[str, object] = {
            "notes_dir": self.notes_dir,
            "target_branch": self.target_branch,
            "model_command": list(self.model_command),
            "context.entry": self.context.entry,
            "context.required": list(self.context.required),
            "context.budget_bytes": self.context.budget_bytes,
            "notes.max_bytes": self.notes_max_bytes,
            "ingest.workers": "auto" if self.ingest_workers is None else self.ingest_workers,
            "packs.registry": self.packs_registry,
            "ci.install": self.ci_install,
            "semantic.model": self.semantic_model,
        }
        for name in ("apply", "chunk_hours", "max_model_calls", "max_bytes", "model_timeout_s", "stale_days"):
            values[f"dream.{name}"] = getattr(self.dream, name)
        for setting in SCHEMA:
            if setting.name.startswith("capture."):
                value = getattr(self.capture, setting.name.removeprefix("capture."))
                values[setting.name] = list(value) if isinstance(value, tuple) else value
        rows = [
            {"key": k.name, "value": values[k.name], "source": self.sources.get(k.name, "default")}
            for k in SCHEMA
            if k.name in values
        ]
        for harness, paths in sorted(self.transcript_roots.items()):
            key = f"transcripts.roots.{harness}"
            rows.append({"key": key, "value": list(paths), "source": self.sources.get(key, "default")})
        return rows


# --- places -------------------------------------------------------------------------------------


def hippo_home(env: dict[str, str] | None = None) -> Path:
    env = dict(os.environ) if env is None else env
    if env.get("HIPPO_HOME"):
        return Path(env["HIPPO_HOME"]).expanduser()
    data = env.get("XDG_DATA_HOME") or str(Path(env.get("HOME", str(Path.home()))) / ".local" / "share")
    return Path(data).expanduser() / "hippo-git"


def find_worktree_root(start: Path) -> Path:
    """The nearest folder at or above `start` holding `.git` (a dir, or a file in linked worktrees)."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / ".git").exists():
            return folder
    raise NotARepoError(f"not inside a git working tree: {start}", hint="run this inside a git repository")


def default_transcript_roots(
    workspace: Path | None, env: dict[str, str] | None = None
) -> dict[str, tuple[str, ...]]:
    """Where each harness keeps transcripts by default on this machine."""
    env = dict(os.environ) if env is None else env
    home = Path(env.get("HOME", str(Path.home())))
    claude = Path(env["CLAUDE_CONFIG_DIR"]) if env.get("CLAUDE_CONFIG_DIR") else home / ".claude"
    codex = Path(env["CODEX_HOME"]) if env.get("CODEX_HOME") else home / ".codex"
    data = Path(env["XDG_DATA_HOME"]) if env.get("XDG_DATA_HOME") else home / ".local" / "share"
    roots: dict[str, tuple[str, ...]] = {
        "claude-code": (str(claude / "projects"),),
        "codex": (str(codex / "sessions"), str(codex / "archived_sessions")),
        "opencode": (str(data / "opencode"),),
        "gemini-cli": (str(home / ".gemini" / "tmp"),),
        "cursor": (str(home / ".cursor"),),
        "deepseek-harness": (str(Path(env.get("DSH_HOME", str(home / ".dsh"))) / "sessions"),),
        "muse-code": (str(data / "muse" / "sessions"),),
        "command-code": (str(home / ".commandcode" / "projects"),),
        "aider": (str(workspace),) if workspace else (),
    }
    return roots


# --- reading and validating ---------------------------------------------------------------------


def load_config(start: Path | None = None, env: dict[str, str] | None = None) -> Config:
    """The effective configuration for the workspace containing `start` (default: cwd)."""
    env = dict(os.environ) if env is None else env
    root = find_worktree_root(start or Path.cwd())
    return _assemble(root, read_toml(root / WORKSPACE_FILE, "workspace"), env, workspace_root=root)


def machine_config(start: Path | None = None, env: dict[str, str] | None = None) -> Config:
    """This machine's configuration alone (defaults, `$HIPPO_HOME/config.toml`, environment), for the
    machine-wide views run outside any repository; `root` is just the folder it was asked from."""
    env = dict(os.environ) if env is None else env
    return _assemble((start or Path.cwd()).resolve(), {}, env, workspace_root=None)


def _assemble(
    root: Path, workspace: dict[str, Any], env: dict[str, str], *, workspace_root: Path | None
) -> Config:
    home = hippo_home(env)
    machine = read_toml(home / MACHINE_FILE, "machine")
    values: dict[str, Any] = {}
    sources: dict[str, str] = {}
    for key in SCHEMA:
        values[key.name], sources[key.name] = key.default, "default"
        if key.name in workspace:
            values[key.name], sources[key.name] = workspace[key.name], str(root / WORKSPACE_FILE)
        if key.name in machine and key.name != "transcripts.roots":
            values[key.name], sources[key.name] = machine[key.name], str(home / MACHINE_FILE)
    if env.get("HIPPO_MODEL_COMMAND"):
        import shlex

        values["model_command"] = shlex.split(env["HIPPO_MODEL_COMMAND"])
        sources["model_command"] = "environment HIPPO_MODEL_COMMAND"
    workers = values["ingest.workers"]
    if env.get(WORKERS_ENV, "").strip():
        raw = env[WORKERS_ENV].strip()
        if raw != "auto" and not raw.isdigit():
            raise ConfigError(
                f"{WORKERS_ENV}={raw!r} is not a worker count", hint='set it to "auto" or a number (0 = none)'
            )
        workers, sources["ingest.workers"] = raw if raw == "auto" else int(raw), f"environment {WORKERS_ENV}"
    roots = default_transcript_roots(workspace_root, env)
    for origin, table in ((root / WORKSPACE_FILE, workspace), (home / MACHINE_FILE, machine)):
        for harness, paths in dict(table.get("transcripts.roots", {})).items():
            listed = [paths] if isinstance(paths, str) else list(paths)
            roots[harness] = tuple(
                str(
                    (root / os.path.expanduser(p)) if origin.parent.name == ".hippo" else Path(p).expanduser()
                )
                for p in listed
            )
            sources[f"transcripts.roots.{harness}"] = str(origin)
    return Config(
        root=root,
        home=home,
        notes_dir=checked_notes_dir(values["notes_dir"], root, sources["notes_dir"]),
        target_branch=values["target_branch"],
        model_command=tuple(values["model_command"]),
        notes_max_bytes=values["notes.max_bytes"],
        context=ContextSettings(
            entry=values["context.entry"],
            required=tuple(values["context.required"]),
            budget_bytes=values["context.budget_bytes"],
        ),
        dream=DreamSettings(
            apply=values["dream.apply"],
            chunk_hours=values["dream.chunk_hours"],
            max_model_calls=values["dream.max_model_calls"],
            max_bytes=values["dream.max_bytes"],
            model_timeout_s=values["dream.model_timeout_s"],
            stale_days=values["dream.stale_days"],
        ),
        capture=CaptureSettings(
            notes_debounce_ms=values["capture.notes_debounce_ms"],
            transcripts_debounce_ms=values["capture.transcripts_debounce_ms"],
            scan_seconds=values["capture.scan_seconds"],
            markdown_dirs=tuple(values["capture.markdown_dirs"]),
            turns=values["capture.turns"],
            minutes=values["capture.minutes"],
            lock_timeout_s=values["capture.lock_timeout_s"],
        ),
        transcript_roots=roots,
        ci_install=values["ci.install"],
        ingest_workers=None if workers == "auto" else workers,
        packs_registry=values["packs.registry"],
        semantic_model=values["semantic.model"],
        sources=sources,
    )
