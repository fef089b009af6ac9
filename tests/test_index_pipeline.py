"""Ingest with worker processes (`index.pipeline`): the same index as in process, a dead worker
is not fatal, and neither a killed ingest nor Ctrl-C leaves a worker behind."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import WORKERS_ENV
from hippo_git.errors import ConfigError
from hippo_git.index import pipeline
from hippo_git.index.ingest import ingest
from hippo_git.index.prepare import Task
from hippo_git.index.scrub import Scrubber
from hippo_git.index.workers import Worker, cpu_count
from tests.conftest import corpus, make_repo
from tests.index_support import config, dump_turns, fts_consistent, hippo_home, make_corpus

STABLE = {
    "sources": "SELECT path, harness, size, mtime_ns, head_hash, offset, state_json, turns FROM sources ORDER BY path",
    "sessions": "SELECT id, harness, cwd, title, started, ended, parent_id, model, git_branch, turns "
    "FROM sessions ORDER BY id",
    "paths": "SELECT * FROM session_paths ORDER BY 1, 2",
    "mentions": "SELECT * FROM session_mentions ORDER BY 1, 2, 3",
}


def dump(index: Path) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(index)
    try:
        return {name: conn.execute(sql).fetchall() for name, sql in STABLE.items()}
    finally:
        conn.close()


def _processes() -> list[tuple[int, int, str, str]]:
    """(pid, ppid, state, command line) of every process, from `ps` (Linux and macOS alike: the
    CI matrix has both, and macOS has no /proc)."""
    out = subprocess.run(
        ["ps", "-A", "-o", "pid=", "-o", "ppid=", "-o", "stat=", "-o", "args="],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    rows = []
    for line in out.splitlines():
        parts = line.split(None, 3)
        if len(parts) == 4 and parts[0].isdigit() and parts[1].isdigit():
            rows.append((int(parts[0]), int(parts[1]), parts[2], parts[3]))
    return rows


def _live_worker(state: str, args: str) -> bool:
    return "hippo_git.index.worker" in args and not state.startswith("Z")


def workers_of(parent: int) -> list[int]:
    """Live `hippo_git.index.worker` processes whose parent is `parent`."""
    return [pid for pid, ppid, state, args in _processes() if ppid == parent and _live_worker(state, args)]


def any_worker_alive(pids: list[int]) -> bool:
    wanted = set(pids)
    return any(pid in wanted and _live_worker(state, args) for pid, _, state, args in _processes())


def wait_for(predicate: Any, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


@pytest.fixture(scope="module")
def bulk(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("bulk")
    make_corpus(folder, files=400, exchanges=40)
    return folder


def test_workers_build_the_same_index_as_in_process(
    tmp_path: Path, bulk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    roots = {
        "claude-code": [corpus("transcripts", "claude-code"), bulk],
        "codex": [corpus("transcripts", "codex")],
    }
    repo = make_repo(tmp_path / "repo")
    results = []
    for workers in (0, 2):
        monkeypatch.setenv("HIPPO_HOME", str(tmp_path / f"home-{workers}"))
        cfg = config(repo, roots)
        summary = ingest(cfg, records=False, workers=workers)
        assert summary.failed == [] and summary.turns_added > 10_000
        results.append((summary.as_dict(), dump_turns(cfg.index_path), dump(cfg.index_path)))
        assert fts_consistent(cfg.index_path)
    (s0, turns0, rest0), (s2, turns2, rest2) = results
    for s in (s0, s2):
        s.pop("seconds")
    assert s0 == s2
    assert turns0 == turns2
    assert rest0 == rest2


def test_a_dead_worker_is_not_fatal(bulk: Path) -> None:
    files = sorted(bulk.rglob("*.jsonl"))
    tasks = [Task("claude-code", str(p), p.stat().st_size, False, None, False) for p in files]
    expected = list(pipeline.prepared(tasks, 0))
    stream = pipeline.prepared(tasks, 2)
    got = [next(stream)]
    victims = workers_of(os.getpid())
    assert len(victims) == 2
    os.kill(victims[0], signal.SIGKILL)
    got += list(stream)
    assert [(p.offset, p.sessions, p.error) for p in got] == [
        (p.offset, p.sessions, p.error) for p in expected
    ]
    assert wait_for(lambda: not any_worker_alive(victims), 5)


def spawn_ingest(repo: Path, env: dict[str, str], **kwargs: Any) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "hippo_git", "ingest"],
        cwd=repo,
        env={**os.environ, **env},
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,
    )


def test_a_killed_ingest_leaves_no_worker_and_the_next_run_completes(tmp_path: Path, bulk: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    cfg = config(repo, {"claude-code": [bulk]})
    proc = spawn_ingest(repo, {"HIPPO_INGEST_WORKERS": "2"})
    try:
        assert wait_for(lambda: len(workers_of(proc.pid)) == 2, 30), "the ingest never started its workers"
        pids = workers_of(proc.pid)
        os.kill(proc.pid, signal.SIGKILL)
        proc.communicate()
        assert wait_for(lambda: not any_worker_alive(pids), 10), "workers outlived their killed ingest"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    finished = ingest(cfg, records=False, workers=2)
    assert finished.failed == []
    conn = sqlite3.connect(cfg.index_path)
    assert conn.execute("SELECT count(*) FROM sources").fetchone()[0] == 400
    conn.close()
    assert fts_consistent(cfg.index_path)


def test_ctrl_c_stops_ingest_and_its_workers_without_a_traceback(tmp_path: Path, bulk: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    config(repo, {"claude-code": [bulk]})
    proc = spawn_ingest(repo, {"HIPPO_INGEST_WORKERS": "2"}, start_new_session=True)
    try:
        assert wait_for(lambda: len(workers_of(proc.pid)) == 2, 30), "the ingest never started its workers"
        pids = workers_of(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)  # what a terminal sends the whole foreground group
        _, err = proc.communicate(timeout=30)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    assert not any_worker_alive(pids)


def test_worker_count() -> None:
    assert pipeline.worker_count(0, 100, 10**10) == 0
    assert pipeline.worker_count(4, 3, 10) == 3  # never more workers than sources
    assert pipeline.worker_count(1, 3, 10) == 1  # one worker beside the writer is a pipeline too
    assert pipeline.worker_count(4, 1, 10**10) == 0  # one source: in process
    assert pipeline.worker_count(None, 100, 1000) == 0  # a small ingest (an agent hook's) stays in process
    cpus = cpu_count()
    # One per CPU but the writer's: it prepares whenever the chunk it needs next is not in.
    assert pipeline.worker_count(None, 100, pipeline.POOL_MIN_BYTES) == (
        min(100, cpus - 1) if cpus > 1 else 0
    )


def test_workers_setting_and_env(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    repo = make_repo(tmp_path / "repo")
    assert config(repo).ingest_workers is None  # "auto"
    hippo_home().mkdir(parents=True, exist_ok=True)
    (hippo_home() / "config.toml").write_text("[ingest]\nworkers = 3\n")
    cfg = config(repo)
    assert cfg.ingest_workers == 3
    assert {
        "key": "ingest.workers",
        "value": 3,
        "source": str(hippo_home() / "config.toml"),
    } in cfg.effective()
    monkeypatch.setenv(WORKERS_ENV, "0")
    assert config(repo).ingest_workers == 0
    monkeypatch.setenv(WORKERS_ENV, "many")
    with pytest.raises(ConfigError, match="HIPPO_INGEST_WORKERS='many' is not a worker count"):
        config(repo)
    monkeypatch.delenv(WORKERS_ENV)
    (hippo_home() / "config.toml").write_text("[ingest]\nworkers = -1\n")
    with pytest.raises(ConfigError, match="'ingest.workers' must be"):
        config(repo)


def test_bad_workers_env_is_one_line_error(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    proc = spawn_ingest(repo, {"HIPPO_INGEST_WORKERS": "lots"})
    _, err = proc.communicate(timeout=60)
    assert proc.returncode == 1
    assert "HIPPO_INGEST_WORKERS='lots' is not a worker count" in err and "Traceback" not in err
    assert len(err.strip().splitlines()) <= 2  # the error and its hint


@pytest.mark.skipif(cpu_count() < 2, reason="auto uses no worker on one CPU")
def test_workers_start_during_discovery_once_there_is_much_to_read(
    tmp_path: Path, bulk: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Auto: the workers start when the bytes found cross POOL_MIN_BYTES, while discovery goes on
    (their start-up overlaps it); the pipeline then uses them and starts none of its own."""
    import hippo_git.index.ingest as ingest_module

    calls: list[tuple[str, int, int]] = []
    found = [0]
    real_discover, real_start = ingest_module.discover_sources, pipeline.start_workers

    def discover(*args: Any) -> Any:
        for src in real_discover(*args):
            found[0] += 1
            yield src

    def start(where: str) -> Any:
        def run(n: int, arrived: Any = None) -> list[Worker]:
            calls.append((where, n, found[0]))
            return real_start(n, arrived)

        return run

    monkeypatch.setattr(ingest_module, "discover_sources", discover)
    monkeypatch.setattr(ingest_module, "start_workers", start("ingest"))
    monkeypatch.setattr(pipeline, "start_workers", start("pipeline"))
    monkeypatch.setattr(ingest_module, "POOL_MIN_BYTES", 64 * 1024)
    monkeypatch.setattr(pipeline, "POOL_MIN_BYTES", 64 * 1024)
    cfg = config(make_repo(tmp_path / "repo"), {"claude-code": [bulk]})
    summary = ingest(cfg, records=False)
    files = summary.files_read
    assert files == 400 and summary.failed == []
    (where, n, seen), *rest = calls
    assert where == "ingest" and n == cpu_count() - 1 and 1 < seen < files  # before discovery ended
    assert rest == [("pipeline", 0, files)]  # none started beyond those
    assert fts_consistent(cfg.index_path)


