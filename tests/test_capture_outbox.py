"""The outbox: writes that fail go there and replay in order; nothing is dropped or doubled."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from hippo_git.capture import outbox, steps
from hippo_git.capture.episodes import capture_episode
from hippo_git.config import load_config
from hippo_git.errors import LockedError
from hippo_git.index.lock import IndexLock
from tests.capture_support import capture_config, turns
from tests.index_support import claude_lines, write_jsonl

MODEL_REPLY = {"decisions": ["Keep the parser cache per file"], "preferences": [], "follow_ups": ["Bench it"]}


@pytest.fixture
def small_fs(tmp_path: Path) -> Iterator[Path]:
    """A 3 MB tmpfs (needs the right to mount: root in a container is enough)."""
    mnt = tmp_path / "small"
    mnt.mkdir()
    proc = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", str(mnt)], capture_output=True)
    if proc.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs here: {proc.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def _fill(folder: Path) -> Path:
    """Fill the file system until it says ENOSPC; returns the filler to delete later."""
    filler = folder / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o644)
    try:
        for size in (65536, 4096, 512):
            try:
                while True:
                    os.write(fd, b"x" * size)
            except OSError as exc:
                assert exc.errno == errno.ENOSPC
    finally:
        os.close(fd)
    return filler


def _exchanges(first: int, last: int) -> list[tuple[str, str]]:
    return [
        pair
        for n in range(first, last)
        for pair in (
            ("user", f"question {n}: " + "why does the parser cache miss? " * 40),
            ("assistant", f"answer {n}: " + "because the key holds the mtime. " * 40),
        )
    ]


def test_full_disk_during_ingest_and_capture_replays_everything_once(
    tmp_path: Path, repo: Path, small_fs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    home = small_fs / "home"
    monkeypatch.setenv("HIPPO_HOME", str(home))
    claude = tmp_path / "claude"
    path = claude / "proj" / "full.jsonl"
    capture_config(home, claude)
    reply = json.dumps(MODEL_REPLY)
    machine = home / "config.toml"
    argv = json.dumps([sys.executable, "-c", f"print({reply!r})"])
    machine.write_text(f"model_command = {argv}\n" + machine.read_text())
    cfg = load_config(repo)
    steps.replay(home)  # sets the outbox's reserve aside
    write_jsonl(path, claude_lines("full", "/work/x", _exchanges(0, 2)))
    assert steps.ingest_source(cfg, "claude-code", path).turns_added == 4

    filler = _fill(small_fs)
    write_jsonl(path, claude_lines("full", "/work/x", _exchanges(0, 12))[4:], append=True)
    with pytest.raises(Exception) as failed:
        steps.ingest_source(cfg, "claude-code", path)
    assert "full" in str(failed.value).lower() or getattr(failed.value, "errno", None) == errno.ENOSPC
    episode = None
    try:
        episode = capture_episode(cfg, "full", os.environ)
    except Exception as exc:  # the episode's write failed too: it waits in the outbox
        assert "full" in str(exc).lower() or getattr(exc, "errno", None) == errno.ENOSPC
    assert episode is None or not episode.written
    kinds = [item.kind for item in outbox.waiting(home)]
    assert kinds[0] == steps.INGEST and steps.EPISODE in kinds
    assert outbox.oldest_age(home) is not None

    filler.unlink()
    result = steps.replay(home)
    assert result.failed is None and len(result.done) == len(kinds)
    assert outbox.waiting(home) == []
    got = turns(cfg.index_path)
    conversation = [t for t in got if t[2] != "episode"]
    assert len(conversation) == 24 == len({(t[0], t[1]) for t in got if t[2] != "episode"})
    episodes = [t for t in got if t[2] == "episode"]
    assert len(episodes) == 1 and "Keep the parser cache per file" in episodes[0][3]
    assert steps.replay(home).done == []  # replaying again changes nothing


def test_index_locked_past_the_timeout_leaves_the_write_in_the_outbox(tmp_path: Path, repo: Path) -> None:
    home = Path(os.environ["HIPPO_HOME"])
    claude = tmp_path / "claude"
    path = write_jsonl(claude / "proj" / "busy.jsonl", claude_lines("busy", "/work/x", _exchanges(0, 1)))
    capture_config(home, claude)
    cfg = load_config(repo)
    with IndexLock(cfg.index_path), pytest.raises(LockedError):
        steps.ingest_source(cfg, "claude-code", path, timeout_s=0.3)
    [item] = outbox.waiting(home)
    assert item.kind == steps.INGEST and item.attempts == 1 and "another ingest" in item.error
    assert turns(cfg.index_path) == []
    assert steps.replay(home).done == [item.name]
    assert len(turns(cfg.index_path)) == 2


def test_a_write_killed_midway_is_replayed_by_the_next_run(tmp_path: Path, repo: Path) -> None:
    home = Path(os.environ["HIPPO_HOME"])
    claude = tmp_path / "claude"
    path = write_jsonl(claude / "proj" / "dead.jsonl", claude_lines("dead", "/work/x", _exchanges(0, 2)))
    capture_config(home, claude)
    cfg = load_config(repo)
    # A process that announces the write and dies before doing it (as SIGKILL would leave it).
    code = (
        "import os, sys; from hippo_git.capture import outbox; "
        f"outbox.put(__import__('pathlib').Path({str(home)!r}), 'ingest', "
        f"{{'workspace': {str(repo)!r}, 'harness': 'claude-code', 'path': {str(path)!r}}}); os._exit(9)"
    )
    assert subprocess.run([sys.executable, "-c", code]).returncode == 9
    assert len(outbox.waiting(home)) == 1  # its process is gone: not in flight any more
    assert len(steps.replay(home).done) == 1
    assert len(turns(cfg.index_path)) == 4


def test_replay_keeps_the_order_and_stops_at_a_failure(tmp_path: Path) -> None:
    home = tmp_path / "h"
    seen: list[int] = []

    def handler(data: dict[str, object]) -> None:
        if data["n"] == 2 and not data.get("ok"):
            raise OSError(errno.ENOSPC, "No space left on device")
        seen.append(int(str(data["n"])))

    for n in range(4):
        outbox.put(home, "test", {"n": n})
    result = outbox.replay(home, {"test": handler})
    assert seen == [0, 1] and result.failed is not None and "No space" in result.error
    assert [i.data["n"] for i in outbox.waiting(home)] == [2, 3]
    assert outbox.replay(home, {"test": lambda d: seen.append(int(str(d["n"])))}).failed is None
    assert seen == [0, 1, 2, 3]


def test_an_item_of_a_workspace_that_is_gone_replays_as_done(tmp_path: Path) -> None:
    home = Path(os.environ["HIPPO_HOME"])
    gone = tmp_path / "deleted-repo"
    outbox.put(home, steps.INGEST, {"workspace": str(gone), "harness": "claude-code", "path": "/x.jsonl"})
    outbox.put(home, steps.SCAN, {"workspace": str(gone)})
    result = steps.replay(home)
    assert result.failed is None and len(result.done) == 2 and outbox.waiting(home) == []


_LIMITED = """
import json, os, resource, signal, sys
from pathlib import Path
signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # writes past the limit fail with EFBIG instead
resource.setrlimit(resource.RLIMIT_FSIZE, (64 * 1024, 64 * 1024))
from hippo_git.capture import steps
from hippo_git.capture.episodes import capture_episode
from hippo_git.config import load_config
cfg = load_config(Path(sys.argv[1]))
failed = []
try:
    steps.ingest_source(cfg, "claude-code", Path(sys.argv[2]))
