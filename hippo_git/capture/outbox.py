"""The outbox: writes that did not make it, kept under `$HIPPO_HOME/outbox/` and replayed in order.

Every capture write is announced here before it starts (a write-ahead item) and the item is
removed once the write committed. So a write that fails (the index locked past its timeout, a
full disk, a corrupt file) or a process killed halfway leaves its item behind, and the next run
replays it. Items say what to do, not what to write (ingest this transcript from its cursor,
re-read these notes), so replaying one twice changes nothing: the index holds every turn once.
Only an episode summary carries its text, since asking the model again would give another.

A full disk would also stop the outbox itself, so the folder keeps a small reserve file: when an
item cannot be written for lack of space, the reserve is given up to make room for it.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.files import FileLock, pid_alive, write_json_atomic

FOLDER = "outbox"
RESERVE = ".reserve"
RESERVE_BYTES = 16 * 1024  # room for a few items; not so much that the failed write fits in it
ITEM_SUFFIX = ".json"
VERSION = 1


def outbox_dir(home: Path) -> Path:
    return home / FOLDER


@dataclass(frozen=True)
class Item:
    """One write waiting in the outbox: its file, kind, payload, writer and failed attempts."""

    path: Path
    kind: str
    data: dict[str, Any]
    created: float  # epoch seconds
    pid: int
    attempts: int = 0
    error: str = ""

    @property
    def name(self) -> str:
        return self.path.name

    def in_flight(self) -> bool:
        """Written ahead by a process that is still running (its write may yet commit)."""
        return self.attempts == 0 and self.pid != os.getpid() and pid_alive(self.pid)


@dataclass
class ReplayResult:
    """What one outbox replay did: items replayed, the one it stopped at, or that it was skipped."""

    done: list[str] = field(default_factory=list)  # item names replayed and removed
    failed: str | None = None  # the item that failed (replay stops there, to keep the order)
    error: str = ""
    skipped: bool = False  # another process was replaying

    def as_dict(self) -> dict[str, Any]:
        return {"replayed": self.done, "failed": self.failed, "error": self.error, "skipped": self.skipped}


def ensure_reserve(home: Path) -> None:
    """Put the reserve back (after a full disk gave it up); best effort."""
    path = outbox_dir(home) / RESERVE
    with contextlib.suppress(OSError):
        if path.exists() and path.stat().st_size >= RESERVE_BYTES:
            return
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("wb") as fh:
            fh.write(b"\0" * RESERVE_BYTES)


def put(home: Path, kind: str, data: Mapping[str, Any], *, error: str = "", attempts: int = 0) -> Path | None:
    """Write an item; None when even the reserve could not make room (the caller carries on: the
    watcher's reconciling scan still finds what the item would have named)."""
    folder = outbox_dir(home)
    name = f"{time.time_ns():020d}-{os.getpid()}-{kind}{ITEM_SUFFIX}"
    record = {
        "version": VERSION,
        "kind": kind,
        "data": dict(data),
        "created": time.time(),
        "pid": os.getpid(),
        "attempts": attempts,
        "error": error[:500],
    }
    for last in (False, True):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            write_json_atomic(folder / name, record, indent=None)
            return folder / name
        except OSError as exc:
            if last or exc.errno not in (errno.ENOSPC, errno.EDQUOT, errno.EFBIG):
                return None
            with contextlib.suppress(OSError):
                (folder / RESERVE).unlink()
    return None


def mark_failed(item: Path, error: str) -> None:
    """Record why the write failed (and that it is no longer in flight); best effort."""
    with contextlib.suppress(OSError, ValueError):
        record = json.loads(item.read_text(encoding="utf-8"))
        record["attempts"] = int(record.get("attempts") or 0) + 1
        record["error"] = error[:500]
        write_json_atomic(item, record, indent=None)


def done(item: Path | None) -> None:
    if item is not None:
        with contextlib.suppress(FileNotFoundError):
            item.unlink()


def pending(home: Path) -> list[Item]:
    """Every item, oldest first (names start with the time they were written)."""
    try:
        names = sorted(n for n in os.listdir(outbox_dir(home)) if n.endswith(ITEM_SUFFIX) and n[0] != ".")
    except FileNotFoundError:
        return []
    items = []
    for name in names:
        path = outbox_dir(home) / name
        try:
            record = json.loads(path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            continue
        except (OSError, ValueError):
            # A damaged item: what it named is found again by the watcher's scan.
            try:
                created = path.stat().st_mtime
            except OSError:
                continue
            record = {"kind": "unreadable", "data": {}, "created": created, "pid": 0}
        items.append(
            Item(
                path=path,
                kind=str(record.get("kind", "")),
                data=record.get("data") if isinstance(record.get("data"), dict) else {},
                created=float(record.get("created") or 0),
                pid=int(record.get("pid") or 0),
                attempts=int(record.get("attempts") or 0),
                error=str(record.get("error") or ""),
            )
        )
    return items


def waiting(home: Path) -> list[Item]:
    """The items a replay would take: pending and not in flight in another live process."""
    return [item for item in pending(home) if not item.in_flight()]


Handler = Callable[[dict[str, Any]], None]


def replay(home: Path, handlers: Mapping[str, Handler]) -> ReplayResult:
    """Replay the waiting items in order; stop at the first that fails again (it stays, and so do
    the ones after it, so the order holds). One replay at a time per machine."""
    result = ReplayResult()
    if not waiting(home):
        ensure_reserve(home)
        return result
    lock = FileLock(outbox_dir(home) / ".replay.lock", busy="another process replays the outbox", hint="")
    try:
        lock.acquire()
    except Exception:
        result.skipped = True
        return result
    try:
        for item in waiting(home):
            handler = handlers.get(item.kind)
            if item.kind == "unreadable":
                done(item.path)  # nothing it says can be done; what it named is found by a scan
                result.done.append(item.name)
                continue
            if handler is None:
                result.failed, result.error = item.name, f"no handler for {item.kind!r} items"
                break
            try:
                handler(item.data)
            except Exception as exc:
                mark_failed(item.path, f"{type(exc).__name__}: {exc}")
                result.failed, result.error = item.name, f"{type(exc).__name__}: {exc}"
                break
            done(item.path)
            result.done.append(item.name)
    finally:
        lock.release()
    if result.failed is None:
        ensure_reserve(home)
    return result


@contextlib.contextmanager
def write_ahead(home: Path, kind: str, data: Mapping[str, Any]) -> Iterator[Path | None]:
    """Announce a write; the item goes when the block finishes, stays (marked failed) when it
    raises, and stays as it is when the process dies inside it."""
    item = put(home, kind, data)
    try:
        yield item
    except BaseException as exc:
        if item is not None:
            mark_failed(item, f"{type(exc).__name__}: {exc}")
        raise
    done(item)


def oldest_age(home: Path, now: float | None = None) -> float | None:
    """Seconds since the oldest waiting item was written, or None when nothing waits."""
    items = waiting(home)
    if not items:
        return None
    return max(0.0, (time.time() if now is None else now) - min(i.created for i in items))
