"""`notes lint`: broken and ambiguous links, bad front matter (errors); orphans, oversized
notes, duplicate titles, missing context notes, and context notes near or past the context budget
(warnings: dreams keep appending to the entry note, and past the budget agents get it shortened)."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass, field

from hippo_git.config import Config
from hippo_git.notes import notes_index
from hippo_git.notes.graph import build_graph
from hippo_git.notes.parse import Note
from hippo_git.notes.resolve import Resolver, normalise

ERROR_KINDS = ("broken_link", "ambiguous_link", "front_matter")
WARNING_KINDS = ("orphan", "oversized", "duplicate_title", "missing_context_note", "context_budget")
# Warn while there is still room: the entry and required notes at this share of context.budget_bytes.
CONTEXT_WARN_SHARE = 0.8


@dataclass(frozen=True)
class LintIssue:
    """One problem `notes lint` found in a note, with its kind, place and message."""

    kind: str
    path: str
    message: str
    line: int | None = None

    @property
    def severity(self) -> str:
        return "error" if self.kind in ERROR_KINDS else "warning"

    def as_dict(self) -> dict[str, object]:
        return {
            "kind": self.kind,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }


@dataclass
class LintReport:
    """The lint of all notes: how many were checked and the issues found."""

    notes: int
    issues: list[LintIssue] = field(default_factory=list)

    @property
    def errors(self) -> list[LintIssue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def warnings(self) -> list[LintIssue]:
        return [i for i in self.issues if i.severity == "warning"]

    def counts(self) -> dict[str, int]:
        out = {kind: 0 for kind in (*ERROR_KINDS, *WARNING_KINDS)}
        for issue in self.issues:
            out[issue.kind] += 1
        out["errors"] = len(self.errors)
        out["warnings"] = len(self.warnings)
        out["notes"] = self.notes
        return out

    def as_dict(self) -> dict[str, object]:
        return {"counts": self.counts(), "issues": [i.as_dict() for i in self.issues]}


def lint_notes_list(notes: list[Note], cfg: Config, resolver: Resolver | None = None) -> LintReport:
    """Lint a set of parsed notes (the working tree's, or any other set such as a staged tree)."""
    report = LintReport(notes=len(notes))
    graph = build_graph(notes, cfg.notes_dir, resolver)
    for problem in graph.problems:
        if problem.kind == "broken":
            message = f"[[{problem.target}]] matches no note"
        else:
            message = f"[[{problem.target}]] is ambiguous: " + ", ".join(problem.candidates)
        report.issues.append(LintIssue(f"{problem.kind}_link", problem.path, message, problem.line))
    for note in notes:
        if note.front_error:
            report.issues.append(LintIssue("front_matter", note.path, note.front_error, 1))
        if note.size > cfg.notes_max_bytes:
            report.issues.append(
                LintIssue(
                    "oversized",
                    note.path,
                    f"{note.size:,} bytes, over notes.max_bytes = {cfg.notes_max_bytes:,}",
                )
            )
    entry = f"{cfg.notes_dir}/{cfg.context.entry}"
    memories = f"{cfg.notes_dir}/memories/"  # memories are single statements: unlinked by nature
    for path in graph.orphans(exempt=(entry,)):
        if not path.startswith(memories):
            report.issues.append(LintIssue("orphan", path, "no links in or out"))
    by_title: dict[str, list[str]] = {}
    for note in notes:
        by_title.setdefault(normalise(note.title), []).append(note.path)
    for paths in by_title.values():
        if len(paths) > 1:
            for path in paths:
                others = ", ".join(p for p in paths if p != path)
                title = graph.notes[path].title
                report.issues.append(
                    LintIssue("duplicate_title", path, f"title {title!r} is also used by {others}")
                )
    for rel in (cfg.context.entry, *cfg.context.required):
        path = f"{cfg.notes_dir}/{rel}"
        if path not in graph.notes:
            report.issues.append(
                LintIssue(
                    "missing_context_note", path, "named in [context] of .hippo/hippo.toml but does not exist"
                )
            )
    budget_issue = context_budget_issue(cfg, {p: n.size for p, n in graph.notes.items()})
    if budget_issue is not None:
        report.issues.append(budget_issue)
    report.issues.sort(key=lambda i: (i.severity != "error", i.path, i.line or 0, i.kind))
    return report


def context_budget_issue(cfg: Config, sizes: dict[str, int]) -> LintIssue | None:
    """A warning when the entry and required notes (`sizes`: path → bytes) take most of the context
    budget, naming the sizes; None while they leave room."""
    paths = dict.fromkeys(f"{cfg.notes_dir}/{rel}" for rel in (cfg.context.entry, *cfg.context.required))
    found = {p: sizes[p] for p in paths if p in sizes}
    total, budget = sum(found.values()), cfg.context.budget_bytes
    if not found or total < budget * CONTEXT_WARN_SHARE:
        return None
    largest = max(found, key=lambda p: found[p])
    what = "past" if total > budget else "near"
    parts = ", ".join(f"{p} {n:,}" for p, n in found.items())
    return LintIssue(
        "context_budget",
        largest,
        f"the entry and required notes are {total:,} bytes ({parts}), {what} context.budget_bytes = "
        f"{budget:,}: past it agents get them shortened; shorten {largest} or raise the budget",
    )


def lint_notes(cfg: Config, conn: sqlite3.Connection | None = None) -> LintReport:
    """Lint the working tree's notes (through the notes index, refreshed first)."""
    own = conn is None
    conn = conn or notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        return lint_notes_list(notes_index.all_notes(conn), cfg, notes_index.resolver(conn))
    finally:
        if own:
            conn.close()


def lint_counts(cfg: Config, conn: sqlite3.Connection) -> dict[str, int]:
    """Lint counts for the context block, cached in the notes index until a note changes.

    Expects `conn` freshly refreshed (the refresh clears the cache when any note changed).
    """
    key = notes_index.lint_cache_key(cfg)
    cached = notes_index.get_meta(conn, key)
    if cached is not None:
        counts: dict[str, int] = json.loads(cached)
        return counts
    from hippo_git.notes.lint_facts import counts_from_facts

    try:
        counts = counts_from_facts(cfg, conn)  # only the edited notes' links are resolved again
    except sqlite3.OperationalError:
        counts = index_counts(cfg, conn)  # a busy or read-only index: counted from scratch
    notes_index.set_meta(conn, key, json.dumps(counts))
    return counts


def index_counts(cfg: Config, conn: sqlite3.Connection) -> dict[str, int]:
    """`lint_notes_list(...).counts()` over the indexed notes, counted straight from the rows: no
    note, issue or message is built (after notes changed, a plain `context` pays for this)."""
    from hippo_git.notes.lint_facts import link_facts

    resolver = notes_index.resolver(conn)
    cache: dict[str, tuple[str, str | None]] = {}
    broken = ambiguous = front = oversized = 0
    linked: set[str] = set()  # notes with a link in or out (a link to itself does not count)
    sizes: dict[str, int] = {}
    by_title: dict[str, int] = {}
    for path, title, size, front_error, links in conn.execute(
        "SELECT path, title, size, front_error, links FROM notes"
    ):
        sizes[path] = size
        front += bool(front_error)
        oversized += size > cfg.notes_max_bytes
        key = normalise(title)
        by_title[key] = by_title.get(key, 0) + 1
        note_broken, note_ambiguous, reached = link_facts(path, links, resolver, cache)
        broken, ambiguous = broken + note_broken, ambiguous + note_ambiguous
        if reached:
            linked.add(path)
            linked.update(reached)
    entry = f"{cfg.notes_dir}/{cfg.context.entry}"
    memories = f"{cfg.notes_dir}/memories/"
    counts = {kind: 0 for kind in (*ERROR_KINDS, *WARNING_KINDS)}
    counts |= {"broken_link": broken, "ambiguous_link": ambiguous, "front_matter": front}
    counts["oversized"] = oversized
    counts["orphan"] = sum(1 for p in sizes if p not in linked and p != entry and not p.startswith(memories))
    counts["duplicate_title"] = sum(n for n in by_title.values() if n > 1)
    counts["missing_context_note"] = sum(
        1 for rel in (cfg.context.entry, *cfg.context.required) if f"{cfg.notes_dir}/{rel}" not in sizes
    )
    counts["context_budget"] = int(context_budget_issue(cfg, sizes) is not None)
    counts["errors"] = sum(counts[k] for k in ERROR_KINDS)
    counts["warnings"] = sum(counts[k] for k in WARNING_KINDS)
    counts["notes"] = len(sizes)
    return counts
