"""`git hippo watch`: keep the index and the notes index current as files change.

watchdog reports changes under every registered workspace's transcript roots, notes and extra
Markdown folders; a changed path is handled once it has been quiet for its debounce (2 s for
notes, 60 s for transcripts by default, and never later than twice that while it keeps
changing). A transcript is read from its cursor, so each turn is indexed once however often the
file changed. Every `capture.scan_seconds` (and at start) a reconciling scan ingests whatever
changed unseen: asleep, an observer that dropped events, a network file system. There is no
lookback limit: the scan is the ordinary incremental ingest.

One watcher per machine (a lock under `$HIPPO_HOME/capture/`); it opens no port. The index lock
is only ever tried, never waited on while held: a busy index makes a write wait outside it, and
past `capture.lock_timeout_s` the write stays in the outbox for the next round.
"""

from __future__ import annotations

import os
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hippo_git.capture import steps
from hippo_git.capture.heartbeat import BEAT_SECONDS, Heartbeat, lock_path
from hippo_git.capture.plan import NOTES, TRANSCRIPT, Place, Plan, build_plan
from hippo_git.capture.workspaces import registered
from hippo_git.config import Config
from hippo_git.files import FileLock


class WatchLock(FileLock):
    def __init__(self, home: Path) -> None:
        super().__init__(
            lock_path(home),
            busy="another watcher is already running on this machine",
            hint="one watcher serves every workspace: `git hippo watch status`",
        )


@dataclass
class _Pending:
    """A changed file waiting for its changes to settle before it is ingested."""

    path: str
    place: Place  # the watched place it is under
    first: float
    last: float


class _Collector:
    """Changed paths, collected from watchdog's thread, handed to the loop when quiet long enough."""

    def __init__(self, wake: threading.Event) -> None:
        self.plan = Plan()
        self.items: dict[str, _Pending] = {}
        self.lock = threading.Lock()
        self.wake = wake

    def dispatch(self, event: Any) -> None:  # watchdog's handler interface
        if event.is_directory and event.event_type == "modified":
            return
        for raw in (event.src_path, getattr(event, "dest_path", "")):
            if not raw:
                continue
            path = os.fsdecode(raw)
            place = self.plan.classify(path)
            if place is None:
                continue
            now = time.monotonic()
            with self.lock:
                item = self.items.get(path)
                if item is None:
                    self.items[path] = _Pending(path, place, now, now)
                else:
                    item.last = now
        self.wake.set()

    def take_due(self, debounce: Callable[[Place], float]) -> tuple[list[_Pending], float | None]:
        """The items quiet for their debounce (or waiting twice that), and when the next is due."""
        now = time.monotonic()
        due: list[_Pending] = []
        nxt: float | None = None
        with self.lock:
            for path, item in list(self.items.items()):
                wait = debounce(item.place)
                at = min(item.last + wait, item.first + 2 * wait)
                if at <= now:
                    due.append(item)
                    del self.items[path]
                else:
                    nxt = at if nxt is None else min(nxt, at)
        return due, nxt


