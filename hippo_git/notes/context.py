"""The context block an agent gets at session start (`git hippo context`).

Parts, in order: a header, the entry note and the required notes (required parts), a session
line (branch, recent sessions here and their handoffs), up to five notes relevant to the task,
and lint counts (optional parts). Optional parts are left out whole, lowest priority first, when
the block would exceed the budget, and the block lists what was left out. When the required parts
alone exceed it (dreams keep appending to the entry note), the block the agent hooks and a plain
`context` build still comes: the entry and required notes are shortened, each with a marker and a
pointer to the full note (`degrade`); with an explicit budget, building fails naming the sizes.
`notes lint` and `doctor` warn before that happens (`lint.context_budget_issue`).

This runs on every agent session start: it reads the working tree, `.git/HEAD` and SQLite
directly and must not import pygit2, GitPython or pydantic.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from hippo_git.config import Config
from hippo_git.errors import UsageError
from hippo_git.git.head import read_head
from hippo_git.notes import declared, notes_index
from hippo_git.notes.context_fit import Part as Part
from hippo_git.notes.context_fit import fence as fence
from hippo_git.notes.context_fit import fence_note as fence_note
from hippo_git.notes.context_fit import fit, render, size_of
from hippo_git.notes.parse import extract_links, link_targets, split_front_matter
from hippo_git.notes.relevance import rank_relevant

# Claude Code caps a hook's additionalContext at 10,000 characters (longer text is moved to a
# file); characters never outnumber UTF-8 bytes, so this byte budget always fits.
CLAUDE_HOOK_MAX_BYTES = 9_500
RELEVANT_LIMIT = 5
RECENT_SESSIONS = 3
HANDOFF_SESSIONS = 5
HANDOFF_CHARS = 400


@dataclass
class ContextBlock:
    """The context block for a session: the parts within budget, those left out, and the rendered text."""

    task: str | None
    budget: int
    parts: list[Part]
    left_out: list[Part]
    text: str
    branch: str | None = None
    sessions: list[dict[str, Any]] = field(default_factory=list)
    lint: dict[str, int] = field(default_factory=dict)
    required_bytes: int = 0  # the block with its required parts only
    index_complete: bool = True  # False: the notes index was still being built (a deadline cut it)
    lint_pending: bool = False  # the lint counts were not at hand within the deadline: left out

    @property
    def size(self) -> int:
        return len(self.text.encode("utf-8"))

    @property
    def sizes(self) -> dict[str, int]:
        return {p.label: p.size for p in self.parts}

    def as_dict(self) -> dict[str, object]:
        return {
            "task": self.task,
            "budget": self.budget,
            "bytes": self.size,
            "required_bytes": self.required_bytes,
            "branch": self.branch,
            "parts": [p.as_dict() for p in self.parts],
            "left_out": [p.as_dict() for p in self.left_out],
            "sessions": self.sessions,
            "lint": self.lint,
            "text": self.text,
        }

    def claude_hook(self) -> str:
        return json.dumps(
            {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": self.text}},
            ensure_ascii=False,
        )


def _read_note(cfg: Config, rel: str) -> tuple[str, str | None]:
    """(repo-relative path, text or None when missing/outside notes_dir)."""
    path = f"{cfg.notes_dir}/{rel.strip().lstrip('/')}"
    full = (cfg.root / path).resolve()
    notes_root = cfg.notes_path.resolve()
    if notes_root not in full.parents:
        return path, None
    try:
        return path, full.read_bytes().decode("utf-8", errors="replace")
    except OSError:
        return path, None


def _one_line(text: str, limit: int) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"


def _session_part(branch: str | None, detached: str | None, records: list[dict[str, Any]]) -> Part:
    where = (
        f"branch `{branch}`" if branch else (f"detached HEAD at {detached[:12]}" if detached else "no branch")
    )
    lines = ["## Session", f"Working on {where}."]
    if records:
        lines.append("Recent sessions in this workspace (newest first):")
        for rec in records:
            when = str(rec.get("ended") or rec.get("started") or "?")[:16].replace("T", " ")
            what = rec.get("task") or rec.get("title") or "(no task recorded)"
            state = "" if rec.get("ended") else " [still open]"
            line = f"- {when} · {rec.get('harness') or 'unknown harness'} · {_one_line(str(what), 120)}{state} (session `{rec['id']}`)"
            if rec.get("handoff"):
                line += f"\n  handoff: {_one_line(str(rec['handoff']), HANDOFF_CHARS)}"
            lines.append(line)
    else:
        lines.append("No earlier sessions are recorded in this workspace.")
    return Part("session", "session", "\n".join(lines) + "\n", required=False)


def _lint_part(counts: dict[str, int]) -> Part:
    names = {
        "broken_link": "broken link",
        "ambiguous_link": "ambiguous link",
        "front_matter": "bad front matter",
        "orphan": "orphan",
        "oversized": "oversized note",
        "duplicate_title": "duplicate title",
        "missing_context_note": "missing context note",
        "context_budget": "context budget warning",
    }

    def listed(kinds: tuple[str, ...]) -> str:
        found = []
        for k in kinds:
            n = counts.get(k, 0)
            if n:
                found.append(f"{n} {names[k]}{'s' if n != 1 else ''}")
        return f" ({', '.join(found)})" if found else ""

    errors = listed(("broken_link", "ambiguous_link", "front_matter"))
    warnings = listed(("orphan", "oversized", "duplicate_title", "missing_context_note", "context_budget"))
    text = (
        f"## Notes health\n{counts.get('notes', 0)} notes; `git hippo notes lint`: {counts.get('errors', 0)} errors{errors}, "
        f"{counts.get('warnings', 0)} warnings{warnings}.\n"
    )
    return Part("lint", "lint", text, required=False)


def _links_of(text: str | None) -> list[str]:
    if not text:
        return []
    _, body, body_line, _ = split_front_matter(text)
    return [link.target for link in extract_links(body, body_line + 1)]


def build_context(
    cfg: Config,
    task: str | None = None,
    budget: int | None = None,
    *,
    for_claude_hook: bool = False,
    deadline: float | None = None,
    extra: Callable[[str | None], list[Part]] | None = None,
    degrade: bool | None = None,
) -> ContextBlock:
    """The context block for an agent starting work on `task` in this workspace.

    `budget` defaults to `[context] budget_bytes`; `for_claude_hook` caps it at
    CLAUDE_HOOK_MAX_BYTES so Claude Code takes the block inline. `deadline` (a `time.monotonic()`
    instant) bounds the notes-index refresh: past it, the entry and required notes still come
    (read directly), relevant notes only from what is indexed so far (`index_complete` False).
    `extra(task)` gives more optional parts (the memories, from a package above this one), ranked
    before relevant notes.
    `degrade` (default: when no budget is given) shortens required notes that do not fit instead
    of failing.
    """
    degrade = budget is None if degrade is None else degrade
    budget = cfg.context.budget_bytes if budget is None else budget
    if budget <= 0:
        raise UsageError(f"the budget must be a positive number of bytes, not {budget}")
    if for_claude_hook:
        budget = min(budget, CLAUDE_HOOK_MAX_BYTES)
    task = task.strip() if task and task.strip() else None

    head = read_head(cfg.root)
    header = "# Context from hippo_git\n" + (
        f"The team's notes for this repository (in `{cfg.notes_dir}/`); each note is fenced with its path: "
        "cite notes by path.\n"
    )
    if task:
        header += f"Task: {_one_line(task, 300)}\n"
    required: list[Part] = [Part("header", "header", header, required=True)]
    missing: list[str] = []
    entry_path, entry_text = _read_note(cfg, cfg.context.entry)
    if entry_text is None:
        missing.append(entry_path)
    else:
        entry = fence_note(entry_path, entry_text, "entry")
        required.append(Part("entry", entry_path, entry, required=True, body=entry_text))
    required_texts: list[str] = []
    shown = {entry_path}
    for rel in cfg.context.required:
        path, text = _read_note(cfg, rel)
        if path in shown:
            continue
        shown.add(path)
        if text is None:
            missing.append(path)
            continue
        required_texts.append(text)
        required.append(Part("required", path, fence_note(path, text, "required"), required=True, body=text))
    if missing:
        text = "Missing context notes (named in `.hippo/hippo.toml`, not found): " + ", ".join(missing) + "\n"
        required.append(Part("missing", "missing", text, required=True))

    records = declared.recent_records(cfg.root, limit=max(RECENT_SESSIONS, HANDOFF_SESSIONS))
    handoff_targets = [t for r in records if r.get("handoff") for t in link_targets(str(r["handoff"]))]

    # The memories (`extra`) are found through the same notes index: one look at the files serves both.
    with notes_index.one_look():
        conn = notes_index.open_notes_index(cfg)
        try:
            complete = notes_index.refresh(conn, cfg, deadline=deadline).complete
            # Lint counts over a half-built index would be wrong; on a deadline (an agent hook) only
            # cached ones are used: linting thousands of notes is for the background to do.
            counts = _lint_counts(cfg, conn, cached_only=deadline is not None) if complete else {}
            relevant = _relevant_parts(cfg, conn, task, entry_text, required_texts, handoff_targets, shown)
        finally:
            conn.close()
        more = extra(task) if extra is not None else []

    optional = [
        _session_part(head.branch, head.detached, records[:RECENT_SESSIONS]),
        *([_lint_part(counts)] if counts else []),
        *more,
        *relevant,
    ]
    parts, left, text = fit(required, optional, budget, degrade=degrade)
    return ContextBlock(
        task=task,
        budget=budget,
        parts=parts,
        left_out=left,
        text=text,
        branch=head.branch,
        sessions=[
            {k: r.get(k) for k in ("id", "kind", "harness", "started", "ended", "task", "handoff")}
            for r in records[:RECENT_SESSIONS]
        ],
        lint=counts,
        required_bytes=size_of(render(required, [], budget)),
        index_complete=complete,
        lint_pending=complete and not counts,
    )


def _lint_counts(cfg: Config, conn: sqlite3.Connection, *, cached_only: bool = False) -> dict[str, int]:
    cached = notes_index.get_meta(conn, notes_index.lint_cache_key(cfg))
    if cached is not None:
        counts: dict[str, int] = json.loads(cached)
        return counts
    if cached_only:
        return {}
    from hippo_git.notes.lint import lint_counts  # only when a note changed since the last run

    return lint_counts(cfg, conn)


def _relevant_parts(
    cfg: Config,
    conn: sqlite3.Connection,
    task: str | None,
    entry_text: str | None,
    required_texts: list[str],
    handoff_targets: list[str],
    shown: set[str],
) -> list[Part]:
    resolver = notes_index.IndexResolver(conn)

    def resolved(targets: list[str]) -> list[str]:
        out: dict[str, None] = {}
        for target in targets:
            path = resolver.resolve(target).path
            if path is not None:
                out.setdefault(path, None)
        return list(out)

    ranked = rank_relevant(
        conn,
        task,
        required_links=resolved([t for text in required_texts for t in _links_of(text)]),
        entry_links=resolved(_links_of(entry_text)),
        handoff_links=resolved(handoff_targets),
        exclude=shown,
        limit=RELEVANT_LIMIT,
    )
    parts: list[Part] = []
    memories = f"{cfg.notes_dir}/memories/"  # memory notes come framed, as memory parts
    for item in ranked:
        if item.path.startswith(memories):
            continue
        try:
            text = (cfg.root / item.path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        why = "; ".join(item.why)
        parts.append(
            Part("relevant", item.path, fence_note(item.path, text, "relevant", why), required=False, why=why)
        )
    return parts
