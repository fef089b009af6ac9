"""Editing other tools' files without clobbering them: JSON settings, marked Markdown blocks, TOML tables.

Every edit is parse → change → write atomically; a file that does not parse is refused, never
rewritten. JSON is written back in the file's own indentation and line endings, so a file in the
usual `JSON.stringify(x, null, 2)` style round-trips byte for byte. For anything else, the first
install keeps the file's original bytes under `$HIPPO_HOME/agent-backups/`; uninstall writes those
bytes back when nothing but our entries changed since, and deletes the file only when we created it.
"""

from __future__ import annotations

import json
import re
import tomllib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hippo_git.agents import jsonc
from hippo_git.agents.spec import BLOCK_BEGIN, BLOCK_END, workspace_key
from hippo_git.errors import HippoError
from hippo_git.files import write_text_atomic


@dataclass(frozen=True)
class Change:
    """What one install step did to one part (hooks, MCP entry, block, rule) of one harness file."""

    file: str  # relative to the workspace root
    part: str  # hooks | mcp | block | rule
    action: str  # created | updated | unchanged | removed | deleted | absent

    def as_dict(self) -> dict[str, str]:
        return {"file": self.file, "part": self.part, "action": self.action}


def refuse(path: Path, why: str) -> HippoError:
    return HippoError(
        f"{path}: {why}; hippo left the file untouched",
        hint="fix the file by hand (or move it away), then run the command again",
    )


def read_text(path: Path) -> str | None:
    try:
        data = path.read_bytes()
    except FileNotFoundError:
        return None
    except OSError as exc:
        raise refuse(path, f"cannot read it ({exc.strerror})") from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        raise refuse(path, "it is not UTF-8 text") from None


write_atomic = write_text_atomic


def remove_file(path: Path, root: Path) -> None:
    path.unlink(missing_ok=True)
    # Drop folders we leave empty (.cursor/rules, .codex, ...), never the workspace root or above.
    parent = path.parent
    while parent != root and root in parent.parents:
        try:
            parent.rmdir()
        except OSError:
            break
        parent = parent.parent


# --- backups of the original bytes ----------------------------------------------------------------


class Backups:
    """Original bytes of the files one workspace's install touched, kept on this machine only."""

    def __init__(self, home: Path, root: Path) -> None:
        self.root = root
        self.dir = home / "agent-backups" / workspace_key(str(root))

    def _path(self, rel: str) -> Path:
        return self.dir / (rel.replace("/", "%2F") + ".json")

    def remember(self, rel: str, original: str | None) -> None:
        """Keep the bytes from before our first change; later installs keep the first copy."""
        path = self._path(rel)
        if path.exists():
            return
        self.dir.mkdir(parents=True, exist_ok=True)
        write_atomic(path, json.dumps({"existed": original is not None, "text": original}))

    def original(self, rel: str) -> tuple[bool, str | None] | None:
        """(existed, text) from before our first change, or None when there is no backup."""
        try:
            data = json.loads(self._path(rel).read_text(encoding="utf-8"))
            return bool(data["existed"]), data["text"]
        except (OSError, ValueError, KeyError, TypeError):
            return None

    def forget(self, rel: str) -> None:
        self._path(rel).unlink(missing_ok=True)


# --- JSON -------------------------------------------------------------------------------------------


def allows_comments(path: Path) -> bool:
    """Gemini CLI reads its settings as JSON with comments; the other harnesses want plain JSON."""
    return path.parent.name == ".gemini"


def load_json(path: Path, text: str | None, *, comments: bool | None = None) -> dict[str, Any]:
    if text is None or not text.strip():
        return {}
    try:
        data = json.loads(text)
    except ValueError as exc:
        if not (allows_comments(path) if comments is None else comments):
            raise refuse(path, f"it is not valid JSON ({exc})") from None
        try:
            data = jsonc.loads(text)
        except ValueError as exc2:
            raise refuse(path, f"it is not valid JSON, even with comments ({exc2})") from None
    if not isinstance(data, dict):
        raise refuse(path, "its top level is not a JSON object")
    return data


def dump_json(data: dict[str, Any], like: str | None, path: Path | None = None) -> str:
    """Serialise in the indentation and line endings of `like` (the file's current text); a file
    with comments keeps them, with only the members that changed rewritten."""
    indent: str | int = 2
    if like:
        match = re.search(r"[{\[][ \t]*\r?\n([ \t]+)\S", like)
        if match:
            indent = match.group(1)
    if like and path is not None and allows_comments(path) and jsonc.has_comments(like):
        unit = indent

        def dump(value: Any, at: str) -> str:
            return json.dumps(value, indent=unit, ensure_ascii=False).replace("\n", "\n" + at)

        text = jsonc.splice(like.replace("\r\n", "\n"), data, dump, lambda why: refuse(path, why))
        return text.replace("\n", "\r\n") if "\r\n" in like else text
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    if like is None or like.endswith("\n") or not like.strip():
        text += "\n"
    if like and "\r\n" in like:
        text = text.replace("\n", "\r\n")
    return text


def is_list_of_dicts(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, dict) for v in value)


# --- marked Markdown blocks ----------------------------------------------------------------------


