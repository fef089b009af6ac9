"""The notes index's quick look (`notes_scan.unchanged`): trusted only while no note or folder
changed, and every kind of change (an edit in place, a new, removed or renamed note, a new
folder, another notes folder) sends the refresh back to the full walk that finds it."""

from __future__ import annotations

import itertools
import os
import sqlite3
from pathlib import Path

from hippo_git.config import Config, load_config
from hippo_git.notes import notes_index, notes_scan
from tests.conftest import make_repo
from tests.test_notes_index import OLD, _write

_SETTLED = itertools.count(OLD, 60)


def _settle(repo: Path) -> None:
    """Every folder under notes/ gets an old mtime, as folders untouched for a while have (each
    time a later one: a folder's mtime never goes back)."""
    when = next(_SETTLED)
    for folder, _, _ in os.walk(repo / "notes"):
        os.utime(folder, (when, when))


def _repo(tmp_path: Path) -> tuple[Path, Config, sqlite3.Connection]:
    repo = make_repo(tmp_path / "repo")
    _write(repo, "notes/index.md", "# Index\n[[deploy]]\n")
    _write(repo, "notes/ops/deploy.md", "# Deploy\nArgo canary rollout.\n")
    _write(repo, "notes/memories/m-1.md", "---\nid: m-1\n---\nThe build needs the vault token.\n")
    _settle(repo)
    cfg = load_config(repo)
    conn = notes_index.open_notes_index(cfg)
    assert len(notes_index.refresh(conn, cfg).updated) == 3
    return repo, cfg, conn


def _look(conn: sqlite3.Connection, cfg: Config) -> int | None:
    return notes_scan.unchanged(conn, cfg.root, notes_scan.top_rel(cfg))


def _words(conn: sqlite3.Connection, word: str) -> list[str]:
    return [p for p, _ in notes_index.search(conn, f'"{word}"', 5)]


def test_a_settled_look_is_stored_and_answers_without_a_walk(tmp_path: Path) -> None:
    _, cfg, conn = _repo(tmp_path)
    try:
        assert _look(conn, cfg) == 3
        folders = {row[0] for row in conn.execute("SELECT folder FROM scan")}
        assert folders == {"notes", "notes/ops", "notes/memories"}
        assert not notes_index.refresh(conn, cfg).changed
    finally:
        conn.close()


def test_an_edit_in_place_is_seen(tmp_path: Path) -> None:
    repo, cfg, conn = _repo(tmp_path)
    try:
        # same folder mtime (nothing added or removed), same size: only the note's mtime differs
        stored_mtime = os.stat(repo / "notes/ops").st_mtime_ns
        _write(repo, "notes/ops/deploy.md", "# Deploy\nHelm canary rollout.\n", OLD + 5)
        os.utime(repo / "notes/ops", ns=(stored_mtime,) * 2)
        assert _look(conn, cfg) is None
        assert notes_index.refresh(conn, cfg).updated == ("notes/ops/deploy.md",)
        assert _words(conn, "helm") == ["notes/ops/deploy.md"] and _words(conn, "argo") == []
        # same mtime, another size
        _write(repo, "notes/memories/m-1.md", "---\nid: m-1\n---\nThe build needs the hardware key.\n")
        assert notes_index.refresh(conn, cfg).updated == ("notes/memories/m-1.md",)
        assert _words(conn, "hardware") == ["notes/memories/m-1.md"]
    finally:
        conn.close()


