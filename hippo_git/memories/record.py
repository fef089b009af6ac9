"""The memory note: its front matter, its id, and what makes two memories the same.

A memory file is `notes_dir/memories/<id>.md`:

    ---
    id: m-3f9a0c1d2e
    tags: [build, ci]
    confidence: observed
    created: 2026-01-02T03:04:05Z
    half_life: 7
    pinned: false
    source: person
    origin: chat.jsonl       # imported ones: where from, and the place there
    seq: 12
    ---
    The text, redacted.

The id is a hash of the normalised text, so the same text remembered twice (by two people, on
two branches) lands on the same file instead of two.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any, NamedTuple

from hippo_git.errors import HippoError

MEMORIES_FOLDER = "memories"
TIERS = ("verified", "observed", "inferred")
DEFAULT_TIER = "observed"
DEFAULT_HALF_LIFE_DAYS = 7.0
ERROR_HALF_LIFE_FACTOR = 2.0
MAX_TEXT_CHARS = 4000
# Two memories whose word sets overlap this much say the same thing (Jaccard of word sets).
NEAR_DUPLICATE = 0.8
_WORD = re.compile(r"[^\W_]+")
# Words that turn a statement around; "t" is what is left of "don't", "isn't", "can't".
NEGATIONS = frozenset(["not", "never", "no", "don", "dont", "avoid", "stop", "without", "cannot", "t"])
_ID = re.compile(r"^m-[0-9a-f]{10}$")
_TAG = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._/-]{0,39}$")


class Memory(NamedTuple):
    id: str
    text: str
    tags: tuple[str, ...] = ()
    confidence: str = DEFAULT_TIER
    created: str = ""  # ISO 8601, UTC
    half_life: float = DEFAULT_HALF_LIFE_DAYS  # days; already doubled for errors
    pinned: bool = False
    source: str = "person"  # person | agent | import:<kind> | capture | learn | watch-cmd
    kind: str = "note"  # note | error | forgotten (a tombstone an agent's forget left)
    path: str = ""  # repo-relative path of the file ("" before it is written)
    # Where an imported memory came from (a file or conversation id) and its place there: recall
    # ranks a memory with its neighbours of the same origin (seq ± 1, ± 2).
    origin: str = ""
    seq: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "text": self.text,
            "tags": list(self.tags),
            "confidence": self.confidence,
            "created": self.created,
            "half_life": self.half_life,
            "pinned": self.pinned,
            "source": self.source,
            "kind": self.kind,
            "path": self.path,
            "origin": self.origin,
            "seq": self.seq,
        }


def now_iso(now: datetime | None = None) -> str:
    return (now or datetime.now(UTC)).astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def normalise(text: str) -> str:
    """Lower-case words joined by single spaces: what two copies of one memory share."""
    return " ".join(_WORD.findall(text.lower()))


def words(text: str) -> frozenset[str]:
    return frozenset(_WORD.findall(text.lower()))


def similarity(a: str, b: str) -> float:
    """Jaccard similarity of the two texts' word sets (1.0 = the same words)."""
    wa, wb = words(a), words(b)
    if not wa or not wb:
        return 0.0
    return len(wa & wb) / len(wa | wb)


def negated(text: str) -> bool:
    return bool(words(text) & NEGATIONS)


def negates(a: str, b: str) -> bool:
    """One text holds a negation the other lacks."""
    return negated(a) != negated(b)


def memory_id(text: str) -> str:
    import hashlib  # not on the recall path

    return "m-" + hashlib.sha256(normalise(text).encode("utf-8")).hexdigest()[:10]


def is_memory_id(value: str) -> bool:
    return bool(_ID.match(value))


def check_text(text: str) -> str:
    """The text stripped; refuses empty and overlong texts with a one-line error."""
    clean = text.strip()
    if not normalise(clean):
        raise HippoError(
            "the memory text is empty", hint="give the text to remember, e.g. `git hippo remember 'use uv'`"
        )
    if len(clean) > MAX_TEXT_CHARS:
        raise HippoError(
            f"the memory text has {len(clean)} characters; the most is {MAX_TEXT_CHARS}",
            hint="remember the lesson, not the whole log; or write a note",
        )
    return clean


