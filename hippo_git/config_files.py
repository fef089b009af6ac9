"""Reading and validating the config files against `config_schema.SCHEMA`, and the one setting
the pre-commit hook needs (`workspace_notes_dir`), read without building the whole `Config`.

No `pathlib` and no `dataclasses` here: every commit waits for the hook, which imports this.
Paths are strings or path-like objects.
"""

from __future__ import annotations

import os
import re

from hippo_git.config_schema import BY_NAME, SCHEMA, Key
from hippo_git.errors import ConfigError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any  # (annotations only: `typing` would cost every commit a few ms)

StrPath = str | os.PathLike[str]
WORKSPACE_PARTS = (".hippo", "hippo.toml")  # under the repository root


def _flatten(table: dict[str, Any], prefix: str = "") -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in table.items():
        name = f"{prefix}{key}"
        if isinstance(value, dict) and name not in BY_NAME:
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


def read_toml(path: StrPath, where: str) -> dict[str, Any]:
    """Parse and validate one config file; returns flat dotted keys. Missing file → {}."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return {}
    except (OSError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: cannot read: {exc}") from None
    return parse_toml_text(path, text, where)


def parse_toml_text(path: StrPath, text: str, where: str) -> dict[str, Any]:
    """Parse and validate the text of one config file (`path` names it in errors); flat dotted keys."""
    table = simple_toml(text)
    if table is None:
        import tomllib  # only for what `simple_toml` leaves to it: its import costs each commit ~4 ms

        try:
            table = tomllib.loads(text)
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"{path}: {exc}", hint="fix the TOML syntax at that line") from None
    flat = _flatten(table)
    for name, value in flat.items():
        key = BY_NAME.get(name)
        if key is None or where not in key.where:
            line = _line_of(text, name)
            valid = [k.name for k in SCHEMA if where in k.where]
            import difflib  # only for a misspelt key: the git hooks load config on every commit

            close = difflib.get_close_matches(name, valid, n=1)
            hint = f"did you mean {close[0]!r}?" if close else "valid keys: " + ", ".join(valid)
            raise ConfigError(f"{path}:{line}: unknown key {name!r}", hint=hint)
        flat[name] = _check_type(path, text, key, value)
    return flat


# The TOML a hippo.toml is made of (what `workspace_template` writes, and edits like it), read here
# without `tomllib`: one line a table header, a comment or `key = value`, where a value is a string
# without escapes, a decimal integer, a one-line list of such strings or `{}`.
_STR = r"(?:\"[^\"\\\x00-\x08\x0a-\x1f\x7f]*\"|'[^'\x00-\x08\x0a-\x1f\x7f]*')"
_LINE = re.compile(
    r"[ \t]*(?:\[[ \t]*(?P<table>[A-Za-z0-9_-]+)[ \t]*\]"
    r"|(?P<key>[A-Za-z0-9_-]+)[ \t]*=[ \t]*(?P<value>"
    rf"{_STR}|[+-]?(?:0|[1-9][0-9]{{0,17}})|\{{[ \t]*\}}"
    rf"|\[[ \t]*(?:{_STR}[ \t]*(?:,[ \t]*{_STR}[ \t]*)*(?:,[ \t]*)?)?\]))?"
    r"[ \t]*(?:#[^\x00-\x08\x0a-\x1f\x7f]*)?"
)
_ITEM = re.compile(_STR)
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")  # (CR too: CRLF files go to tomllib)


def simple_toml(text: str) -> dict[str, Any] | None:
    """`tomllib.loads(text)` for the plain TOML described above; None for anything else (then
    `tomllib` decides, errors included). A repeated key or table is left to it as well."""
    if _CONTROL.search(text):
        return None
    top: dict[str, Any] = {}
    table = top
    for line in text.split("\n"):
        m = _LINE.fullmatch(line)
        if m is None:
            return None
        name, key, value = m.group("table", "key", "value")
        if name is not None:
            if name in top:
                return None
            table = top[name] = {}
        elif key is not None:
            if key in table:
                return None
            table[key] = _simple_value(value)
    return top


def _simple_value(value: str) -> Any:
    if value[0] in "\"'":
        return value[1:-1]
    if value[0] == "[":
        return [item[1:-1] for item in _ITEM.findall(value)]
    return {} if value[0] == "{" else int(value)


def _check_type(path: StrPath, text: str, key: Key, value: Any) -> Any:
    """`value` when it fits `key`; otherwise `ConfigError` naming its line in `text` (found only then:
    each look compiles a regex)."""
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
        raise ConfigError(
            f"{path}:{_line_of(text, key.name)}: key {key.name!r} must be {expected}, not {value!r}"
        )
    return value


def checked_notes_dir(value: str, root: StrPath, origin: str) -> str:
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
    top = os.path.realpath(root)
    real = os.path.realpath(os.path.join(top, *parts))
    if not _inside(real, top) or real == top:
        raise ConfigError(f"{where} leads out of the repository through a symbolic link", hint=hint)
    if any(_inside(real, os.path.join(top, name)) for name in (".git", ".hippo")):
        raise ConfigError(f"{where} leads into .git/ or .hippo/ through a symbolic link", hint=hint)
    return "/".join(parts)


def _inside(path: str, folder: str) -> bool:
    """Whether `path` is `folder` or lies under it (both absolute and resolved; by whole parts)."""
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)


def workspace_notes_dir(root: StrPath) -> str:
    """The notes dir of the repository at `root`, as `config.load_config(root).notes_dir` gives it:
    hippo.toml read and validated whole (a bad file fails the same way), but no `Config` built and
    no machine file read (it cannot set notes_dir)."""
    top = os.path.realpath(root)
    path = os.path.join(top, *WORKSPACE_PARTS)
    flat = read_toml(path, "workspace")
    if "notes_dir" not in flat:
        return checked_notes_dir(BY_NAME["notes_dir"].default, top, "default")
    return checked_notes_dir(flat["notes_dir"], top, path)
