"""Reading memories out of other tools' files: what `git hippo import SOURCE` understands.

- a ChatGPT memory export: JSON (a list of strings, or of objects with `content`, `text`,
  `memory` or `value`, possibly under `memories` / `items` / `data`) or text (one per line);
- `CLAUDE.md` / `AGENTS.md`, skipping the block hippo_git itself maintains there;
- `.cursorrules`, and `.cursor/rules/*.mdc` (a file, or the folder: front matter is skipped);
- a conversation as JSON Lines (`.jsonl`): one turn an object with its text (`text`, `content`,
  ...), optionally `speaker`/`role`, its time (`time`, `timestamp`, `created`, `date`, ISO 8601)
  and the conversation it belongs to (`conversation`, `session`); a ChatGPT export's entries may
  carry a time the same way;
- any Markdown: each bullet or paragraph is one memory, tagged with the headings above it;
- any other text file: each paragraph (or line, for one-line items) is one memory.

Everything is parsed before anything is written: a malformed file raises with its name and
nothing lands.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path

from hippo_git.errors import HippoError

# The markers `agent install` writes around its block in CLAUDE.md / AGENTS.md (agents/spec.py).
HIPPO_BLOCK = re.compile(r"<!-- hippo-git:begin -->.*?<!-- hippo-git:end -->\n?", re.S)
_COMMENT = re.compile(r"<!--.*?-->", re.S)
_HEADING = re.compile(r"^(#{1,6})\s+(.+?)\s*#*\s*$")
_BULLET = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(?:\[[ xX]\]\s+)?")
_FENCE = re.compile(r"^\s*(```|~~~)")
MIN_CHARS = 8
MAX_ITEMS = 5000
_JSON_KEYS = ("content", "text", "memory", "value")


_TIME_KEYS = ("time", "timestamp", "created", "created_at", "date")
_ORIGIN_KEYS = ("conversation", "conversation_id", "session", "session_id")


@dataclass(frozen=True)
class Item:
    """One memory read from another tool's file, with its tags, date and where it came from."""

    text: str
    tags: tuple[str, ...]
    created: str = ""  # ISO 8601 UTC from the source itself, when it dates its items
    origin: str = ""  # the file or conversation the item came from
    seq: int = 0  # its place there


def placed(items: list[Item], origin: str) -> list[Item]:
    """The items numbered in order within their origin (`origin` for those naming none)."""
    counts: dict[str, int] = {}
    out = []
    for item in items:
        where = item.origin or origin
        counts[where] = counts.get(where, 0) + 1
        out.append(Item(item.text, item.tags, item.created, where, counts[where]))
    return out


def _time_of(path: Path, n: int, entry: dict[str, object]) -> str:
    from datetime import UTC, datetime

    value = next((entry[k] for k in _TIME_KEYS if entry.get(k) not in (None, "")), None)
    if value is None:
        return ""
    try:
        if isinstance(value, int | float):
            when = datetime.fromtimestamp(float(value), UTC)
        else:
            when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        raise HippoError(
            f"{path}: entry {n} has a time that is not ISO 8601: {str(value)[:40]!r}",
            hint="write times like 2023-05-08T13:56:00Z (or Unix seconds)",
        ) from None
    when = when if when.tzinfo else when.replace(tzinfo=UTC)
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _entry_item(path: Path, n: int, entry: object, tag: str) -> Item | None:
    value = entry
    created = origin = ""
    if isinstance(entry, dict):
        value = next((entry[k] for k in _JSON_KEYS if isinstance(entry.get(k), str)), None)
        created = _time_of(path, n, entry)
        origin = str(next((entry[k] for k in _ORIGIN_KEYS if entry.get(k) not in (None, "")), ""))
        speaker = entry.get("speaker") or entry.get("role")
        if isinstance(value, str) and isinstance(speaker, str) and speaker.strip():
            value = f"{speaker.strip()}: {value.strip()}"
    if not isinstance(value, str):
        raise HippoError(
            f"{path}: entry {n} holds no memory text",
            hint=f"each entry is a string or has one of {', '.join(_JSON_KEYS)}",
        )
    return Item(value.strip(), (tag,), created, origin) if value.strip() else None


def slug(text: str) -> str:
    words = re.findall(r"[a-z0-9]+", text.lower())
    return "-".join(words)[:40].strip("-")


def kind_of(path: Path) -> str:
    name = path.name.lower()
    if path.is_dir():
        return "cursor-rules"
    if name in ("claude.md", "agents.md"):
        return "agent-instructions"
    if name == ".cursorrules":
        return "cursorrules"
    if name.endswith(".mdc"):
        return "cursor-rules"
    if name.endswith(".json"):
        return "chatgpt-json"
    if name.endswith(".jsonl"):
        return "conversation"
    if name.endswith((".md", ".markdown")):
        return "markdown"
    return "text"


