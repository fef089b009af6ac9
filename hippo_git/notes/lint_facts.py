"""Lint counts from per-note facts kept in the notes index, so that after a few edited notes
`context` pays for those notes' links, not for resolving every link of every note again.

Each note's facts: how many of its links are broken or ambiguous, which other notes its links
reach (`lint_links`, from which orphans are counted in SQL), and its title's key (duplicates).
A link resolves by the link keys of all notes (made of their paths, names and titles), so while
no note's keys change, an edit changes only the edited note's facts: a trigger on the notes
table lists it in `lint_dirty`. When keys change (a note added, removed, renamed or retitled)
triggers clear `LINT_FACTS_KEY` and every note's facts are computed again. Being triggers, they
hold whatever code writes the rows. Front matter errors and sizes
are counted straight from the notes rows. The counts equal `lint.index_counts` (tests hold them
to it).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterable

from hippo_git.config import Config
from hippo_git.notes import notes_index
from hippo_git.notes.notes_db import LINT_FACTS_KEY, get_meta
from hippo_git.notes.resolve import Resolver, normalise

_ROWS = "SELECT path, title, links FROM notes"


def link_facts(
    path: str, raw: str, resolver: Resolver, cache: dict[str, tuple[str, str | None]]
) -> tuple[int, int, set[str]]:
    """(broken, ambiguous, other notes reached) of one note's links (`raw`: its stored JSON list),
    each target resolved once per `cache`."""
    broken = ambiguous = 0
    reached: set[str] = set()
    for target, _, _ in json.loads(raw):
        found = cache.get(target)
        if found is None:
            res = resolver.resolve(target)
            found = cache[target] = (res.status, res.path)
        if found[0] == "broken":
            broken += 1
        elif found[0] == "ambiguous":
            ambiguous += 1
        elif found[1] is not None and found[1] != path:
            reached.add(found[1])
    return broken, ambiguous, reached


def _facts(
    rows: Iterable[tuple[str, str, str]], resolver: Resolver
) -> tuple[list[tuple[str, int, int, str]], list[tuple[str, str]]]:
    """(lint_notes rows, lint_links rows) of the given notes."""
    cache: dict[str, tuple[str, str | None]] = {}
    notes: list[tuple[str, int, int, str]] = []
    links: list[tuple[str, str]] = []
    for path, title, raw in rows:
        broken, ambiguous, reached = link_facts(path, raw, resolver, cache)
        notes.append((path, broken, ambiguous, normalise(title)))
        links += [(path, dst) for dst in sorted(reached)]
    return notes, links


def _bring_up_to_date(conn: sqlite3.Connection) -> None:
    """Every note's facts current (inside the caller's transaction)."""
    if get_meta(conn, LINT_FACTS_KEY) is None:
        conn.execute("DELETE FROM lint_notes")
        conn.execute("DELETE FROM lint_links")
        notes, links = _facts(conn.execute(_ROWS), notes_index.resolver(conn))
    else:
        dirty = [row[0] for row in conn.execute("SELECT path FROM lint_dirty")]
        if not dirty:
            return
        for start in range(0, len(dirty), 500):
            chunk = [(p,) for p in dirty[start : start + 500]]
            conn.executemany("DELETE FROM lint_notes WHERE path = ?", chunk)
            conn.executemany("DELETE FROM lint_links WHERE src = ?", chunk)
        rows = [r for p in dirty for r in conn.execute(f"{_ROWS} WHERE path = ?", (p,))]
        notes, links = _facts(rows, notes_index.IndexResolver(conn))
    conn.executemany("INSERT INTO lint_notes(path, broken, ambiguous, title_key) VALUES (?,?,?,?)", notes)
    conn.executemany("INSERT INTO lint_links(src, dst) VALUES (?,?)", links)
    conn.execute("DELETE FROM lint_dirty")
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, '1')", (LINT_FACTS_KEY,))


def _upper(prefix: str) -> str:
    """The first string after every string that starts with `prefix` (ending in '/')."""
    return prefix[:-1] + chr(ord(prefix[-1]) + 1)


def counts_from_facts(cfg: Config, conn: sqlite3.Connection) -> dict[str, int]:
    """`lint.index_counts(cfg, conn)`, from the facts (brought up to date first, in one write
    transaction; raises sqlite3.OperationalError when the index is busy or read-only)."""
    from hippo_git.notes.lint import ERROR_KINDS, WARNING_KINDS, context_budget_issue

    conn.execute("BEGIN IMMEDIATE")
    try:
        _bring_up_to_date(conn)
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    entry = f"{cfg.notes_dir}/{cfg.context.entry}"
    memories = f"{cfg.notes_dir}/memories/"
    broken, ambiguous = conn.execute(
        "SELECT coalesce(sum(broken), 0), coalesce(sum(ambiguous), 0) FROM lint_notes"
    ).fetchone()
    total, front, oversized = conn.execute(
        "SELECT count(*), coalesce(sum(front_error IS NOT NULL AND front_error != ''), 0),"
        " coalesce(sum(size > ?), 0) FROM notes",
        (cfg.notes_max_bytes,),
    ).fetchone()
    orphan = conn.execute(
        "SELECT count(*) FROM notes n WHERE n.path != ? AND NOT (n.path >= ? AND n.path < ?)"
        " AND NOT EXISTS (SELECT 1 FROM lint_links WHERE src = n.path)"
        " AND NOT EXISTS (SELECT 1 FROM lint_links WHERE dst = n.path)",
        (entry, memories, _upper(memories)),
    ).fetchone()[0]
    duplicates = conn.execute(
        "SELECT coalesce(sum(c), 0) FROM (SELECT count(*) AS c FROM lint_notes GROUP BY title_key HAVING c > 1)"
    ).fetchone()[0]
    context_paths = list(
        dict.fromkeys(f"{cfg.notes_dir}/{rel}" for rel in (cfg.context.entry, *cfg.context.required))
    )
    marks = ",".join("?" * len(context_paths))
    sizes = dict(
        conn.execute(f"SELECT path, size FROM notes WHERE path IN ({marks})", context_paths).fetchall()
    )
    counts = {kind: 0 for kind in (*ERROR_KINDS, *WARNING_KINDS)}
    counts |= {"broken_link": broken, "ambiguous_link": ambiguous, "front_matter": front}
    counts["oversized"] = oversized
    counts["orphan"] = orphan
    counts["duplicate_title"] = duplicates
    counts["missing_context_note"] = sum(
        1 for rel in (cfg.context.entry, *cfg.context.required) if f"{cfg.notes_dir}/{rel}" not in sizes
    )
    counts["context_budget"] = int(context_budget_issue(cfg, sizes) is not None)
    counts["errors"] = sum(counts[k] for k in ERROR_KINDS)
    counts["warnings"] = sum(counts[k] for k in WARNING_KINDS)
    counts["notes"] = total
    return counts