class Watcher:
    """The loop; `run()` returns when `stop` is set. `roots`: the workspaces to serve (default:
    the registered ones, re-read at every scan). `ready` is set once the first scan is done and
    the observer is watching."""

    def __init__(
        self,
        home: Path,
        *,
        roots: list[Path] | None = None,
        env: dict[str, str] | None = None,
        stop: threading.Event | None = None,
        log: Callable[[str], None] | None = None,
        observe: bool = True,
    ) -> None:
        self.home = home
        self.observe = observe  # False: no file events, the reconciling scan alone (slow file systems)
        self.roots = roots
        self.env = env
        self.stop = stop or threading.Event()
        self.wake = threading.Event()
        self.collector = _Collector(self.wake)
        self.beat = Heartbeat(pid=os.getpid(), started=time.time())
        self.log = log or (lambda _msg: None)
        self._observer: Any = None
        self._observed: tuple[tuple[str, bool], ...] = ()
        self.ready = threading.Event()

    # --- settings ---------------------------------------------------------------------------

    def _settings(self) -> Config | None:
        return next(iter(self.collector.plan.configs.values()), None)

    def _debounce(self, place: Place) -> float:
        cfg = self.collector.plan.configs.get(place.workspaces[0]) or self._settings()
        if cfg is None:
            return 1.0
        ms = cfg.capture.notes_debounce_ms if place.kind == NOTES else cfg.capture.transcripts_debounce_ms
        return ms / 1000.0

    def _scan_every(self) -> float:
        cfg = self._settings()
        return float(cfg.capture.scan_seconds if cfg is not None else 300)

    # --- the loop ---------------------------------------------------------------------------

    def run(self) -> None:
        lock = WatchLock(self.home)
        lock.acquire()
        try:
            self._plan()
            self.scan()
            self.ready.set()
            next_scan = time.monotonic() + self._scan_every()
            next_beat = time.monotonic() + BEAT_SECONDS
            while not self.stop.is_set():
                self.wake.clear()  # before taking: a change arriving meanwhile wakes the wait below
                due, nxt = self.collector.take_due(self._debounce)
                if due:
                    self.handle(due)
                now = time.monotonic()
                if now >= next_scan:
                    self._plan()
                    self.scan()
                    next_scan = time.monotonic() + self._scan_every()
                if now >= next_beat:
                    self.beat.save(self.home)
                    next_beat = now + BEAT_SECONDS
                until = min(next_scan, next_beat, nxt if nxt is not None else next_scan)
                self.wake.wait(max(0.0, until - time.monotonic()))
                if self.stop.is_set():
                    break
        finally:
            self._stop_observer()
            lock.release()

    def request_stop(self) -> None:
        self.stop.set()
        self.wake.set()

    def _plan(self) -> None:
        roots = self.roots if self.roots is not None else registered(self.home)
        plan = build_plan(roots, self.env)
        for problem in plan.problems:
            self._error(f"cannot read a workspace's settings: {problem}")
        self.collector.plan = plan
        if self.observe and plan.key() != self._observed:
            self._stop_observer()
            self._start_observer(plan)

    def _start_observer(self, plan: Plan) -> None:
        from watchdog.observers import Observer

        observer = Observer()
        for path, recursive in plan.key():
            try:
                observer.schedule(self.collector, path, recursive=recursive)  # type: ignore[arg-type]
            except OSError as exc:  # e.g. out of inotify watches: the scan still covers it
                self._error(f"cannot watch {path}: {exc}")
        observer.daemon = True
        observer.start()
        self._observer, self._observed = observer, plan.key()
        self.beat.watching = [p for p, _ in plan.key()]

    def _stop_observer(self) -> None:
        if self._observer is not None:
            self._observer.stop()
            self._observer.join(timeout=5)
            self._observer = None
            self._observed = ()

    def _error(self, message: str) -> None:
        self.beat.errors += 1
        self.beat.last_error = message[:500]
        self.log(message)

    # --- the work ---------------------------------------------------------------------------

    def _replay(self) -> None:
        result = steps.replay(self.home)
        if result.done:
            self.log(f"outbox: replayed {len(result.done)} item(s)")
        if result.failed:
            self._error(f"outbox: {result.failed} failed again: {result.error}")

    def scan(self) -> None:
        """The reconciling scan: replay the outbox, then ingest every workspace incrementally."""
        self._replay()
        for cfg in self.collector.plan.configs.values():
            try:
                summary = steps.ingest_workspace(cfg)
                self._counted(summary.turns_added)
                steps.refresh_notes(cfg)
            except Exception as exc:
                self._error(f"scan of {cfg.root}: {_describe(exc)}")
        self.beat.scans += 1
        self.beat.last_scan = time.time()
        self.beat.save(self.home)

    def handle(self, due: list[_Pending]) -> None:
        self._replay()
        notes: set[str] = set()
        for item in due:
            place = item.place
            if place.kind == NOTES:
                notes.update(place.workspaces)
                continue
            if place.kind == TRANSCRIPT:
                self._transcript(Path(item.path), place)
        for ws in sorted(notes):
            cfg = self.collector.plan.configs.get(ws)
            if cfg is not None:
                try:
                    steps.refresh_notes(cfg)
                except Exception as exc:
                    self._error(f"notes of {ws}: {_describe(exc)}")
        self.beat.save(self.home)

    def _transcript(self, path: Path, place: Place) -> None:
        from hippo_git.transcripts.registry import get_adapter

        if not path.is_file():
            return  # deleted, or a folder: the scan settles what it held
        try:
            adapter = get_adapter(place.harness)
            sources = list(adapter.discover(path))
        except Exception as exc:
            self._error(f"{path}: {_describe(exc)}")
            return
        for ws in place.workspaces:
            cfg = self.collector.plan.configs.get(ws)
            if cfg is None:
                continue
            try:
                if sources:
                    for source in sources:
                        self._counted(steps.ingest_source(cfg, place.harness, source).turns_added)
                elif not adapter.append_only:
                    # A database changes in files that are not sources themselves (its -wal, a
                    # storage folder's parts): read that harness's places from their cursors.
                    self._counted(steps.ingest_workspace(cfg).turns_added)
            except Exception as exc:
                self._error(f"{path}: {_describe(exc)}")

    def _counted(self, turns: int) -> None:
        self.beat.ingests += 1
        self.beat.turns_added += turns
        self.beat.last_ingest = time.time()


def _describe(exc: BaseException) -> str:
    from hippo_git.errors import HippoError

    if isinstance(exc, HippoError):
        return exc.message
    return f"{type(exc).__name__}: {exc}" + (
        "" if isinstance(exc, OSError) else "\n" + "".join(traceback.format_exception(exc))
    )
