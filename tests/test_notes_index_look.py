"""The notes index's cheap freshness: one look at the files per answer (`one_look`), and the
descriptor-relative walk that finds every visible note (and no more) under nested folders."""

from __future__ import annotations

import os
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.memories.framing import context_extra
from hippo_git.memories.service import remember_text
from hippo_git.notes import notes_db, notes_index, notes_scan
from hippo_git.notes.context import build_context
from tests.conftest import make_repo, run_cli
from tests.test_notes_index import OLD, _write


def test_walk_finds_nested_notes_and_keeps_links_inside(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _write(repo, "notes/a/b/c/deep.md", "# Deep\n")
    _write(repo, "notes/top.md", "# Top\n")
    _write(repo, "notes/.drafts/hidden.md", "# Hidden\n")
    _write(repo, "notes/a/readme.txt", "not a note")
    _write(repo, "outside/secret.md", "# Outside\n")
    os.symlink(repo / "outside/secret.md", repo / "notes/a/escape.md")
    os.symlink(repo / "notes/top.md", repo / "notes/a/b/alias.md")
    cfg = load_config(repo)
    found = notes_scan.walk(cfg.notes_path, cfg.root).files
    assert sorted(found) == ["notes/a/b/alias.md", "notes/a/b/c/deep.md", "notes/top.md"]
    assert found["notes/top.md"] == (len("# Top\n"), OLD * 1_000_000_000)


def test_one_look_per_block_and_every_block_sees_edits(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _write(repo, "notes/deploy.md", "# Deploy\nArgo canary.\n")
    cfg = load_config(repo)
    conn = notes_index.open_notes_index(cfg)
    try:
        with notes_index.one_look():
            assert notes_index.refresh(conn, cfg).updated == ("notes/deploy.md",)
            _write(repo, "notes/deploy.md", "# Deploy\nHelm charts now.\n", OLD + 5)
            # the same answer does not look at the files twice
            assert not notes_index.refresh(conn, cfg).changed
        again = notes_index.refresh(conn, cfg)  # outside the block: edits are always seen
        assert again.updated == ("notes/deploy.md",)
        assert [p for p, _ in notes_index.search(conn, '"helm"', 5)] == ["notes/deploy.md"]
        with notes_index.one_look():
            _write(repo, "notes/deploy.md", "# Deploy\nKustomize.\n", OLD + 9)
            assert notes_index.refresh(conn, cfg).updated == ("notes/deploy.md",)
            # a refresh of named paths is never skipped
            _write(repo, "notes/deploy.md", "# Deploy\nPulumi.\n", OLD + 12)
            assert notes_index.refresh(conn, cfg, ["notes/deploy.md"]).updated == ("notes/deploy.md",)
    finally:
        conn.close()


def test_one_look_never_trusts_a_new_in_memory_index(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _write(repo, "notes/deploy.md", "# Deploy\n")
    cfg = load_config(repo)
    with notes_index.one_look():
        for _ in range(2):  # each in-memory index starts empty and must be filled
            conn = notes_db.connect(":memory:")
            try:
                assert notes_index.refresh(conn, cfg).updated == ("notes/deploy.md",)
            finally:
                conn.close()


def test_context_sees_edited_notes_and_memories_between_runs(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "ws")
    assert run_cli(["init", "--no-hooks"], cwd=root).returncode == 0
    cfg = load_config(root)
    remember_text(cfg, "Release builds need the signing key from the vault")
    _write(root, "notes/release.md", "# Release\nTag the release builds on Tuesdays.\n")
    first = build_context(cfg, "release builds", extra=context_extra(cfg))
    assert "Tag the release builds on Tuesdays" in first.text and "signing key" in first.text
    _write(root, "notes/release.md", "# Release\nTag the release builds on Thursdays.\n", OLD + 5)
    memory = next((root / "notes/memories").glob("*.md"))
    text = memory.read_text().replace("signing key", "hardware token")
    memory.write_text(text)
    os.utime(memory, (OLD + 5, OLD + 5))
    second = build_context(cfg, "release builds", extra=context_extra(cfg))
    assert "Thursdays" in second.text and "Tuesdays" not in second.text
    assert "hardware token" in second.text and "signing key" not in second.text


def test_lint_counts_from_the_index_match_the_full_lint(tmp_path: Path) -> None:
    from hippo_git.notes.lint import index_counts, lint_notes, lint_notes_list
    from tests.test_lint_facts import _repo  # the notes every kind of lint issue shows in

    _, cfg = _repo(tmp_path)
    conn = notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        full = lint_notes_list(notes_index.all_notes(conn), cfg, notes_index.resolver(conn)).counts()
        assert index_counts(cfg, conn) == full
    finally:
        conn.close()
    assert full == lint_notes(cfg).counts()
    # every kind is exercised, so a count gone wrong would show
    for kind in ("broken_link", "ambiguous_link", "front_matter", "orphan", "oversized", "duplicate_title"):
        assert full[kind] > 0, kind
    assert full["missing_context_note"] == 2 and full["context_budget"] == 1
