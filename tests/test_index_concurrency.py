"""Real processes against one index: readers while ingest writes (WAL + busy timeout), and an
ingest killed with SIGKILL at a random moment, which the next run completes with no duplicates."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hippo_git.index.db import connect
from hippo_git.index.search import search
from hippo_git.index.sessions import get_turns, list_sessions
from hippo_git.signals.refresh import ingest
from tests.conftest import make_repo
from tests.index_support import claude_lines, config, dump_turns, fts_consistent, make_corpus, write_jsonl


@pytest.fixture(scope="module")
def bulk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bulk")
    make_corpus(folder, files=300, exchanges=30)
    return folder


def spawn_ingest(repo: Path, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "hippo_git", "ingest", *args],
        cwd=repo,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def committed_sources(index: Path) -> int:
    if not index.exists():
        return 0
    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True, timeout=5)
    try:
        return int(conn.execute("SELECT count(*) FROM sources").fetchone()[0])
    except sqlite3.DatabaseError:
        return 0  # not migrated yet
    finally:
        conn.close()


def test_readers_never_fail_while_ingest_writes(tmp_path: Path, bulk: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    seed = write_jsonl(
        tmp_path / "seed" / "s-seed.jsonl", claude_lines("s-seed", "/w", [("user", "index cursor")])
    )
    cfg = config(repo, {"claude-code": [seed.parent, bulk]})
    ingest(cfg, root=seed.parent, harness="claude-code")  # an index exists before the writer starts

    for args in ((), ("--full",)):
        proc = spawn_ingest(repo, *args)
        reads = 0
        try:
            while proc.poll() is None:
                conn = connect(cfg.index_path, readonly=True)
                try:
                    assert isinstance(search(conn, "index cursor", limit=5), list)
                    sessions = list_sessions(conn, limit=3)
                    assert sessions and get_turns(conn, sessions[0].id) is not None
                finally:
                    conn.close()
                reads += 1
        finally:
            if proc.poll() is None:
                proc.kill()
            out, err = proc.communicate()
        assert proc.returncode == 0, err
        assert reads >= 3, f"the ingest ({args}) finished before readers could overlap it"
    assert fts_consistent(cfg.index_path)


def test_killed_ingest_leaves_a_consistent_index(
    tmp_path: Path, bulk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo = make_repo(tmp_path / "repo")
    cfg = config(repo, {"claude-code": [bulk]})
    kills = 0
    for patience in (0.4, 0.8, 1.6):
        before = committed_sources(cfg.index_path)
        proc = spawn_ingest(repo)
        # Kill right after a batch commits, or after `patience` seconds (maybe before any commit).
        deadline = time.monotonic() + patience
        while (
            proc.poll() is None
            and committed_sources(cfg.index_path) <= before
            and time.monotonic() < deadline
        ):
            time.sleep(0.01)
        if proc.poll() is None:
            os.kill(proc.pid, signal.SIGKILL)
            kills += 1
        proc.communicate()
        if committed_sources(cfg.index_path) == 0:
            continue  # killed before its first commit: nothing to check yet
        # Whatever was committed is whole: every source's turns are there, and FTS matches them.
        assert fts_consistent(cfg.index_path)
        conn = connect(cfg.index_path, readonly=True)
        torn = "SELECT count(*) FROM sources s WHERE s.turns != (SELECT count(*) FROM turns t WHERE t.source_id = s.id)"
        assert conn.execute(torn).fetchone()[0] == 0
        conn.close()
    assert kills >= 1

    finished = ingest(cfg)
    assert finished.failed == []
    assert committed_sources(cfg.index_path) == 300

    monkeypatch.setenv("HIPPO_HOME", str(tmp_path / "clean-home"))
    clean = config(repo, {"claude-code": [bulk]})
    ingest(clean)
    assert dump_turns(cfg.index_path) == dump_turns(clean.index_path)
    assert fts_consistent(cfg.index_path)
