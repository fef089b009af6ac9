"""What makes `doctor` cheap must not make it wrong: the index's integrity verdict is reused only
while the file is unchanged, and a damaged index is red however it was checked before."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hippo_git.index import db
from hippo_git.team.doctor import run_doctor
from hippo_git.team.doctor_data import INTEGRITY_FILE
from tests.conftest import git, run_cli


def _integrity(root: Path) -> tuple[str, str]:
    check = next(c for c in run_doctor(root, probe=False).checks if c.name == "index integrity")
    return check.status, check.saw


def _index(home: Path, sessions: int) -> Path:
    path = home / "index.sqlite"
    conn = db.connect(path)
    with conn:
        for i in range(sessions):
            conn.execute(
                "INSERT INTO sessions(id, harness, cwd, title, started, ended, turns) VALUES (?,?,?,?,?,?,?)",
                (f"s{i:05d}", "claude-code", "/w", "t" * 200, "2026-01-01T10:00:00", None, 0),
            )
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return path


def test_integrity_verdict_is_reused_only_while_the_index_is_unchanged(repo: Path) -> None:
    assert run_cli(["init"], repo).returncode == 0
    home = Path(os.environ["HIPPO_HOME"])
    path = _index(home, 50)
    status, saw = _integrity(repo)
    assert status == "green" and "unchanged since" not in saw and "50 session(s)" in saw
    assert json.loads((home / INTEGRITY_FILE).read_text())["verdict"] == "ok"
    status, saw = _integrity(repo)
    assert status == "green" and "file unchanged since" in saw

    _index(home, 0)  # no rows, but a write: the file's mtime moves
    conn = db.connect(path)
    with conn:
        conn.execute("DELETE FROM sessions WHERE id = 's00000'")
    conn.close()
    status, saw = _integrity(repo)
    assert status == "green" and "unchanged since" not in saw and "49 session(s)" in saw


def test_a_damaged_index_is_red_even_after_an_ok(repo: Path) -> None:
    assert run_cli(["init"], repo).returncode == 0
    home = Path(os.environ["HIPPO_HOME"])
    path = _index(home, 3000)
    assert _integrity(repo)[0] == "green"
    data = bytearray(path.read_bytes())
    page = 4096
    for n in range(len(data) // page - 6, len(data) // page):  # the last pages: rows, not the schema
        data[n * page + 8 : n * page + 40] = b"\xff" * 32
    path.write_bytes(bytes(data))
    damaged = next(c for c in run_doctor(repo, probe=False).checks if c.name == "index integrity")
    assert damaged.status == "red" and damaged.saw.startswith("quick_check: "), damaged
    assert "ingest --full" in damaged.fix
    assert json.loads((home / INTEGRITY_FILE).read_text())["verdict"] == "ok"  # the old key, unused


def test_prefetched_diff_facts_equal_the_ones_read_one_by_one(repo: Path) -> None:
    """Paths, patch-ids and blobs from the batched `git diff-tree` are exactly libgit2's, for an
    edit, an add, a delete, a binary file, an executable, unicode and a name git must quote."""
    from hippo_git.git.commit_diffs import PREFETCH_MIN
    from hippo_git.git.objects import GitStore

    steps: list[tuple[str, bytes | None]] = [
        ("notes/a.md", b"# A\n\nfirst\n"),
        ("notes/a.md", b"# A\n\nfirst\nsecond\n"),
        ("notes/caf\u00e9.md", "# caf\u00e9\n".encode()),
        ('notes/say "hi"\tnow.md', b"quoted\n"),
        ("notes/blob.bin", bytes(range(256)) * 4),
        ("notes/blob.bin", bytes(range(255, -1, -1)) * 4),
        ("notes/run.sh", b"#!/bin/sh\necho hi\n"),
        ("notes/a.md", None),
        ("notes/b.md", b"no trailing newline"),
        ("notes/b.md", b"no trailing newline, still"),
    ]
    for path, data in steps:
        target = repo / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if data is None:
            target.unlink()
        else:
            target.write_bytes(data)
            if path.endswith(".sh"):
                target.chmod(0o755)
        git(repo, "add", "-A")
        git(repo, "commit", "-q", "-m", f"change {path}")
    commits = git(repo, "rev-list", f"-{len(steps)}", "HEAD").split()
    assert len(commits) >= PREFETCH_MIN

    def facts(store: GitStore) -> list[tuple[object, ...]]:
        out: list[tuple[object, ...]] = []
        for sha in commits:
            paths = store.changed_paths(sha)
            parent = store.commit_info(sha).parents[0]
            blobs = [(store.blob_at(parent, p), store.blob_at(sha, p)) for p in paths]
            out.append((sha, paths, store.patch_id(sha), blobs))
        return out

    batched = GitStore(repo)
    batched.prefetch_diffs(commits)
    assert batched._paths and batched._patch_ids and batched._blobs  # the batch did the work
    assert facts(batched) == facts(GitStore(repo))


def test_the_doctor_page_shows_its_last_report_and_refreshes_it_in_the_background(repo: Path) -> None:
    import threading

    from hippo_git.web.doctor_view import FRESH_SECONDS, DoctorView, age_text

    assert run_cli(["init"], repo).returncode == 0
    view = DoctorView(repo)
    first, computed, refreshing = view.current()  # the first visit waits for it
    assert first.checks and not refreshing
    assert view.current() == (first, computed, False)  # a fresh report is shown as it is
    view.computed = computed - FRESH_SECONDS - 1  # as if a minute had passed
    old, shown, refreshing = view.current()
    assert old is first and shown == computed - FRESH_SECONDS - 1 and refreshing
    assert "UTC, 6" in age_text(shown) or "min ago" in age_text(shown)  # the page says how old
    for thread in threading.enumerate():
        if thread.name == "hippo-doctor":
            thread.join(timeout=60)
    newer, later, refreshing = view.current()
    assert newer is not first and later > shown and not refreshing
    (repo / ".hippo" / "hippo.toml").write_text("not = [valid\n")
    view.invalidate()  # an action changed the workspace: the next visit computes afresh
    broken, _, _ = view.current()
    assert not broken.ok and any(c.name == "hippo.toml" and c.status == "red" for c in broken.checks)
    assert view.current(fresh=True)[0] is not broken  # "check again now"
    view.invalidate()
    view.dropped += 3600  # as if the action came while this check ran: its result is not kept
    late, when, _ = view.current()
    assert late.checks and view.report is None and when < view.dropped


def test_the_kept_notes_lint_follows_the_notes(repo: Path) -> None:
    """Doctor's lint summary is kept in the notes index until a note changes, and no longer."""
    assert run_cli(["init"], repo).returncode == 0

    def lint() -> tuple[str, str]:
        check = next(c for c in run_doctor(repo, probe=False).checks if c.name == "notes lint")
        return check.status, check.saw

    assert lint()[0] == "green"
    assert lint()[0] == "green"  # from the kept summary
    bad = repo / "notes" / "bad.md"
    bad.write_text("---\ntitle: [oops\n---\n# Bad\n")
    status, saw = lint()
    assert status == "red" and "notes/bad.md" in saw
    assert lint() == (status, saw)
    bad.unlink()
    assert lint()[0] == "green"