def test_new_removed_and_renamed_notes_and_new_folders_are_seen(tmp_path: Path) -> None:
    repo, cfg, conn = _repo(tmp_path)
    try:
        _write(repo, "notes/ops/rollback.md", "# Rollback\nRevert the canary.\n")
        assert notes_index.refresh(conn, cfg).updated == ("notes/ops/rollback.md",)
        _settle(repo)
        notes_index.refresh(conn, cfg)
        (repo / "notes/ops/rollback.md").rename(repo / "notes/ops/revert.md")
        result = notes_index.refresh(conn, cfg)
        assert result.updated == ("notes/ops/revert.md",) and result.removed == ("notes/ops/rollback.md",)
        _settle(repo)
        notes_index.refresh(conn, cfg)
        (repo / "notes/index.md").unlink()
        assert notes_index.refresh(conn, cfg).removed == ("notes/index.md",)
        _settle(repo)
        notes_index.refresh(conn, cfg)
        _write(repo, "notes/team/a/b/onboarding.md", "# Onboarding\nAsk for the vault token.\n")
        os.utime(repo / "notes/team/a/b", (OLD, OLD))  # not racy: only its parents are
        assert notes_index.refresh(conn, cfg).updated == ("notes/team/a/b/onboarding.md",)
        assert _words(conn, "onboarding") == ["notes/team/a/b/onboarding.md"]
    finally:
        conn.close()


def test_a_recent_folder_is_listed_again_and_linked_notes_are_never_stored(tmp_path: Path) -> None:
    repo, cfg, conn = _repo(tmp_path)
    try:
        _write(repo, "notes/ops/new.md", "# New\n")  # the folder's mtime is now: racy
        tick = os.stat(repo / "notes/ops").st_mtime_ns
        assert notes_index.refresh(conn, cfg).updated == ("notes/ops/new.md",)
        stored = dict(conn.execute("SELECT folder, mtime_ns FROM scan").fetchall())
        assert stored["notes/ops"] == 0 and stored["notes"] != 0  # kept, to be listed again
        # a note added within the same clock tick leaves the folder's mtime as it was: still seen
        _write(repo, "notes/ops/same-tick.md", "# Same tick\n")
        os.utime(repo / "notes/ops", ns=(tick, tick))
        assert notes_index.refresh(conn, cfg).updated == ("notes/ops/same-tick.md",)
        _settle(repo)
        notes_index.refresh(conn, cfg)  # listed again, now settled: stored as it is
        assert (
            _look(conn, cfg) == 5
            and 0 not in dict(conn.execute("SELECT folder, mtime_ns FROM scan")).values()
        )
        os.symlink(repo / "notes/ops/new.md", repo / "notes/alias.md")
        _settle(repo)
        assert notes_index.refresh(conn, cfg).updated == ("notes/alias.md",)
        assert not notes_index.refresh(conn, cfg).changed
        assert _look(conn, cfg) is None  # its target can change unseen: always walked
        assert conn.execute("SELECT count(*) FROM scan").fetchone()[0] == 0
        _write(repo, "notes/ops/new.md", "# New\nRenamed target text.\n", OLD + 7)
        assert sorted(notes_index.refresh(conn, cfg).updated) == ["notes/alias.md", "notes/ops/new.md"]
    finally:
        conn.close()


def test_notes_added_removed_and_renamed_are_found_by_listing_their_folder_alone(
    tmp_path: Path, monkeypatch
) -> None:
    repo, cfg, conn = _repo(tmp_path)
    walked: list[object] = []
    walk = notes_scan.walk

    def counted(*args: Path) -> notes_scan.Walk:
        walked.append(args)
        return walk(*args)

    monkeypatch.setattr(notes_scan, "walk", counted)
    try:
        _write(repo, "notes/memories/m-2.md", "---\nid: m-2\n---\nDeploys wait for the canary.\n")
        result = notes_index.refresh(conn, cfg)
        assert result.updated == ("notes/memories/m-2.md",) and result.total == 4
        (repo / "notes/memories/m-2.md").rename(repo / "notes/memories/m-3.md")
        result = notes_index.refresh(conn, cfg)
        assert result.updated == ("notes/memories/m-3.md",) and result.removed == ("notes/memories/m-2.md",)
        (repo / "notes/index.md").unlink()
        result = notes_index.refresh(conn, cfg)
        assert result.removed == ("notes/index.md",) and result.total == 3
        assert sorted(_words(conn, "canary")) == ["notes/memories/m-3.md", "notes/ops/deploy.md"]
        assert walked == []
        (repo / "notes/team").mkdir()  # a new folder: only a walk finds what it holds
        _write(repo, "notes/team/onboarding.md", "# Onboarding\n")
        assert notes_index.refresh(conn, cfg).updated == ("notes/team/onboarding.md",) and len(walked) == 1
    finally:
        conn.close()