def check_tags(tags: tuple[str, ...] | list[str]) -> tuple[str, ...]:
    out: dict[str, None] = {}
    for tag in tags:
        tag = tag.strip().lstrip("#")
        if not _TAG.match(tag):
            raise HippoError(
                f"not a usable tag: {tag!r}",
                hint="tags are letters, digits, '.', '_', '/' and '-' (at most 40)",
            )
        out.setdefault(tag.lower(), None)
    return tuple(out)


def make_memory(
    text: str,
    *,
    tags: tuple[str, ...] | list[str] = (),
    confidence: str = DEFAULT_TIER,
    error: bool = False,
    pinned: bool = False,
    source: str = "person",
    now: datetime | None = None,
    half_life: float = DEFAULT_HALF_LIFE_DAYS,
    origin: str = "",
    seq: int = 0,
) -> Memory:
    """A new memory from raw text: redacted, checked, with its id. Not written anywhere yet."""
    from hippo_git.transcripts.redact import redact

    if confidence not in TIERS:
        raise HippoError(f"unknown confidence {confidence!r}", hint="use verified, observed or inferred")
    clean, _ = redact(check_text(text))
    return Memory(
        id=memory_id(clean),
        text=clean,
        tags=check_tags(tags),
        confidence=confidence,
        created=now_iso(now),
        half_life=half_life * (ERROR_HALF_LIFE_FACTOR if error else 1.0),
        pinned=pinned,
        source=source,
        kind="error" if error else "note",
        origin=origin,
        seq=seq if origin else 0,
    )


def _scalar(value: str) -> str:
    """A value YAML reads back as this exact string."""
    if re.fullmatch(r"[A-Za-z][\w.:/-]*", value) and value.lower() not in {
        "true",
        "false",
        "yes",
        "no",
        "on",
        "off",
        "null",
    }:
        return value
    return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render(memory: Memory) -> str:
    half = int(memory.half_life) if float(memory.half_life).is_integer() else memory.half_life
    lines = [
        "---",
        f"id: {memory.id}",
        f"tags: [{', '.join(memory.tags)}]",
        f"confidence: {memory.confidence}",
        f"created: {memory.created}",
        f"half_life: {half}",
        f"pinned: {'true' if memory.pinned else 'false'}",
        f"source: {_scalar(memory.source)}",
    ]
    if memory.origin:
        lines += [f"origin: {_scalar(memory.origin)}", f"seq: {memory.seq}"]
    if memory.kind == "forgotten":
        lines.append("forgotten: true")
    elif memory.kind != "note":
        lines.append(f"kind: {memory.kind}")
    lines.append("---")
    return "\n".join(lines) + "\n" + memory.text.rstrip("\n") + "\n"


def _as_bool(value: object) -> bool:
    return value is True or (isinstance(value, str) and value.lower() in ("true", "yes", "1"))


def _as_float(value: object, default: float) -> float:
    try:
        number = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
    return number if number > 0 else default


def from_front(front: dict[str, Any], body: str, path: str) -> Memory:
    """A memory from a parsed note (front matter and body); tolerant of hand edits."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    tags = front.get("tags") or []
    if isinstance(tags, str):
        tags = [t for t in re.split(r"[,\s]+", tags) if t]
    confidence = str(front.get("confidence") or DEFAULT_TIER)
    created = front.get("created")
    return Memory(
        id=str(front.get("id") or stem),
        text=body.strip(),
        tags=tuple(str(t) for t in tags),
        confidence=confidence if confidence in TIERS else DEFAULT_TIER,
        created=str(created) if created else "",
        half_life=_as_float(front.get("half_life"), DEFAULT_HALF_LIFE_DAYS),
        pinned=_as_bool(front.get("pinned")),
        source=str(front.get("source") or "person"),
        kind="forgotten" if front.get("forgotten") else str(front.get("kind") or "note"),
        path=path,
        origin=str(front.get("origin") or ""),
        seq=_as_int(front.get("seq")),
    )


def _as_int(value: object) -> int:
    try:
        return int(value)  # type: ignore[call-overload,no-any-return]
    except (TypeError, ValueError):
        return 0


def parse_memory(text: str, path: str) -> Memory:
    from hippo_git.notes.parse import parse_front_matter, split_front_matter

    block, body, _, _ = split_front_matter(text)
    front, _ = parse_front_matter(block) if block is not None else ({}, None)
    return from_front(front, body, path)


def parse_time(value: str) -> datetime | None:
    if not value:
        return None
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
    return when if when.tzinfo else when.replace(tzinfo=UTC)
