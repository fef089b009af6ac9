"""The settings there are: one schema (`SCHEMA`) drives validation (`config_files`), the
commented template that `init` writes (`workspace_template`), `config show` and the reference.

Standard library only and no `dataclasses`: the pre-commit hook validates hippo.toml against it.
"""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any  # (annotations only: `typing` would cost every commit a few ms)


class Key:
    """One setting: its dotted name, type, default and the comment written above it.

    A plain class, not a dataclass: `dataclasses` imports `inspect`, which the pre-commit hook
    (it reads this schema on every commit) cannot afford."""

    __slots__ = ("name", "kind", "default", "doc", "where")

    def __init__(
        self, name: str, kind: type, default: Any, doc: str, where: tuple[str, ...] = ("workspace",)
    ) -> None:
        self.name = name
        self.kind = kind
        self.default = default
        self.doc = doc
        self.where = where  # which files may set it: workspace, machine

    def __repr__(self) -> str:
        return f"Key({self.name!r})"


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
BY_NAME = {k.name: k for k in SCHEMA}


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
        lines.append(f"{leaf} = {toml_value(value)}")
    return "\n".join(lines) + "\n"


def toml_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f'"{k}" = {toml_value(v)}' for k, v in value.items()) + "}"
    raise TypeError(value)
