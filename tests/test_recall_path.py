"""What `recall` and `context` look up, and what they leave alone: notes are searched only when
the caller ranks them, and a store's memories and notes are each found whatever the other holds."""

from __future__ import annotations

from pathlib import Path

from hippo_git.config import load_config
from hippo_git.memories.recall import candidates, recall
from hippo_git.memories.service import remember_text
from hippo_git.memories.store import workspace_store
from tests.conftest import make_repo
from tests.test_notes_index import _write


def test_notes_are_searched_only_when_they_are_ranked(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    _write(repo, "notes/release.md", "# Release\nThe release train leaves on Tuesdays.\n")
    cfg = load_config(repo)
    remember_text(cfg, "The release needs the signing key from the vault")
    stores = [workspace_store(cfg)]
    mems, notes = candidates(stores, "release")
    assert [m.text for m, *_ in mems] == ["The release needs the signing key from the vault"]
    assert [n[0] for n in notes] == ["notes/release.md"]
    mems_only, none = candidates(stores, "release", notes_too=False)
    assert [m.id for m, *_ in mems_only] == [m.id for m, *_ in mems] and none == []
    kinds = [r.kind for r in recall(cfg, cfg.home, "release", record=False)]
    assert sorted(kinds) == ["memory", "note"]
    assert [r.kind for r in recall(cfg, cfg.home, "release", notes=False, record=False)] == ["memory"]


def test_a_store_of_only_notes_or_only_memories_finds_its_kind(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "notes-only")
    _write(repo, "notes/release.md", "# Release\nThe release train leaves on Tuesdays.\n")
    cfg = load_config(repo)
    mems, notes = candidates([workspace_store(cfg)], "release")
    assert mems == [] and [n[0] for n in notes] == ["notes/release.md"]
    other = make_repo(tmp_path / "memories-only")
    cfg = load_config(other)
    remember_text(cfg, "The release needs the signing key from the vault")
    mems, notes = candidates([workspace_store(cfg)], "release")
    assert len(mems) == 1 and notes == []
