"""Note files: front matter, titles and `[[links]]`, parsed from text.

Works on text (not only files) so the pre-commit hook can check staged blobs. Front matter is
read by a small parser for the common flat `key: value` case; anything richer (lists, quotes,
nesting) goes to PyYAML, imported only then, because this module is on the agent-hook path.
"""

from __future__ import annotations

import re

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any, NamedTuple
else:  # `typing` costs every commit and agent hook a few ms
    from hippo_git.notes.named_tuple import NamedTuple


# `[[target]]`, `[[path/target]]`, `[[target|label]]`, `[[target#heading]]`
_LINK = re.compile(r"\[\[([^\[\]\n|]+?)(?:\|([^\[\]\n]*))?\]\]")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_INLINE_CODE = re.compile(r"(`+)(?:.+?)\1")
_H1 = re.compile(r"^#[ \t]+(.+?)[ \t#]*$", re.M)
_SIMPLE_KEY = re.compile(r"^([A-Za-z_][\w\-]*):(?:[ \t]+(.*?))?[ \t]*$")
# A value the fast parser may take as a plain string: YAML would read it the same way.
_YAML_SPECIAL_START = tuple("[]{}\"'|>&*!%@`#,?-")
_YAML_SCALAR_WORDS = {"true", "false", "yes", "no", "on", "off", "null", "~"}


# Values are NamedTuples rather than frozen dataclasses: this module is on the agent-hook path,
# where each dataclass costs ~0.4 ms to define, and lint builds tens of thousands of links.
class Link(NamedTuple):
    target: str  # what is inside [[...]], without label or #heading, stripped
    label: str | None
    line: int  # 1-based line in the file


class Note(NamedTuple):
    path: str  # repo-relative POSIX path, e.g. "notes/design/storage.md" (what agents cite)
    name: str  # path relative to notes_dir, e.g. "design/storage.md"
    title: str  # front matter title, else the first `# heading`, else the file stem
    front: dict[str, Any]
    front_error: str | None
    links: tuple[Link, ...]
    size: int  # bytes
    body: str = ""  # the text after the front matter ("" when loaded from the notes index)

    @property
    def stem(self) -> str:
        return self.name.rsplit("/", 1)[-1].removesuffix(".md")

    @property
    def tags(self) -> list[str]:
        tags = self.front.get("tags")
        if isinstance(tags, str):
            return [t for t in re.split(r"[,\s]+", tags) if t]
        if isinstance(tags, list):
            return [str(t) for t in tags]
        return []


def name_in_notes(path: str, notes_dir: str) -> str:
    prefix = notes_dir.strip("/") + "/" if notes_dir.strip("/") else ""
    return path[len(prefix) :] if prefix and path.startswith(prefix) else path


def split_front_matter(text: str) -> tuple[str | None, str, int, str | None]:
    """(front matter text or None, body, line where the body starts (0-based), error)."""
    if not (text.startswith("---\n") or text.startswith("---\r\n")):
        return None, text, 0, None
    lines = text.splitlines(keepends=True)
    for i in range(1, len(lines)):
        if lines[i].rstrip("\r\n") in ("---", "..."):
            return "".join(lines[1:i]), "".join(lines[i + 1 :]), i + 1, None
    return None, text, 0, "front matter starts with --- but is never closed by a --- line"


def _plain_scalar(value: str) -> bool:
    """A value YAML reads as exactly this string."""
    return not (
        value.startswith(_YAML_SPECIAL_START)
        or ": " in value
        or " #" in value
        or value.endswith(":")
        or value.lower() in _YAML_SCALAR_WORDS
        or value[0].isdigit()
        or value.startswith(("+", "."))
    )