def test_a_look_at_another_notes_folder_is_not_trusted(tmp_path: Path) -> None:
    repo, cfg, conn = _repo(tmp_path)
    conn.close()
    _write(repo, "docs/guide.md", "# Guide\n")
    os.utime(repo / "docs", (OLD, OLD))
    other = Config(root=cfg.root, home=cfg.home, notes_dir="docs")
    conn = notes_index.open_notes_index(other)
    try:
        result = notes_index.refresh(conn, other)
        assert result.updated == ("docs/guide.md",) and result.total == 1
        assert _look(conn, other) == 1 and _look(conn, cfg) is None
    finally:
        conn.close()


def test_edits_in_place_are_read_without_a_walk_and_the_look_is_kept(tmp_path: Path, monkeypatch) -> None:
    repo, cfg, conn = _repo(tmp_path)
    try:

        def no_walk(*_: object) -> None:
            raise AssertionError("walked although only notes changed in place")

        monkeypatch.setattr(notes_scan, "walk", no_walk)
        _write(repo, "notes/ops/deploy.md", "# Deploy\nHelm canary rollout.\n", OLD + 5)
        _write(
            repo, "notes/memories/m-1.md", "---\nid: m-1\n---\nThe build needs the hardware key.\n", OLD + 5
        )
        result = notes_index.refresh(conn, cfg)
        assert (
            sorted(result.updated) == ["notes/memories/m-1.md", "notes/ops/deploy.md"] and result.total == 3
        )
        assert _words(conn, "helm") == ["notes/ops/deploy.md"] and _words(conn, "hardware") == [
            "notes/memories/m-1.md"
        ]
        assert _look(conn, cfg) == 3  # the look now holds the edited stats
        # written just now: read, and read again by each refresh until its mtime is settled, so a
        # second write within the same clock tick is not missed
        path = repo / "notes/ops/deploy.md"
        path.write_text("# Deploy\nPulumi canary.\n")
        tick = path.stat().st_mtime_ns
        assert notes_index.refresh(conn, cfg).updated == ("notes/ops/deploy.md",)
        path.write_text("# Deploy\nKustom canary.\n")  # same size, same clock tick
        os.utime(path, ns=(tick, tick))
        assert notes_index.refresh(conn, cfg).updated == ("notes/ops/deploy.md",)
        assert _words(conn, "kustom") == ["notes/ops/deploy.md"]
        os.utime(path, (OLD + 9, OLD + 9))
        assert notes_index.refresh(conn, cfg).updated == ("notes/ops/deploy.md",)
        assert not notes_index.refresh(conn, cfg).changed and _look(conn, cfg) == 3
    finally:
        conn.close()


def test_a_busy_writer_leaves_the_edits_for_later_and_the_count_whole(tmp_path: Path) -> None:
    import time

    from hippo_git.notes.notes_db import index_file

    repo, cfg, conn = _repo(tmp_path)
    other = sqlite3.connect(str(index_file(cfg)), isolation_level=None)
    try:
        _write(repo, "notes/ops/deploy.md", "# Deploy\nHelm canary rollout.\n", OLD + 5)
        other.execute("BEGIN IMMEDIATE")  # a background refresh holds the write lock
        result = notes_index.refresh(conn, cfg, deadline=time.monotonic() + 0.05)
        assert not result.complete and result.total == 3 and _words(conn, "helm") == []
        other.execute("ROLLBACK")
        assert notes_index.refresh(conn, cfg).updated == ("notes/ops/deploy.md",)
    finally:
        other.close()
        conn.close()