except Exception as exc:
    failed.append(type(exc).__name__ + ": " + str(exc))
# An episode is a few pages, small enough to fit under the limit: hold the index lock instead, so
# its write waits past capture.lock_timeout_s and is refused that way.
from hippo_git.index.lock import IndexLock
IndexLock(cfg.index_path).acquire()
try:
    capture_episode(cfg, "limited", os.environ)
except Exception as exc:
    failed.append(type(exc).__name__ + ": " + str(exc))
print(json.dumps(failed))
"""


def test_writes_refused_by_the_kernel_wait_in_the_outbox_and_replay_once(tmp_path: Path, repo: Path) -> None:
    """The unprivileged twin of the full-disk test: a file-size limit (RLIMIT_FSIZE) makes the kernel
    refuse the index's writes (EFBIG) during ingest, and the index lock held past the timeout refuses
    the episode summary's write, in a process of its own."""
    home = Path(os.environ["HIPPO_HOME"])
    claude = tmp_path / "claude"
    path = claude / "proj" / "limited.jsonl"
    capture_config(home, claude)
    reply = json.dumps(MODEL_REPLY)
    machine = home / "config.toml"
    machine.write_text(
        f"model_command = {json.dumps([sys.executable, '-c', f'print({reply!r})'])}\n" + machine.read_text()
    )
    cfg = load_config(repo)
    write_jsonl(path, claude_lines("limited", "/work/x", _exchanges(0, 2)))
    assert steps.ingest_source(cfg, "claude-code", path).turns_added == 4
    write_jsonl(path, claude_lines("limited", "/work/x", _exchanges(0, 12))[4:], append=True)
    proc = subprocess.run(
        [sys.executable, "-c", _LIMITED, str(repo), str(path)], capture_output=True, text=True, timeout=120
    )
    failed = json.loads(proc.stdout.strip().splitlines()[-1])
    assert len(failed) == 2, (failed, proc.stderr)
    assert "disk I/O error" in failed[0] and "another ingest" in failed[1]
    assert [i.kind for i in outbox.waiting(home)] == [steps.INGEST, steps.EPISODE], failed
    result = steps.replay(home)
    assert result.failed is None and len(result.done) == 2
    got = turns(cfg.index_path)
    conversation = [(t[0], t[1]) for t in got if t[2] != "episode"]
    assert len(conversation) == 24 == len(set(conversation))
    assert [t[2] for t in got].count("episode") == 1