def _block_spans(path: Path, text: str) -> list[tuple[int, int]]:
    """(start, end) of each marked block, end just past the end marker's line break."""
    spans: list[tuple[int, int]] = []
    pos = 0
    while True:
        begin = text.find(BLOCK_BEGIN, pos)
        end = text.find(BLOCK_END, pos)
        if begin < 0 and end < 0:
            return spans
        if begin < 0 or end < begin or text.find(BLOCK_BEGIN, begin + 1, end) >= 0:
            raise refuse(path, f"its {BLOCK_BEGIN} / {BLOCK_END} markers do not pair up")
        stop = end + len(BLOCK_END)
        if text.startswith("\r\n", stop):
            stop += 2
        elif text.startswith("\n", stop):
            stop += 1
        spans.append((begin, stop))
        pos = stop


def has_block(path: Path, text: str | None) -> bool:
    return bool(text) and bool(_block_spans(path, text or ""))


def put_block(path: Path, text: str | None, block: str) -> str:
    """`text` with our block replaced in place, or appended after a blank line."""
    body = f"{BLOCK_BEGIN}\n{block.rstrip()}\n{BLOCK_END}\n"
    current = text or ""
    spans = _block_spans(path, current)
    if spans:
        start, stop = spans[0]
        rest = current[stop:]
        for s, e in reversed(spans[1:]):  # duplicates (e.g. from a merge) collapse into one block
            rest_start, rest_stop = s - stop, e - stop
            rest = rest[:rest_start] + rest[rest_stop:]
        return current[:start] + body + rest
    if not current.strip():
        return body
    sep = "\n" if current.endswith("\n") else "\n\n"
    return current + sep + body


def drop_block(path: Path, text: str) -> str:
    """`text` without our blocks, and without the blank line `put_block` added before one."""
    for start, stop in reversed(_block_spans(path, text)):
        head, tail = text[:start], text[stop:]
        if head.endswith("\n\n") and (not tail or tail.startswith("\n")):
            head = head[:-1]
        text = head + tail
    return text


# --- one TOML table -------------------------------------------------------------------------------
# Edited with tomlkit, which keeps the rest of the document as it was (comments, order, spacing).


def _without(data: dict[str, Any], table: tuple[str, str]) -> dict[str, Any]:
    outer = dict(data)
    inner = outer.get(table[0])
    if isinstance(inner, dict):
        inner = {k: v for k, v in inner.items() if k != table[1]}
        if inner:
            outer[table[0]] = inner
        else:
            outer.pop(table[0])
    return outer


def load_toml(path: Path, text: str | None) -> dict[str, Any]:
    try:
        return tomllib.loads(text or "")
    except tomllib.TOMLDecodeError as exc:
        raise refuse(path, f"it is not valid TOML ({exc})") from None


def toml_get(data: dict[str, Any], table: tuple[str, str]) -> Any:
    inner = data.get(table[0])
    return inner.get(table[1]) if isinstance(inner, dict) else None


def _parse_toml(path: Path, text: str) -> Any:
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    load_toml(path, text)  # tomllib's message names the line
    try:
        return tomlkit.parse(text)
    except TOMLKitError as exc:
        raise refuse(path, f"it is not valid TOML ({exc})") from None


def put_toml_table(path: Path, text: str | None, table: tuple[str, str], values: dict[str, Any]) -> str:
    """`text` with the table `[a.b]` set to `values` (in place, or added beside its siblings);
    every other byte kept. Unchanged text when it already holds exactly `values`."""
    import tomlkit

    current = text or ""
    before = load_toml(path, current)
    if toml_get(before, table) == values:
        return current
    doc = _parse_toml(path, current)
    outer = doc.get(table[0])
    if outer is None:
        outer = tomlkit.table(is_super_table=True)
        doc[table[0]] = outer
    elif not isinstance(outer, dict):
        raise refuse(path, f"{table[0]} is not a table")
    ours = tomlkit.table()
    for key, value in values.items():
        ours[key] = value
    ours.add(tomlkit.nl())
    outer[table[1]] = ours
    new = tomlkit.dumps(doc)
    header = f"[{table[0]}.{table[1]}]\n"
    at = new.find(header)
    if at > 0 and not new[:at].endswith("\n\n"):  # set our table apart, like the others
        new = new[:at] + ("\n" if new[:at].endswith("\n") else "\n\n") + new[at:]
    _check_toml(path, before, new, table)
    return new


def drop_toml_table(path: Path, text: str, table: tuple[str, str]) -> str:
    before = load_toml(path, text)
    if toml_get(before, table) is None:
        return text
    import tomlkit

    doc = _parse_toml(path, text)
    outer = doc[table[0]]
    del outer[table[1]]
    if not outer:
        del doc[table[0]]
    new = tomlkit.dumps(doc)
    _check_toml(path, before, new, table)
    return new


def _check_toml(path: Path, before: dict[str, Any], new: str, table: tuple[str, str]) -> None:
    """The edit touched our table and nothing else, or it is refused."""
    try:
        after = tomllib.loads(new)
    except tomllib.TOMLDecodeError:
        after = None
    if after is None or _without(after, table) != _without(before, table):
        raise refuse(path, f"[{'.'.join(table)}] is defined in a way hippo cannot edit safely")
