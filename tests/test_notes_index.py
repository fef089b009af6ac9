"""The per-workspace notes index: incremental refresh by (size, mtime), search, rebuild."""

from __future__ import annotations

import os
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.notes import notes_index
from hippo_git.notes.notes_index import index_file, open_notes_index, refresh, refresh_notes_index
from tests.conftest import make_repo

OLD = 1_600_000_000  # a file time far from "now", so refreshes trust (size, mtime)


def _write(repo: Path, rel: str, text: str, mtime: int = OLD) -> None:
    path = repo / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    os.utime(path, (mtime, mtime))


def _repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    _write(repo, "notes/index.md", "# Index\n[[deploy]]\n")
    _write(repo, "notes/ops/deploy.md", "# Deploy\nArgo canary rollout.\n")
    _write(repo, "notes/.hidden.md", "# hidden\n")
    _write(repo, "notes/readme.txt", "not a note")
    return repo


def test_refresh_reads_only_what_changed(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    cfg = load_config(repo)
    first = refresh_notes_index(cfg)
    assert sorted(first.updated) == ["notes/index.md", "notes/ops/deploy.md"] and first.total == 2
    assert index_file(cfg).exists() and str(index_file(cfg)).startswith(str(cfg.home / "notes"))
    assert not refresh_notes_index(cfg).changed
    _write(repo, "notes/ops/deploy.md", "# Deploy\nHelm chart and blue green.\n", OLD + 5)
    _write(repo, "notes/new.md", "# New\n", OLD + 5)
    (repo / "notes/index.md").unlink()
    again = refresh_notes_index(cfg)
    assert sorted(again.updated) == ["notes/new.md", "notes/ops/deploy.md"]
    assert again.removed == ("notes/index.md",) and again.total == 2
    conn = open_notes_index(cfg)
    try:
        assert [p for p, _ in notes_index.search(conn, '"helm"', 5)] == ["notes/ops/deploy.md"]
        assert notes_index.search(conn, '"argo"', 5) == []
    finally:
        conn.close()


def test_refresh_of_given_paths_only(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    cfg = load_config(repo)
    refresh_notes_index(cfg)
    _write(repo, "notes/ops/deploy.md", "# Deploy v2\n", OLD + 9)
    _write(repo, "notes/other.md", "# Other\n", OLD + 9)
    (repo / "notes/index.md").unlink()
    result = refresh_notes_index(cfg, ["notes/ops/deploy.md", "notes/index.md", "src/app.py", "../x.md"])
    assert result.updated == ("notes/ops/deploy.md",) and result.removed == ("notes/index.md",)
    conn = open_notes_index(cfg)
    try:
        assert [n.path for n in notes_index.all_notes(conn)] == [
            "notes/ops/deploy.md"
        ]  # other.md not asked for
        assert notes_index.all_notes(conn)[0].title == "Deploy v2"
    finally:
        conn.close()


def test_recent_writes_are_checked_again(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    cfg = load_config(repo)
    (repo / "notes/fresh.md").write_text("# Fresh\n")  # mtime now: same-tick rewrites must be seen
    refresh_notes_index(cfg)
    (repo / "notes/fresh.md").write_text("# Fresh2\n")
    os.utime(repo / "notes/fresh.md", ns=(os.stat(repo / "notes/fresh.md").st_mtime_ns,) * 2)
    assert "notes/fresh.md" in refresh_notes_index(cfg).updated


def test_corrupt_index_is_rebuilt_and_unwritable_home_falls_back(tmp_path: Path, monkeypatch) -> None:
    repo = _repo(tmp_path)
    cfg = load_config(repo)
    path = index_file(cfg)
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not sqlite" * 100)
    assert refresh_notes_index(cfg).total == 2
    blocked = tmp_path / "blocked"
    blocked.mkdir()
    (blocked / "notes").write_text("a file where the notes index folder should be")
    monkeypatch.setenv("HIPPO_HOME", str(blocked))
    cfg = load_config(repo)
    conn = open_notes_index(cfg)
    try:
        assert refresh(conn, cfg).total == 2
    finally:
        conn.close()
