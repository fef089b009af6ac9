"""Helpers for the live-capture tests: a watched workspace, a watcher thread, waiting for the index."""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from hippo_git.capture.watcher import Watcher


def capture_config(home: Path, claude: Path, *, debounce_ms: int = 150, scan_seconds: int = 3600) -> None:
    """Machine config: Claude Code transcripts under `claude`, short debounces, a rare scan."""
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(
        "[transcripts.roots]\n"
        f'"claude-code" = {json.dumps([str(claude)])}\n'
        "[capture]\n"
        f"transcripts_debounce_ms = {debounce_ms}\n"
        f"notes_debounce_ms = {debounce_ms}\n"
        f"scan_seconds = {scan_seconds}\n"
        "lock_timeout_s = 5\n"
    )


def hippo_home() -> Path:
    return Path(os.environ["HIPPO_HOME"])


@contextmanager
def running(repo: Path, **kwargs: Any) -> Iterator[Watcher]:
    """A watcher for `repo` in a thread, ready (first scan done) when the block starts."""
    watcher = Watcher(hippo_home(), roots=[repo], **kwargs)
    errors: list[BaseException] = []

    def target() -> None:
        try:
            watcher.run()
        except BaseException as exc:  # surfaced by the test below
            errors.append(exc)

    thread = threading.Thread(target=target, daemon=True)
    thread.start()
    assert watcher.ready.wait(30) or errors, "the watcher did not start"
    if errors:
        raise errors[0]
    try:
        yield watcher
    finally:
        watcher.request_stop()
        thread.join(30)
        assert not thread.is_alive()
    if errors:
        raise errors[0]


def turns(index: Path) -> list[tuple[Any, ...]]:
    if not index.exists():
        return []
    conn = sqlite3.connect(index)
    try:
        return conn.execute(
            "SELECT session_id, seq, kind, text FROM turns ORDER BY session_id, seq"
        ).fetchall()
    except sqlite3.OperationalError:
        return []
    finally:
        conn.close()


def wait_for(check: Callable[[], bool], timeout: float = 30.0) -> bool:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if check():
            return True
        time.sleep(0.05)
    return check()


def texts(index: Path) -> list[str]:
    return [t[3] for t in turns(index)]