def test_a_plain_ingest_replays_the_outbox_first(tmp_path: Path, repo: Path) -> None:
    """What only a replay can write (a transcript outside the configured roots, an episode's text)
    is in the index after `git hippo ingest`, and every turn once."""
    from tests.conftest import run_cli

    home = Path(os.environ["HIPPO_HOME"])
    claude = tmp_path / "claude"
    capture_config(home, claude)
    write_jsonl(claude / "proj" / "here.jsonl", claude_lines("here", "/work/x", _exchanges(0, 2)))
    assert run_cli(["ingest"], cwd=repo).returncode == 0  # the session an episode attaches to
    away = write_jsonl(tmp_path / "away" / "gone.jsonl", claude_lines("away", "/work/x", _exchanges(2, 4)))
    failed = "LockedError: another ingest holds the index"
    outbox.put(
        home,
        steps.INGEST,
        {"workspace": str(repo), "harness": "claude-code", "path": str(away)},
        error=failed,
        attempts=1,
    )
    episode = {"workspace": str(repo), "session_id": "here", "text": "Decided: keep the cache", "ts": ""}
    outbox.put(home, steps.EPISODE, episode, error=failed, attempts=1)

    proc = run_cli(["ingest", "--json"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert len(json.loads(proc.stdout)["outbox"]["replayed"]) == 2
    assert "replayed 2 waiting write(s)" in proc.stderr
    assert outbox.waiting(home) == []
    for _ in range(2):  # and a second run changes nothing
        got = turns(load_config(repo).index_path)
        assert sorted({t[0] for t in got}) == ["away", "here"]
        assert len([t for t in got if t[2] != "episode"]) == 8
        assert len(got) == 9 == len({(t[0], t[1]) for t in got})
        assert [t[3] for t in got if t[2] == "episode"] == ["Decided: keep the cache"]
        assert run_cli(["ingest"], cwd=repo).returncode == 0
