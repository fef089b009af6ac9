"""`git hippo config set`: change one setting in `.hippo/hippo.toml` (or this machine's config.toml).

Edited with tomlkit, so the file keeps its comments, order and spacing: only the one value changes
(or is added to its table). The result is validated like any config before it is written, so a
wrong key or type is refused with the file untouched.
"""

from __future__ import annotations

import difflib
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hippo_git.config import (
    MACHINE_FILE,
    SCHEMA,
    WORKSPACE_FILE,
    find_worktree_root,
    hippo_home,
    parse_toml_text,
)
from hippo_git.errors import ConfigError, UsageError
from hippo_git.files import write_text_atomic


@dataclass(frozen=True)
class SettingChange:
    """One setting `config set` changed in a config file: its key, old value and new value."""

    path: Path
    key: str
    old: Any
    new: Any

    @property
    def changed(self) -> bool:
        return bool(self.old != self.new)

    def as_dict(self) -> dict[str, object]:
        return {"file": str(self.path), "key": self.key, "old": self.old, "new": self.new}


def _get(flat: dict[str, Any], key: str) -> Any:
    if key.startswith("transcripts.roots."):
        return dict(flat.get("transcripts.roots", {})).get(key.removeprefix("transcripts.roots."))
    return flat.get(key)


def parse_value(key: str, raw: str) -> Any:
    """VALUE as written on the command line: a TOML value (3, true, ["a", "b"], "x"), or else the
    bare text for a string setting."""
    known = {k.name: k for k in SCHEMA}.get(key)
    try:
        return tomllib.loads(f"v = {raw}")["v"]
    except tomllib.TOMLDecodeError:
        if known is not None and known.kind is not str and key != "ingest.workers":
            raise UsageError(
                f"{raw!r} is not a value for {key}", hint='write it as TOML, e.g. 3, ["a", "b"] or "text"'
            ) from None
        return raw


def set_setting(
    start: Path, key: str, raw: str, *, machine: bool = False, env: dict[str, str] | None = None
) -> SettingChange:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    where = "machine" if machine else "workspace"
    path = hippo_home(env) / MACHINE_FILE if machine else find_worktree_root(start) / WORKSPACE_FILE
    if not machine and not path.exists():
        raise ConfigError(f"{path} does not exist", hint="run `git hippo init` first")
    valid = [k.name for k in SCHEMA if where in k.where]
    if key not in valid and not (key.startswith("transcripts.roots.") and "transcripts.roots" in valid):
        close = difflib.get_close_matches(key, valid, n=1)
        raise ConfigError(
            f"unknown key {key!r} for {path.name}",
            hint=f"did you mean {close[0]!r}?" if close else "valid keys: " + ", ".join(valid),
        )
    text = path.read_text(encoding="utf-8") if path.exists() else ""
    old = _get(parse_toml_text(path, text, where), key)
    value = parse_value(key, raw)
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise ConfigError(f"{path}: {exc}", hint="fix the TOML syntax at that line") from None
    *tables, leaf = key.split(".")
    here: Any = doc
    for name in tables:
        if name not in here:
            here[name] = tomlkit.table()
        here = here[name]
        if not isinstance(here, dict):
            raise ConfigError(f"{path}: {name} is not a table", hint="fix the file by hand")
    here[leaf] = value
    new_text = tomlkit.dumps(doc)
    new = _get(parse_toml_text(path, new_text, where), key)  # refuses an unknown key or a wrong type
    if new_text != text:
        path.parent.mkdir(parents=True, exist_ok=True)
        write_text_atomic(path, new_text)
    return SettingChange(path, key, old, new)
