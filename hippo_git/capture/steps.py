"""The writes a capture makes, each announced in the outbox first, and their replay.

A write that needs the index lock tries it and, while another ingest holds it, waits without
holding anything (the lock is non-blocking; this polls) up to `capture.lock_timeout_s`; past
that, the write stays in the outbox for the next run. What fails for any other reason (a full
disk, a damaged index) stays there too.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from hippo_git.capture import outbox
from hippo_git.config import Config, load_config
from hippo_git.errors import LockedError
from hippo_git.index.ingest import IngestSummary

T = TypeVar("T")
POLL_SECONDS = 0.25

INGEST, SCAN, NOTES, EPISODE = "ingest", "scan", "notes", "episode"


def with_lock_retry(fn: Callable[[], T], timeout_s: float) -> T:
    """`fn()`, tried again while the index lock is busy, for up to `timeout_s` seconds."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            return fn()
        except LockedError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(POLL_SECONDS)


def _ingest(cfg: Config, root: Path | None = None, harness: str | None = None) -> IngestSummary:
    from hippo_git.signals.refresh import ingest

    return ingest(cfg, root=root, harness=harness)


def ingest_source(cfg: Config, harness: str, path: Path, *, timeout_s: float | None = None) -> IngestSummary:
    """Read one transcript from its cursor into the index (announced in the outbox first)."""
    data = {"workspace": str(cfg.root), "harness": harness, "path": str(path)}
    wait = cfg.capture.lock_timeout_s if timeout_s is None else timeout_s
    with outbox.write_ahead(cfg.home, INGEST, data):
        return with_lock_retry(lambda: _ingest(cfg, path, harness), wait)


def ingest_workspace(cfg: Config, *, timeout_s: float | None = None) -> IngestSummary:
    """Every configured transcript of the workspace, from their cursors (the reconciling scan)."""
    wait = cfg.capture.lock_timeout_s if timeout_s is None else timeout_s
    with outbox.write_ahead(cfg.home, SCAN, {"workspace": str(cfg.root)}):
        return with_lock_retry(lambda: _ingest(cfg), wait)


def refresh_notes(cfg: Config) -> int:
    """Re-read the workspace's changed notes into its notes index, and its changed files of
    `capture.markdown_dirs` into theirs; the number of files read again or dropped."""
    from hippo_git.capture import markdown
    from hippo_git.notes.notes_index import refresh_notes_index

    with outbox.write_ahead(cfg.home, NOTES, {"workspace": str(cfg.root)}):
        result = refresh_notes_index(cfg)
        docs = markdown.refresh(cfg)
    return len(result.updated) + len(result.removed) + len(docs.updated) + len(docs.removed)


def _gone(data: dict[str, Any]) -> bool:
    """The item's workspace is no longer a git working tree: nothing of it is left to write."""
    return not (Path(str(data.get("workspace", ""))) / ".git").exists()


def _replay_ingest(data: dict[str, Any]) -> None:
    if _gone(data):
        return
    cfg = load_config(Path(data["workspace"]))
    path = Path(data["path"])
    if path.exists():  # a transcript deleted since has nothing left to read
        with_lock_retry(lambda: _ingest(cfg, path, str(data["harness"])), cfg.capture.lock_timeout_s)


def _replay_scan(data: dict[str, Any]) -> None:
    if _gone(data):
        return
    cfg = load_config(Path(data["workspace"]))
    with_lock_retry(lambda: _ingest(cfg), cfg.capture.lock_timeout_s)


def _replay_notes(data: dict[str, Any]) -> None:
    from hippo_git.capture import markdown
    from hippo_git.notes.notes_index import refresh_notes_index

    if not _gone(data):
        cfg = load_config(Path(data["workspace"]))
        refresh_notes_index(cfg)
        markdown.refresh(cfg)


def _replay_episode(data: dict[str, Any]) -> None:
    from hippo_git.capture.episodes import store_episode

    if _gone(data):
        return
    cfg = load_config(Path(data["workspace"]))
    with_lock_retry(
        lambda: store_episode(cfg, str(data["session_id"]), str(data["text"]), str(data.get("ts") or "")),
        cfg.capture.lock_timeout_s,
    )


HANDLERS: dict[str, outbox.Handler] = {
    INGEST: _replay_ingest,
    SCAN: _replay_scan,
    NOTES: _replay_notes,
    EPISODE: _replay_episode,
}


def replay(home: Path) -> outbox.ReplayResult:
    return outbox.replay(home, HANDLERS)
