"""Configuration: the workspace's `.hippo/hippo.toml` and the machine's `$HIPPO_HOME/config.toml`.

Read with `tomllib` into frozen dataclasses: agent hooks read config on every prompt, so this
module stays light (no pydantic, no git libraries). One schema (`SCHEMA`) drives validation,
the commented template that `init` writes, and `config show`.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.errors import ConfigError, NotARepoError

WORKSPACE_FILE = Path(".hippo") / "hippo.toml"
WORKERS_ENV = "HIPPO_INGEST_WORKERS"
MACHINE_FILE = "config.toml"


@dataclass(frozen=True)
class Key:
    """One setting: its dotted name, type, default and the comment written above it."""

    name: str
    kind: type
    default: Any
    doc: str
    where: tuple[str, ...] = ("workspace",)  # which files may set it: workspace, machine


HARNESS_ROOT_DOC = "transcript folders to read, per harness (empty = the harness's default place)"

SCHEMA: tuple[Key, ...] = (
    Key("notes_dir", str, "notes", "folder of Markdown notes, relative to the repository root"),
    Key(
        "target_branch",
        str,
        "main",
        "branch whose notes dreaming updates (set by init to the current branch)",
    ),
    Key(
        "model_command",
        list,
        [],
        "argv of the model command; the prompt arrives on stdin. [] = auto: `claude -p` when found, "
        "else the built-in offline `git hippo model heuristic`",
        ("workspace", "machine"),
    ),
    Key(
        "context.entry", str, "index.md", "the entry note, relative to notes_dir; always first in the context"
    ),
    Key("context.required", list, [], "notes always in the context, relative to notes_dir"),
    Key(
        "context.budget_bytes",
        int,
        9000,
        "the most bytes the context block may have (Claude Code caps hook output at 10,000 characters)",
    ),
    Key("notes.max_bytes", int, 20000, "lint warns on notes larger than this"),
    Key(
        "dream.apply",
        str,
        "fast-forward",
        '"fast-forward" applies confirmed changes; "pull-request" leaves them on the proposals branch',
    ),
    Key("dream.chunk_hours", int, 24, "dreaming reads sessions in windows of this many hours"),
    Key("dream.max_model_calls", int, 200, "cost guard: the most model calls in one run"),
    Key("dream.max_bytes", int, 4_000_000, "cost guard: the most prompt bytes sent to the model in one run"),
    Key(
        "dream.model_timeout_s",
        int,
        300,
        "a model run is killed after this many seconds",
        ("workspace", "machine"),
    ),
    Key(
        "dream.stale_days",
        int,
        7,
        "doctor warns when no dream succeeded for this many days while sessions exist",
    ),
    Key(
        "packs.registry",
        str,
        "",
        "where `git hippo packs add NAME` finds NAME: a registry index file, a folder holding "
        "hippo-registry.json, or a git URL",
        ("workspace", "machine"),
    ),
    Key("transcripts.roots", dict, {}, HARNESS_ROOT_DOC, ("workspace", "machine")),
    Key(
        "ci.install",
        str,
        "",
        "pip requirement the CI workflow installs ('' = the hippo_git this machine runs: its git "
        "commit, wheel or index version)",
    ),
    Key(
        "ingest.workers",
        int,
        "auto",
        'processes that parse and redact while ingest writes (and compute the rollup): "auto" = '
        "one per CPU when there is much to read, 0 = none (also $HIPPO_INGEST_WORKERS)",
        ("machine",),
    ),
    Key(
        "capture.notes_debounce_ms",
        int,
        2000,
        "the watcher re-reads changed notes this long after the last change",
        ("workspace", "machine"),
    ),
    Key(
        "capture.transcripts_debounce_ms",
        int,
        60000,
        "the watcher ingests a changed transcript this long after its last change",
        ("workspace", "machine"),
    ),
    Key(
        "capture.scan_seconds",
        int,
        300,
        "the watcher's reconciling scan catches what file events missed, this often",
        ("workspace", "machine"),
    ),
    Key(
        "capture.markdown_dirs",
        list,
        [],
        "extra Markdown folders, relative to the repository root: watched like notes_dir and found by "
        "`git hippo search` (they are not notes: never linted, linked or dreamt over)",
    ),
    Key("capture.turns", int, 5, "an agent session is captured after this many user turns"),
    Key("capture.minutes", int, 20, "... or after this many minutes (and always at compaction and its end)"),
    Key(
        "capture.lock_timeout_s",
        int,
        30,
        "a capture waits this long for the index lock, then leaves its write in the outbox",
        ("workspace", "machine"),
    ),
    Key(
        "semantic.model",
        str,
        "all-MiniLM-L6-v2",
        "embedding model of the [semantic] extra: a name (downloaded once into $HIPPO_HOME/models) or a "
        'folder; "off" = lexical search only even when the extra is installed',
        ("workspace", "machine"),
    ),
)
_BY_NAME = {k.name: k for k in SCHEMA}


@dataclass(frozen=True)
class ContextSettings:
    entry: str = "index.md"
    required: tuple[str, ...] = ()
    budget_bytes: int = 9000


@dataclass(frozen=True)
class DreamSettings:
    apply: str = "fast-forward"
    chunk_hours: int = 24
    max_model_calls: int = 200
    max_bytes: int = 4_000_000
    model_timeout_s: int = 300
    stale_days: int = 7


@dataclass(frozen=True)
class CaptureSettings:
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


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name not in _BY_NAME:
            out.update(_flatten(value, name + "."))
        else:
            out[name] = value
    return out


def _line_of(text: str, dotted: str) -> int:
    """Best-effort line number of a key in TOML text (for error messages)."""
    leaf = dotted.rsplit(".", 1)[-1]
    pattern = re.compile(rf"^\s*[\"']?{re.escape(leaf)}[\"']?\s*=", re.M)
    match = pattern.search(text)
    if match is None:
        match = re.compile(rf"^\s*\[{re.escape(dotted)}\]", re.M).search(text)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def read_toml(path: Path, where: str) -> dict[str, Any]:
    """Parse and validate one config file; returns flat dotted keys. Missing file → {}."""
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return parse_toml_text(path, text, where)


def parse_toml_text(path: Path, text: str, where: str) -> dict[str, Any]:
    """Parse and validate the text of one config file (`path` names it in errors); flat dotted keys."""
    import tomllib  # here, not at the top: a search outside a configured repository never parses TOML

    try:
        table = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path}: {exc}", hint="fix the TOML syntax at that line") from None
    flat = _flatten(table)
    for name, value in flat.items():
        line = _line_of(text, name)
        key = _BY_NAME.get(name)
        if key is None or where not in key.where:
            valid = [k.name for k in SCHEMA if where in k.where]
            import difflib  # only for a misspelt key: the git hooks load config on every commit

            close = difflib.get_close_matches(name, valid, n=1)
            hint = f"did you mean {close[0]!r}?" if close else "valid keys: " + ", ".join(valid)
            raise ConfigError(f"{path}:{line}: unknown key {name!r}", hint=hint)
        flat[name] = _check_type(path, line, key, value)
    return flat


def _check_type(path: Path, line: int, key: Key, value: Any) -> Any:
    ok = isinstance(value, key.kind) and not (key.kind is int and isinstance(value, bool))
    if ok and key.kind is list:
        ok = all(isinstance(v, str) for v in value)
    if ok and key.kind is dict:
        ok = all(isinstance(v, str | list) for v in value.values())
    if key.name == "ingest.workers":
        ok = value == "auto" or (ok and value >= 0)
    elif ok and key.kind is int:
        ok = value > 0
    if ok and key.name == "dream.apply":
        ok = value in ("fast-forward", "pull-request")
    if not ok:
        expected = {
            str: "a string",
            int: "a positive whole number",
            list: "a list of strings",
            dict: "a table",
        }[key.kind]
        if key.name == "dream.apply":
            expected = '"fast-forward" or "pull-request"'
        if key.name == "ingest.workers":
            expected = '"auto" or a whole number (0 = none)'
        raise ConfigError(f"{path}:{line}: key {key.name!r} must be {expected}, not {value!r}")
    return value


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


def checked_notes_dir(value: str, root: Path, origin: str) -> str:
    """`value` as a notes dir inside the work tree (not in `.git/` or `.hippo/`, not through a
    symbolic link out of it); `ConfigError` naming the key otherwise. A committed hippo.toml is
    input from whoever pushed it: context, hooks and MCP serve what lies under notes_dir."""
    where = f"{origin}: notes_dir = {value!r}"
    hint = 'set notes_dir to a folder inside the repository, e.g. "notes"'
    if value.startswith(("/", "~", "\\")) or re.match(r"^[A-Za-z]:", value):
        raise ConfigError(f"{where} is not a relative path", hint=hint)
    parts = [p for p in value.strip("/").split("/") if p]
    if not parts:
        return "notes"
    if "\\" in value or any(p in (".", "..") for p in parts):
        raise ConfigError(f"{where} leaves or names the repository root ('..', '.' or '\\')", hint=hint)
    if any(p in (".git", ".hippo") for p in parts):
        raise ConfigError(f"{where} is inside .git/ or .hippo/", hint=hint)
    top = root.resolve()
    real = (root / "/".join(parts)).resolve()
    if not real.is_relative_to(top) or real == top:
        raise ConfigError(f"{where} leads out of the repository through a symbolic link", hint=hint)
    if any(real.is_relative_to(top / name) for name in (".git", ".hippo")):
        raise ConfigError(f"{where} leads into .git/ or .hippo/ through a symbolic link", hint=hint)
    return "/".join(parts)


def workspace_template(target_branch: str, notes_dir: str = "notes") -> str:
    """The commented hippo.toml that `init` writes."""
    from hippo_git import __version__

    lines = [
        f"# hippo_git workspace settings (written by hippo_git {__version__}). Shared with the team: commit it.",
        "# Machine-only settings (transcript folders, a personal model command) go in",
        "# $HIPPO_HOME/config.toml instead. `git hippo config show` prints what is in effect.",
        "",
    ]
    section = ""
    for key in SCHEMA:
        if "workspace" not in key.where:
            continue
        table, _, leaf = key.name.rpartition(".")
        if table != section:
            lines += ["", f"[{table}]"]
            section = table
        value = {"target_branch": target_branch, "notes_dir": notes_dir}.get(key.name, key.default)
        lines.append(f"# {key.doc}")
        lines.append(f"{leaf} = {_toml_value(value)}")
    return "\n".join(lines) + "\n"


def _toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f'"{k}" = {_toml_value(v)}' for k, v in value.items()) + "}"
    raise TypeError(value)
