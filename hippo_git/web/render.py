"""Text into safe HTML: Markdown notes (raw HTML off), `[[links]]`, diffs read with unidiff, SVG charts.

Everything that comes from a note, a transcript or a model is escaped here or by the templates;
Markdown is rendered with HTML disabled, and markdown-it refuses `javascript:` and similar links.
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from urllib.parse import quote

from markdown_it import MarkdownIt
from markdown_it.rules_core import StateCore
from markdown_it.token import Token
from markupsafe import Markup, escape
from unidiff.patch import PatchSet

MARKS = ("\x02", "\x03")  # search snippet highlights, turned into <mark> after escaping


def marked(snippet: str) -> Markup:
    text = str(escape(snippet.replace(MARKS[0], "").replace(MARKS[1], "")))
    if MARKS[0] in snippet:
        text = str(escape(snippet)).replace(MARKS[0], "<mark>").replace(MARKS[1], "</mark>")
    return Markup(text)  # noqa: S704 (escaped above; only the two markers become tags)


def _wiki_links(state: StateCore) -> None:
    """`[[target|label]]` in text (never in code) becomes a link the note route resolves."""
    for block in state.tokens:
        if block.type != "inline" or not block.children:
            continue
        children: list[Token] = []
        for tok in block.children:
            if tok.type != "text" or "[[" not in tok.content:
                children.append(tok)
                continue
            pos = 0
            for match in _WIKI.finditer(tok.content):
                if match.start() > pos:
                    children.append(_text(tok.content[pos : match.start()]))
                target = match.group(1).strip()
                link = Token("link_open", "a", 1)
                link.attrs = {"href": "/note?name=" + quote(target, safe=""), "class": "wikilink"}
                children += [link, _text((match.group(2) or target).strip()), Token("link_close", "a", -1)]
                pos = match.end()
            if pos < len(tok.content):
                children.append(_text(tok.content[pos:]))
        block.children = children


def _text(content: str) -> Token:
    tok = Token("text", "", 0)
    tok.content = content
    return tok


_MD = MarkdownIt("commonmark", {"html": False, "linkify": False}).enable("table")
_MD.core.ruler.push("wiki_links", _wiki_links)
_WIKI = re.compile(r"\[\[([^\]\n|]{1,200})(?:\|([^\]\n]{1,200}))?\]\]")


def markdown(text: str) -> Markup:
    """A note's body as HTML: raw HTML is off, so every tag in the text is shown, not run."""
    return Markup(_MD.render(text))  # noqa: S704 (the renderer escapes; raw HTML is off)


def diff_rows(diff_text: str) -> list[dict[str, str]]:
    """Rows of a unified diff (file headers, hunk headers, lines) with a kind for styling."""
    rows: list[dict[str, str]] = []
    for patched in PatchSet(diff_text):
        rows.append({"kind": "file", "text": f"{patched.source_file} → {patched.target_file}"})
        for hunk in patched:
            rows.append(
                {
                    "kind": "hunk",
                    "text": f"@@ -{hunk.source_start},{hunk.source_length} +{hunk.target_start},{hunk.target_length} @@",
                }
            )
            for line in hunk:
                kind = {"+": "add", "-": "del"}.get(line.line_type, "ctx")
                rows.append({"kind": kind, "text": line.line_type + line.value.rstrip("\n")})
    return rows


def bar_chart(points: Sequence[tuple[str, float]], *, title: str, unit: str = "") -> Markup:
    """A small SVG bar chart, drawn on the server (no script, no CDN)."""
    width, height, pad = 640, 180, 28
    if not any(v for _, v in points):
        return Markup(f'<p class="muted">{escape(title)}: nothing in these days</p>')
    top = max((v for _, v in points), default=0) or 1
    step = (width - 2 * pad) / max(len(points), 1)
    bars = []
    for i, (label, value) in enumerate(points):
        h = (height - 2 * pad) * value / top
        x = pad + i * step
        y = height - pad - h
        bars.append(
            f'<rect x="{x + 2:.1f}" y="{y:.1f}" width="{max(step - 4, 1):.1f}" height="{h:.1f}">'
            f"<title>{escape(label)}: {value:g}{escape(unit)}</title></rect>"
        )
        if len(points) <= 31:
            bars.append(
                f'<text x="{x + step / 2:.1f}" y="{height - 8}" text-anchor="middle">{escape(label[-5:])}</text>'
            )
    return Markup(
        f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">'
        f'<text x="{pad}" y="16">{escape(title)} (max {top:g}{escape(unit)})</text>{"".join(bars)}</svg>'
    )


def link_graph(center: str, into: Sequence[str], out: Sequence[str]) -> Markup:
    """The note in the middle, the notes linking to it on the left, the notes it links to on the right."""
    width, height = 640, max(160, 34 * max(len(into), len(out), 1) + 40)

    def column(paths: Sequence[str], x: int) -> list[tuple[float, str]]:
        gap = height / (len(paths) + 1)
        return [(gap * (i + 1), p) for i, p in enumerate(paths)]

    cy = height / 2
    parts = []
    for x, paths, anchor in ((110, into, "end"), (530, out, "start")):
        for y, path in column(paths, x):
            parts.append(f'<line x1="{x}" y1="{y:.1f}" x2="320" y2="{cy:.1f}"/>')
            href = escape("/notes/" + quote(path))
            name = escape(path.rsplit("/", 1)[-1])
            parts.append(
                f'<a href="{href}"><text x="{x}" y="{y + 4:.1f}" text-anchor="{anchor}">{name}</text></a>'
            )
    label = escape(center.rsplit("/", 1)[-1])
    parts.append(
        f'<circle cx="320" cy="{cy:.1f}" r="6"/><text x="320" y="{cy - 12:.1f}" text-anchor="middle">{label}</text>'
    )
    return Markup(f'<svg class="graph" viewBox="0 0 {width} {math.ceil(height)}">{"".join(parts)}</svg>')
