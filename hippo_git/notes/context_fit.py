"""Fitting the context block into its budget: the parts, their fences, and what gives way.

Optional parts are left out whole, lowest priority first; required parts over the budget are
shortened (each note cut at a line with a marker and a pointer to the full note) when the caller
degrades, else refused naming their sizes. Light on purpose: the agent hooks run it.
"""

from __future__ import annotations

from typing import NamedTuple

from hippo_git.errors import HippoError

_SECTION_ORDER = {
    "header": 0,
    "entry": 1,
    "required": 2,
    "missing": 3,
    "session": 4,
    "relevant": 5,
    "memory": 6,
    "lint": 7,
}


class Part(NamedTuple):
    kind: str  # header | entry | required | missing | session | relevant | memory | lint
    label: str  # a note's repo-relative path, or the part's name
    text: str
    required: bool
    why: str = ""
    body: str = ""  # a note's own text, to shorten it when the required parts overflow

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {
            "kind": self.kind,
            "label": self.label,
            "bytes": self.size,
            "required": self.required,
        }
        if self.why:
            out["why"] = self.why
        return out


def fence(tag: str, attrs: dict[str, str], text: str) -> str:
    """`text` wrapped in `<tag attr="...">`…`</tag>`. The tag gets a numeric suffix when the text
    itself contains the closing tag, so quoted text can never end the fence early."""
    lowered = text.lower()
    name, n = tag, 1
    while f"</{name}" in lowered:
        n += 1
        name = f"{tag}-{n}"
    opening = " ".join([name, *(f'{k}="{_attr(v)}"' for k, v in attrs.items() if v)])
    body = text if text.endswith("\n") else text + "\n"
    return f"<{opening}>\n{body}</{name}>\n"


def fence_note(path: str, text: str, role: str, why: str = "") -> str:
    return fence("note", {"path": path, "role": role, "why": why}, text)


def _attr(value: str) -> str:
    return value.replace("&", "&amp;").replace('"', "&quot;").replace("<", "&lt;").replace(">", "&gt;")


def render(parts: list[Part], left_out: list[Part], budget: int, short_footer: bool = False) -> str:
    ordered = sorted(parts, key=lambda p: _SECTION_ORDER[p.kind])
    chunks: list[str] = []
    relevant_started = memories_started = False
    for part in ordered:
        if part.kind == "relevant" and not relevant_started:
            chunks.append("## Notes relevant to the task\n")
            relevant_started = True
        if part.kind == "memory" and not memories_started:
            chunks.append("## Memories relevant to the task\n")
            memories_started = True
        chunks.append(part.text)
    if left_out:
        if short_footer:
            chunks.append(f"## Left out\n{len(left_out)} parts left out to stay within {budget:,} bytes.\n")
        else:
            items = ", ".join(f"{p.label} ({p.size:,} bytes)" for p in left_out)
            chunks.append(
                f"## Left out\nTo stay within {budget:,} bytes, these were left out: {items}. "
                "Read notes from the repository when you need them.\n"
            )
    return "\n".join(chunks)


def size_of(text: str) -> int:
    return len(text.encode("utf-8"))


SHORTENED = "[… shortened by hippo_git to fit the context budget: {shown:,} of {size:,} bytes shown; read the full note at {path}]\n"


def _cut(text: str, limit: int) -> str:
    """At most `limit` bytes of `text`, ending at a line break when one is near, never mid-character."""
    data = text.encode("utf-8")
    if len(data) <= limit:
        return text
    head = data[: max(0, limit)].decode("utf-8", errors="ignore")
    line = head.rfind("\n")
    return head[: line + 1] if line >= len(head) // 2 else head


def _shortened(part: Part, limit: int) -> Part:
    """`part` (a fenced note) with its note cut to about `limit` bytes and the marker at the end."""
    size = size_of(part.body)
    marker = SHORTENED.format(shown=0, size=size, path=part.label)
    kept = _cut(part.body, limit - size_of(marker))
    body = kept + ("" if kept.endswith("\n") or not kept else "\n")
    body += SHORTENED.format(shown=size_of(kept), size=size, path=part.label)
    role = "entry" if part.kind == "entry" else "required"
    return part._replace(text=fence_note(part.label, body, role + ", shortened"))


def shorten(required: list[Part], budget: int) -> list[Part]:
    """The required parts with the entry and required notes shortened so the block fits `budget`:
    each note gets at most the same share (notes smaller than it keep all of theirs), the largest
    share that fits; when even a marker apiece does not fit, the notes are named instead."""
    notes = [p for p in required if p.kind in ("entry", "required") and p.body]
    if not notes:  # nothing to shorten: no list naming no notes either (the refusal says the rest)
        return list(required)

    def with_share(cap: int) -> list[Part]:
        cut = {p.label: _shortened(p, cap) for p in notes if size_of(p.body) > cap}
        return [cut.get(p.label, p) if p in notes else p for p in required]

    def fits(cap: int) -> bool:
        return size_of(render(with_share(cap), [], budget)) <= budget

    # The largest share that fits is found by halving (a step from the overflow alone overshoots
    # when several notes are cut at once). A smaller share makes the block smaller except just
    # under a note's own size, where its marker outweighs the bytes cut: there the halving may
    # settle on a smaller share than the largest that fits, but what it returns always fits.
    low, high = 1, max(size_of(p.body) for p in notes)
    if fits(low):
        while low < high:
            mid = (low + high + 1) // 2
            low, high = (mid, high) if fits(mid) else (low, mid - 1)
        return with_share(low)
    return [p for p in required if p not in notes] + [
        Part("missing", "shortened", "Context notes left out to fit the budget (read them from the repository): "
             + ", ".join(p.label for p in notes) + "\n", required=True)
    ]  # fmt: skip


def fit(
    required: list[Part], optional: list[Part], budget: int, *, degrade: bool = False
) -> tuple[list[Part], list[Part], str]:
    """Add optional parts in priority order while they fit; leave the rest out whole. Required parts
    over the budget are shortened when `degrade`, else refused naming their sizes."""
    base = render(required, [], budget)
    if size_of(base) > budget and degrade:
        required = shorten(required, budget)
        base = render(required, [], budget)
    if size_of(base) > budget:
        sizes = "; ".join(f"{p.label} {p.size:,}" for p in required)
        raise HippoError(
            f"the required context is {size_of(base):,} bytes, over the budget of {budget:,} bytes ({sizes})",
            hint="raise budget_bytes in the [context] table of .hippo/hippo.toml, pass --budget, "
            "or shorten the entry and required notes",
        )
    included = list(required)
    left: list[Part] = []
    for part in optional:
        if size_of(render([*included, part], left, budget)) <= budget:
            included.append(part)
        else:
            left.append(part)
    text = render(included, left, budget)
    # The footer naming what was left out takes room too: drop more until it all fits.
    while size_of(text) > budget and len(included) > len(required):
        dropped = included.pop()
        left.insert(0, dropped)
        text = render(included, left, budget)
    if size_of(text) > budget:
        text = render(included, left, budget, short_footer=True)
    if size_of(text) > budget:
        text = render(included, [], budget)  # the left-out list is also in ContextBlock.left_out
    return included, left, text
