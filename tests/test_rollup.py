"""The rollup cache: built from the index, recomputed only where turns changed, rebuilt when its
format changes or it cannot be read."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from hippo_git.config import Config
from hippo_git.index.ingest import ingest as index_ingest
from hippo_git.signals.refresh import ingest
from hippo_git.signals.rollup import FORMAT_VERSION, rollup_path, update_rollup
from tests.conftest import make_repo
from tests.index_support import config, write_jsonl
from tests.rules_support import claude_session


def _setup(tmp_path: Path) -> tuple[Config, Path]:
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude" / "proj"
    cfg = config(repo, {"claude-code": [tmp_path / "claude"]})
    write_jsonl(
        folder / "aaa.jsonl",
        claude_session(
            "aaa",
            str(repo),
            [
                ("user", "make the parser strict"),
                ("edit", f"{repo}/parse.py", "loose = True", "loose = False"),
                ("bash", "uv run pytest -q", "3 passed"),
                ("assistant", "Done: all tests pass."),
            ],
        ),
    )
    write_jsonl(
        folder / "bbb.jsonl",
        claude_session(
            "bbb", str(repo), [("user", "tidy up"), ("bash", "rm -rf src", ""), ("assistant", "Removed it.")]
        ),
    )
    index_ingest(cfg, records=False)
    return cfg, folder


def _rows(cfg: Config, sql: str) -> list[tuple[object, ...]]:
    conn = sqlite3.connect(rollup_path(cfg))
    try:
        return conn.execute(sql).fetchall()
    finally:
        conn.close()


def test_the_rollup_holds_each_sessions_facts(tmp_path: Path) -> None:
    cfg, _ = _setup(tmp_path)
    summary = update_rollup(cfg)
    assert summary.rebuilt and (summary.sessions, summary.recomputed) == (2, 2)
    assert _rows(cfg, "SELECT session_id, kind, status, ev_command, ev_exit FROM claims") == [
        ("aaa", "tests", "checked", "uv run pytest -q", 0)
    ]
    assert _rows(cfg, "SELECT session_id, kind, cause FROM incidents") == [("bbb", "destructive", 1)]
    assert _rows(cfg, "SELECT session_id, added, removed FROM edits") == [("aaa", 1, 1)]
    assert _rows(cfg, "SELECT id, task FROM sessions ORDER BY id") == [
        ("aaa", "make the parser strict"),
        ("bbb", "tidy up"),
    ]


def test_only_sessions_whose_turns_changed_are_recomputed(tmp_path: Path) -> None:
    cfg, folder = _setup(tmp_path)
    update_rollup(cfg)
    again = update_rollup(cfg)
    assert (again.rebuilt, again.recomputed) == (False, 0)
    more = claude_session("aaa", str(cfg.root), [("edit", f"{cfg.root}/parse.py", "a", "b")], start_minute=30)
    write_jsonl(folder / "aaa.jsonl", more, append=True)
    index_ingest(cfg, records=False)
    after = update_rollup(cfg)
    assert after.recomputed == 1
    assert _rows(cfg, "SELECT count(*) FROM edits WHERE session_id = 'aaa'") == [(2,)]
    # ingest can say which sessions it touched; the others are not even looked at
    assert update_rollup(cfg, {"aaa"}).recomputed == 0


def test_a_rollup_of_another_format_or_unreadable_is_rebuilt(tmp_path: Path) -> None:
    cfg, _ = _setup(tmp_path)
    update_rollup(cfg)
    conn = sqlite3.connect(rollup_path(cfg))
    conn.execute("UPDATE meta SET value = 'old' WHERE key = 'format_version'")
    conn.commit()
    conn.close()
    rebuilt = update_rollup(cfg)
    assert rebuilt.rebuilt and rebuilt.recomputed == 2
    assert _rows(cfg, "SELECT value FROM meta") == [(FORMAT_VERSION,)]
    for suffix in ("-wal", "-shm"):
        Path(str(rollup_path(cfg)) + suffix).unlink(missing_ok=True)
    rollup_path(cfg).write_bytes(b"not a database at all" * 100)
    assert update_rollup(cfg).rebuilt


def test_sessions_gone_from_the_index_leave_the_rollup(tmp_path: Path) -> None:
    cfg, folder = _setup(tmp_path)
    update_rollup(cfg)
    (folder / "bbb.jsonl").unlink()
    index_ingest(cfg, full=True, records=False)
    summary = update_rollup(cfg)
    assert summary.removed == 1
    assert _rows(cfg, "SELECT DISTINCT session_id FROM incidents") == []
    assert _rows(cfg, "SELECT id FROM sessions") == [("aaa",)]


def test_no_index_yet_makes_an_empty_rollup(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    cfg = config(repo, {})
    summary = update_rollup(cfg)
    assert summary.rebuilt and summary.sessions == 0


def test_ingest_brings_the_rollup_up_to_date(tmp_path: Path) -> None:
    cfg, folder = _setup(tmp_path)
    ingest(cfg, records=False)  # the real entry point, with its rollup step
    assert _rows(cfg, "SELECT session_id, kind, cause FROM incidents") == [("bbb", "destructive", 1)]
    assert update_rollup(cfg).recomputed == 0  # nothing left for a later update to do


def _cross(cfg: Config) -> list[tuple[object, ...]]:
    return _rows(
        cfg,
        "SELECT session_id, seq, rule, summary, path, other_session FROM incidents WHERE cross_session = 1 "
        "ORDER BY 1, 2, 3, 4, 6",
    )


def _rebuilt(cfg: Config) -> list[tuple[object, ...]]:
    for suffix in ("", "-wal", "-shm"):
        Path(str(rollup_path(cfg)) + suffix).unlink(missing_ok=True)
    assert update_rollup(cfg).rebuilt
    return _cross(cfg)


def test_cross_session_incidents_updated_in_place_match_a_rebuild(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude" / "proj"
    cfg = config(repo, {"claude-code": [tmp_path / "claude"]})
    app, new = f"{repo}/app.py", "def main() -> None:\n    print('hello, strict world')\n"

    def session(sid: str, start: int, path: str = app, day: str = "2026-03-02") -> None:
        steps = [("user", "fix it"), ("edit", path, "pass", new), ("assistant", "Changed it.")]
        write_jsonl(
            folder / f"{sid}.jsonl", claude_session(sid, str(repo), steps, day=day, start_minute=start)
        )

    session("xxx", 0)
    session("yyy", 1)  # edits app.py while xxx is at work: an overlap, and xxx's change redone
    session("zzz", 0, f"{repo}/lib/app.py", day="2026-03-05")  # the same change to another app.py
    ingest(cfg, records=False)
    first = _cross(cfg)
    assert {(r[0], r[2], r[5]) for r in first} == {
        ("yyy", "overlapping_edits", "xxx"),
        ("yyy", "redone_edit", "xxx"),
        ("zzz", "redone_edit", "xxx"),
    }
    assert first == _rebuilt(cfg)
    # zzz moves to the busy morning; then xxx's transcript goes: each update redoes only what it touched.
    session("zzz", 2, f"{repo}/lib/app.py")
    ingest(cfg, records=False)
    assert _cross(cfg) == _rebuilt(cfg)
    session("zzz", 2)
    ingest(cfg, records=False)
    moved = _cross(cfg)
    assert ("zzz", "overlapping_edits", "yyy") in {(r[0], r[2], r[5]) for r in moved}
    assert moved == _rebuilt(cfg)
    (folder / "xxx.jsonl").unlink()
    ingest(cfg, full=True, records=False)
    gone = _cross(cfg)
    assert "xxx" not in {r[5] for r in gone} and gone == _rebuilt(cfg)