def _json_items(path: Path, text: str) -> list[Item]:
    try:
        data = json.loads(text)
    except ValueError as exc:
        raise HippoError(
            f"{path}: not valid JSON ({exc})", hint="export the memories again, or import a text file"
        ) from None
    if isinstance(data, dict):
        for key in ("memories", "items", "data", "results"):
            if isinstance(data.get(key), list):
                data = data[key]
                break
    if not isinstance(data, list):
        raise HippoError(
            f"{path}: expected a list of memories in the JSON", hint="a ChatGPT memory export is a list"
        )
    found = (_entry_item(path, n, entry, "chatgpt") for n, entry in enumerate(data))
    return [item for item in found if item is not None]


def _jsonl_items(path: Path, text: str) -> list[Item]:
    items: list[Item] = []
    for n, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except ValueError as exc:
            raise HippoError(
                f"{path}: line {n} is not valid JSON ({exc})", hint="one JSON object a line"
            ) from None
        item = _entry_item(path, n, entry, "conversation")
        if item is not None:
            items.append(item)
    return items


def _markdown_items(text: str, base_tags: tuple[str, ...], headings_as_tags: bool = True) -> list[Item]:
    items: list[Item] = []
    heads: list[tuple[int, str]] = []
    para: list[str] = []
    fenced = False

    def flush() -> None:
        if para:
            joined = " ".join(" ".join(para).split())
            if len(joined) >= MIN_CHARS:
                tags = base_tags + (tuple(t for _, t in heads if t) if headings_as_tags else ())
                items.append(Item(joined, tuple(dict.fromkeys(tags))))
            para.clear()

    for line in text.splitlines():
        if _FENCE.match(line):
            fenced = not fenced
            flush()
            continue
        if fenced:
            continue
        head = _HEADING.match(line)
        if head:
            flush()
            level = len(head.group(1))
            heads = [h for h in heads if h[0] < level] + [(level, slug(head.group(2)))]
            continue
        if not line.strip():
            flush()
            continue
        if _BULLET.match(line):
            flush()
            para.append(_BULLET.sub("", line, count=1))
        elif para and line.startswith((" ", "\t")):
            para.append(line.strip())
        else:
            para.append(line.strip())
    flush()
    return items


def _front_stripped(text: str) -> str:
    if text.startswith("---\n"):
        end = text.find("\n---", 4)
        if end >= 0:
            return text[text.find("\n", end + 1) + 1 :] if text.find("\n", end + 1) >= 0 else ""
    return text


def _text_items(text: str, tag: str) -> list[Item]:
    """Paragraphs; or lines, when no blank line separates anything (one memory per line)."""
    if "\n\n" not in text.strip():
        text = "\n\n".join(text.splitlines())
    return _markdown_items(text, (tag,), headings_as_tags=False)


def read_source(path: Path) -> tuple[str, list[Item]]:
    """(kind, items) of an import source; raises HippoError naming the file when it is unusable."""
    if not path.exists():
        raise HippoError(f"no such file: {path}", hint="give a file or the .cursor/rules folder")
    kind = kind_of(path)
    files = sorted(path.glob("*.mdc")) if path.is_dir() else [path]
    if path.is_dir() and not files:
        raise HippoError(f"{path}: no .mdc rule files in this folder")
    items: list[Item] = []
    for file in files:
        try:
            text = file.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            raise HippoError(f"{file}: not UTF-8 text", hint="import text, Markdown or JSON files") from None
        except OSError as exc:
            raise HippoError(f"cannot read {file}: {exc.strerror}") from None
        if "\0" in text:
            raise HippoError(f"{file}: binary data, not text")
        if kind == "chatgpt-json":
            items += _json_items(file, text)
        elif kind == "conversation":
            items += _jsonl_items(file, text)
        elif kind == "agent-instructions":
            items += _markdown_items(_COMMENT.sub("", HIPPO_BLOCK.sub("", text)), (slug(file.stem),))
        elif kind == "cursor-rules":
            items += _markdown_items(_front_stripped(text), ("cursor", slug(file.stem)))
        elif kind == "cursorrules":
            items += _text_items(text, "cursor")
        elif kind == "markdown":
            items += _markdown_items(_COMMENT.sub("", text), ())
        else:
            items += _text_items(text, "imported")
    items = placed(items, path.name)
    if len(items) > MAX_ITEMS:
        raise HippoError(
            f"{path}: {len(items)} items; the most one import takes is {MAX_ITEMS}", hint="split the file"
        )
    return kind, items
