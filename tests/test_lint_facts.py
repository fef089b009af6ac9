"""Lint counts from per-note facts (`notes/lint_facts.py`): equal to the full lint after every
kind of change, and an edit that keeps every note's link keys recomputes only that note's facts."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from hippo_git.config import Config, load_config
from hippo_git.notes import notes_index
from hippo_git.notes.lint import index_counts, lint_counts, lint_notes
from hippo_git.notes.lint_facts import counts_from_facts
from hippo_git.notes.notes_db import LINT_FACTS_KEY, get_meta, lint_cache_key
from tests.conftest import make_repo
from tests.test_notes_index import OLD, _write


def _repo(tmp_path: Path) -> tuple[Path, Config]:
    repo = make_repo(tmp_path / "repo")
    (repo / ".hippo").mkdir()
    (repo / ".hippo/hippo.toml").write_text(
        'notes_dir = "notes"\n[notes]\nmax_bytes = 400\n'
        '[context]\nrequired = ["conventions.md", "gone.md", "gone.md"]\nbudget_bytes = 600\n'
    )
    _write(repo, "notes/index.md", "# Index\n[[deploy]] [[Release Process]] [[ops/runbook]] [[nowhere]]\n")
    _write(repo, "notes/conventions.md", "# Conventions\n" + "Type hints everywhere. " * 20 + "\n")
    _write(repo, "notes/deploy.md", "---\ntitle: [unclosed\n---\n# Deploy\nSee [[deploy]] only.\n")
    _write(repo, "notes/release-process.md", "# Release process\nTag it. [[Duplicate]]\n")
    _write(repo, "notes/ops/runbook.md", "# Runbook\n" + "Restart it. " * 40 + "\n")
    _write(repo, "notes/ops/deploy.md", "# Deploy steps\nNo links.\n")
    _write(repo, "notes/a.md", "# Duplicate\nalone\n")
    _write(repo, "notes/b.md", "# duplicate\nalone\n")
    _write(repo, "notes/c.md", "# DUPLICATE\nalone, but links to itself [[c]]\n")
    _write(repo, "notes/memories/m-1.md", "---\nkind: fact\n---\nA memory, unlinked by nature.\n")
    return repo, load_config(repo)


def _counts(cfg: Config) -> tuple[dict[str, int], sqlite3.Connection]:
    """The counts from the facts, after a refresh, checked against both full counts."""
    conn = notes_index.open_notes_index(cfg)
    notes_index.refresh(conn, cfg)
    got = counts_from_facts(cfg, conn)
    assert got == index_counts(cfg, conn) == lint_notes(cfg, conn).counts()
    return got, conn


def _dirty(conn: sqlite3.Connection) -> list[str]:
    return [row[0] for row in conn.execute("SELECT path FROM lint_dirty ORDER BY path")]


def test_counts_from_facts_match_the_full_lint_after_every_kind_of_change(tmp_path: Path) -> None:
    repo, cfg = _repo(tmp_path)
    first, conn = _counts(cfg)
    conn.close()
    for kind in ("broken_link", "ambiguous_link", "front_matter", "orphan", "oversized", "duplicate_title"):
        assert first[kind] > 0, kind
    edits = [
        # body only: b now links a (both leave the orphans), index loses its broken link
        ("notes/b.md", "# duplicate\nsee [[a]]\n"),
        ("notes/index.md", "# Index\n[[deploy]] [[Release Process]] [[ops/runbook]]\n"),
        # an ambiguous link, a front matter fixed, an oversized note shrunk
        ("notes/ops/deploy.md", "# Deploy steps\n[[duplicate]] [[release-process]]\n"),
        ("notes/deploy.md", "# Deploy\nSee [[deploy]] only.\n"),
        ("notes/ops/runbook.md", "# Runbook\nRestart it.\n"),
        # retitled: its keys change, so other notes' links may resolve differently
        ("notes/a.md", "# Alpha\nalone\n"),
        # a new note, then one removed
        ("notes/nowhere.md", "# Nowhere\nNow somewhere.\n"),
        ("notes/c.md", None),
    ]
    before = first
    for n, (rel, text) in enumerate(edits, start=1):
        if text is None:
            (repo / rel).unlink()
        else:
            _write(repo, rel, text, OLD + n)
        after, conn = _counts(cfg)
        conn.close()
        assert after != before, rel  # each edit changes some count: a stale fact would show
        before = after


def test_an_edit_keeping_link_keys_recomputes_only_that_note(tmp_path: Path) -> None:
    repo, cfg = _repo(tmp_path)
    _, conn = _counts(cfg)
    try:
        _write(repo, "notes/b.md", "# duplicate\nsee [[a]] and [[missing]]\n", OLD + 3)
        notes_index.refresh(conn, cfg)
        assert get_meta(conn, LINT_FACTS_KEY) is not None and _dirty(conn) == ["notes/b.md"]
        # the other notes' facts are not read again: a planted wrong fact survives the update
        conn.execute("UPDATE lint_notes SET broken = broken + 100 WHERE path = 'notes/c.md'")
        counts = counts_from_facts(cfg, conn)
        assert counts["broken_link"] == index_counts(cfg, conn)["broken_link"] + 100
        assert _dirty(conn) == []
        # a retitled note changes keys: every note's facts are computed again
        _write(repo, "notes/b.md", "# Bravo\nsee [[a]] and [[missing]]\n", OLD + 4)
        notes_index.refresh(conn, cfg)
        assert get_meta(conn, LINT_FACTS_KEY) is None
        assert counts_from_facts(cfg, conn) == index_counts(cfg, conn)
    finally:
        conn.close()


def test_lint_counts_use_the_facts_and_cache_them(tmp_path: Path) -> None:
    repo, cfg = _repo(tmp_path)
    conn = notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        counts = lint_counts(cfg, conn)
        assert get_meta(conn, LINT_FACTS_KEY) is not None
        assert json.loads(get_meta(conn, lint_cache_key(cfg)) or "{}") == counts == index_counts(cfg, conn)
        _write(repo, "notes/b.md", "# duplicate\nsee [[a]]\n", OLD + 3)
        notes_index.refresh(conn, cfg)
        assert get_meta(conn, lint_cache_key(cfg)) is None  # an edit outdates the cached counts
        assert lint_counts(cfg, conn) == index_counts(cfg, conn) != counts
        # a busy index (here: a transaction already open) is counted from scratch, not failed
        _write(repo, "notes/b.md", "# duplicate\nsee [[a]] [[gone]]\n", OLD + 5)
        notes_index.refresh(conn, cfg)
        conn.execute("BEGIN")
        try:
            assert lint_counts(cfg, conn) == index_counts(cfg, conn)
        finally:
            conn.execute("ROLLBACK")
    finally:
        conn.close()


def test_the_facts_are_outdated_by_any_writer_of_the_notes_rows(tmp_path: Path) -> None:
    _, cfg = _repo(tmp_path)
    _, conn = _counts(cfg)
    try:
        assert get_meta(conn, LINT_FACTS_KEY) is not None and _dirty(conn) == []
        # not through refresh: the triggers, not the refresh's code, keep the facts honest
        conn.execute("UPDATE notes SET links = '[]' WHERE path = 'notes/index.md'")
        assert _dirty(conn) == ["notes/index.md"] and get_meta(conn, LINT_FACTS_KEY) is not None
        assert counts_from_facts(cfg, conn) == index_counts(cfg, conn)
        conn.execute("UPDATE notes SET title = 'Renamed' WHERE path = 'notes/a.md'")
        assert get_meta(conn, LINT_FACTS_KEY) is None
        assert counts_from_facts(cfg, conn) == index_counts(cfg, conn)
        conn.execute("DELETE FROM notes WHERE path = 'notes/b.md'")
        assert get_meta(conn, LINT_FACTS_KEY) is None
        assert counts_from_facts(cfg, conn) == index_counts(cfg, conn)
    finally:
        conn.close()