def _fast_front(block: str) -> dict[str, Any] | None:
    """Flat `key: plain value` front matter, or None when YAML is needed to read it right."""
    data: dict[str, Any] = {}
    for raw in block.splitlines():
        line = raw.rstrip()
        if not line or line.lstrip().startswith("#"):
            continue
        match = _SIMPLE_KEY.match(line)
        if match is None:
            return None
        key, value = match.group(1), match.group(2)
        if key in data:
            return None
        if value is None or value == "":
            data[key] = None
            continue
        if (
            value.startswith("[")
            and value.endswith("]")
            and "[" not in value[1:-1]
            and "]" not in value[1:-1]
        ):
            items = [item.strip() for item in value[1:-1].split(",")]
            if items == [""]:
                data[key] = []
                continue
            if not all(item and _plain_scalar(item) and "," not in item for item in items):
                return None
            data[key] = items
            continue
        if not _plain_scalar(value):
            return None
        data[key] = value
    return data


def _plain(value: Any) -> Any:
    """YAML values as JSON-safe values (dates become ISO strings)."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, str | int | float | bool):
        return value
    iso = getattr(value, "isoformat", None)
    return iso() if callable(iso) else str(value)


def parse_front_matter(block: str) -> tuple[dict[str, Any], str | None]:
    """(mapping, error). Errors name the line, relative to the file (front matter starts at line 2)."""
    fast = _fast_front(block)
    if fast is not None:
        return fast, None
    import yaml

    try:
        data = yaml.safe_load(block)
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f"line {mark.line + 2}: " if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        return {}, f"front matter is not valid YAML: {where}{problem}"
    if data is None:
        return {}, None
    if not isinstance(data, dict):
        return {}, f"front matter must be a mapping of keys to values, not {type(data).__name__}"
    plain = _plain(data)
    assert isinstance(plain, dict)
    title = plain.get("title")
    if title is not None and not isinstance(title, str | int | float):
        return plain, "front matter `title` must be text"
    return plain, None


def _strip_code(body: str) -> list[str]:
    """Body lines with fenced code blocks and inline code blanked, so `[[x]]` in code is no link."""
    out: list[str] = []
    fence: str | None = None
    for line in body.split("\n"):
        match = _FENCE.match(line)
        if fence is not None:
            if match and match.group(1)[0] == fence[0] and len(match.group(1)) >= len(fence):
                fence = None
            out.append("")
            continue
        if match:
            fence = match.group(1)
            out.append("")
            continue
        out.append(_INLINE_CODE.sub(lambda m: " " * len(m.group(0)), line) if "`" in line else line)
    return out


def extract_links(body: str, first_line: int = 1) -> tuple[Link, ...]:
    """Every `[[link]]` outside code, with its 1-based line (body starts at `first_line`)."""
    if "[[" not in body:
        return ()
    links: list[Link] = []
    for offset, line in enumerate(_strip_code(body)):
        if "[[" not in line:
            continue
        for match in _LINK.finditer(line):
            target = match.group(1).split("#", 1)[0].strip()
            if not target:
                continue  # [[#heading]] points inside the same note
            label = match.group(2).strip() if match.group(2) is not None else None
            links.append(Link(target=target, label=label, line=first_line + offset))
    return tuple(links)


def parse_note_text(text: str, path: str, notes_dir: str = "") -> Note:
    """Parse one note. `path` is repo-relative; `notes_dir` lets `[[path/note]]` links resolve."""
    path = path.replace("\\", "/")
    block, body, body_line, error = split_front_matter(text)
    front: dict[str, Any] = {}
    if block is not None:
        front, error = parse_front_matter(block)
    name = name_in_notes(path, notes_dir)
    title = front.get("title")
    if not isinstance(title, str | int | float) or not str(title).strip():
        heading = _H1.search(body)
        title = heading.group(1).strip() if heading else name.rsplit("/", 1)[-1].removesuffix(".md")
    return Note(
        path=path,
        name=name,
        title=str(title).strip(),
        front=front,
        front_error=error,
        links=extract_links(body, body_line + 1),
        size=len(text.encode("utf-8")),
        body=body,
    )


def link_targets(text: str) -> list[str]:
    """The link targets named in free text (a handoff), in order, without duplicates."""
    seen: dict[str, None] = {}
    for link in extract_links(text):
        seen.setdefault(link.target, None)
    return list(seen)
