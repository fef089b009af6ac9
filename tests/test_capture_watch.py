"""The watcher: live appends indexed once, the reconciling scan, compaction, one per machine, kill -9."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from hippo_git.capture.heartbeat import read_heartbeat
from hippo_git.capture.watcher import Watcher
from hippo_git.config import load_config
from hippo_git.errors import LockedError
from hippo_git.index.ingest import ingest
from tests.capture_support import capture_config, hippo_home, running, texts, turns, wait_for
from tests.conftest import run_cli
from tests.index_support import claude_lines, write_jsonl


def _fresh(
    tmp_path: Path, repo: Path, claude: Path, monkeypatch: pytest.MonkeyPatch
) -> list[tuple[object, ...]]:
    """What a clean ingest of the same transcripts holds (in another HIPPO_HOME)."""
    old = os.environ["HIPPO_HOME"]
    clean = tmp_path / "clean-home"
    monkeypatch.setenv("HIPPO_HOME", str(clean))
    try:
        capture_config(clean, claude)
        cfg = load_config(repo)
        ingest(cfg)
        return turns(cfg.index_path)
    finally:
        monkeypatch.setenv("HIPPO_HOME", old)


def _exchange(n: int) -> list[tuple[str, str]]:
    return [("user", f"question {n} about the parser cache"), ("assistant", f"answer {n} about the cache")]


def test_live_transcript_appended_in_steps_is_indexed_once_per_step(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / "claude"
    path = claude / "proj" / "live.jsonl"
    path.parent.mkdir(parents=True)
    capture_config(hippo_home(), claude)
    index = load_config(repo).index_path
    with running(repo) as watcher:
        pairs: list[tuple[str, str]] = []
        for step in range(4):
            pairs += _exchange(step)
            lines = claude_lines("live", "/work/x", pairs)
            write_jsonl(path, lines[len(lines) - 2 :], append=step > 0)
            want = len(pairs)
            assert wait_for(lambda: len(turns(index)) >= want), f"step {step} not indexed"  # noqa: B023
        assert watcher.beat.ingests >= 4
    got = turns(index)
    assert len(got) == len({(t[0], t[1]) for t in got}) == 8  # every turn once
    assert got == _fresh(tmp_path, repo, claude, monkeypatch)
    beat = read_heartbeat(hippo_home())
    assert beat is not None and beat.turns_added == 8 and beat.last_ingest > 0


def test_notes_changes_refresh_the_notes_index(tmp_path: Path, repo: Path) -> None:
    from hippo_git.notes.notes_index import open_notes_index, search

    capture_config(hippo_home(), tmp_path / "claude")
    cfg = load_config(repo)
    with running(repo):
        note = repo / "notes" / "zebra.md"
        note.parent.mkdir(exist_ok=True)
        note.write_text("# Zebra\n\nThe quagga decision lives here.\n")

        def found() -> bool:
            conn = open_notes_index(cfg)
            try:
                return bool(search(conn, "quagga", 5))
            finally:
                conn.close()

        assert wait_for(found)


def test_reconciling_scan_catches_changes_with_no_observer(tmp_path: Path, repo: Path) -> None:
    claude = tmp_path / "claude"
    path = claude / "proj" / "quiet.jsonl"
    write_jsonl(path, claude_lines("quiet", "/work/x", _exchange(0)))
    capture_config(hippo_home(), claude, scan_seconds=1)
    index = load_config(repo).index_path
    with running(repo, observe=False) as watcher:
        assert watcher._observer is None  # no file events at all
        assert len(turns(index)) == 2  # the first scan
        write_jsonl(path, claude_lines("quiet", "/work/x", _exchange(0) + _exchange(1))[2:], append=True)
        assert wait_for(lambda: len(turns(index)) == 4, timeout=20)
    assert watcher.beat.scans >= 2
    assert len(set(texts(index))) == 4


def test_transcript_shrunk_by_compaction_is_read_again(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / "claude"
    path = claude / "proj" / "compact.jsonl"
    long = [pair for n in range(4) for pair in _exchange(n)]
    write_jsonl(path, claude_lines("compact", "/work/x", long))
    capture_config(hippo_home(), claude)
    index = load_config(repo).index_path
    with running(repo):
        assert len(turns(index)) == 8
        write_jsonl(path, claude_lines("compact", "/work/x", [("user", "after compaction, a fresh start")]))
        assert wait_for(lambda: texts(index) == ["after compaction, a fresh start"])
    assert turns(index) == _fresh(tmp_path, repo, claude, monkeypatch)


def test_a_second_watcher_is_refused(tmp_path: Path, repo: Path) -> None:
    capture_config(hippo_home(), tmp_path / "claude")
    with running(repo):
        second = Watcher(hippo_home(), roots=[repo], stop=threading.Event())
        with pytest.raises(LockedError, match="another watcher is already running"):
            second.run()
        proc = run_cli(["watch"], repo)  # a second process too, with a one-line error
        assert proc.returncode == 1 and "another watcher is already running" in proc.stderr
        assert "Traceback" not in proc.stderr
        status = run_cli(["watch", "status"], repo)
        assert status.returncode == 0 and f"running: yes, pid {os.getpid()}" in status.stdout


def test_watcher_killed_with_sigkill_and_restarted_loses_nothing(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    claude = tmp_path / "claude"
    path = claude / "proj" / "killed.jsonl"
    path.parent.mkdir(parents=True)
    capture_config(hippo_home(), claude)
    index = load_config(repo).index_path
    log = tmp_path / "watch.log"

    def start() -> subprocess.Popen[bytes]:
        with log.open("ab") as out:
            return subprocess.Popen(
                [sys.executable, "-m", "hippo_git", "watch"], cwd=repo, stdout=out, stderr=out
            )

    pairs: list[tuple[str, str]] = []
    proc = start()
    try:
        assert wait_for(lambda: read_heartbeat(hippo_home()) is not None), log.read_text()
        for step in range(3):
            pairs += _exchange(step)
            write_jsonl(path, claude_lines("killed", "/work/x", pairs)[-2:], append=step > 0)
        assert wait_for(lambda: len(turns(index)) >= 2), log.read_text()
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(10)
        for step in range(3, 6):  # written while no watcher runs
            pairs += _exchange(step)
            write_jsonl(path, claude_lines("killed", "/work/x", pairs)[-2:], append=True)
        proc = start()
        assert wait_for(lambda: len(turns(index)) == 12), log.read_text()
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(20)
    assert turns(index) == _fresh(tmp_path, repo, claude, monkeypatch)