def test_chunks_stay_small_enough_for_the_pipe() -> None:
    long = "/x" * 2000
    tasks = [Task("claude-code", f"{long}/{n}.jsonl", 10, False, None, False) for n in range(40)]
    chunks = pipeline._chunks(tasks)
    assert all(sum(len(t.path) for t in c) <= pipeline.CHUNK_PATH_CHARS for c in chunks)
    assert [t for c in chunks for t in c] == tasks


def test_chunks_shrink_towards_the_end() -> None:
    """The last chunks a worker holds are small, so the writer does not wait long for them."""
    tasks = [Task("claude-code", f"/t/{n}.jsonl", 100_000, False, None, False) for n in range(2000)]
    chunks = pipeline._chunks(tasks)
    sizes = [sum(t.size for t in c) for c in chunks]
    assert [t for c in chunks for t in c] == tasks
    assert max(sizes) <= pipeline.CHUNK_BYTES
    left = sum(sizes)
    for size in sizes:
        left -= size
        assert size <= max(100_000, left // pipeline.TAIL_SHARE + 100_000)  # a task more at most
    assert sizes[-pipeline.AHEAD :] == [100_000] * pipeline.AHEAD  # one source each at the very end
    assert sizes[0] > pipeline.CHUNK_BYTES - 100_000  # full-sized until the tail


def test_the_writer_prepares_chunks_itself_instead_of_waiting(bulk: Path) -> None:
    files = sorted(bulk.rglob("*.jsonl"))
    tasks = [Task("claude-code", str(p), p.stat().st_size, False, None, False) for p in files]
    chunks = [tasks[n : n + 8] for n in range(0, len(tasks), 8)]
    expected = [pipeline.prepare(task, Scrubber()) for task in tasks]
    pool = pipeline._Pool([Worker("hippo_git.index.worker")], chunks, Scrubber())
    try:
        got = []
        for i in range(len(chunks)):
            results = pool.take(i)
            assert results is not None
            got += results
    finally:
        pool.close()
    owners = set(pool.owner.values())
    # A worker takes a while to start: the first chunks beyond what it was sent are prepared here.
    assert owners == {-1, 0}
    assert [(p.offset, p.sessions, p.error) for p in got] == [
        (p.offset, p.sessions, p.error) for p in expected
    ]


def test_a_reply_that_does_not_unpickle_closes_the_worker(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "garbled_worker.py").write_text(
        "import sys\n"
        "sys.stdin.buffer.read(1)\n"
        "sys.stdout.buffer.write((7).to_bytes(8, 'big') + b'X\\x01\\x00\\x00\\x00\\xbd.')\n"
        "sys.stdout.buffer.flush()\n"
    )
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    worker = Worker("garbled_worker")
    assert worker.send(b"x")
    assert worker.receive() is None
    assert not worker.alive
