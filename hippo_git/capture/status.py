"""What `watch status` and `doctor` say about live capture: the watcher, its service, the outbox."""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hippo_git.capture import outbox, service
from hippo_git.capture.heartbeat import Heartbeat, lock_path, read_heartbeat, silent_after
from hippo_git.capture.workspaces import registered
from hippo_git.files import lock_state

WATCH = "watch"


def watch_spec(home: Path, env: Mapping[str, str]) -> service.ServiceSpec:
    keep = {k: env[k] for k in ("HIPPO_HOME", "XDG_DATA_HOME") if env.get(k)}
    return service.ServiceSpec(
        name=WATCH,
        description="hippo_git watcher: keeps the transcript index and notes current",
        argv=service.self_argv("watch"),
        log=home / "logs" / "watch.log",
        env=keep,
    )


@dataclass(frozen=True)
class WatchStatus:
    """The state of live capture: watcher process, installed service, heartbeat and outbox backlog."""

    running: bool
    pid: int | None
    installed: service.Installed | None
    heartbeat: Heartbeat | None
    silent: bool  # installed (or was running) but the heartbeat is too old
    outbox: int
    oldest_s: float | None
    workspaces: list[str]

    def as_dict(self) -> dict[str, Any]:
        beat = self.heartbeat
        return {
            "running": self.running,
            "pid": self.pid,
            "installed": self.installed.as_dict() if self.installed else None,
            "silent": self.silent,
            "heartbeat": None
            if beat is None
            else {
                "beat_age_s": round(time.time() - beat.beat, 1),
                "last_ingest_age_s": round(time.time() - beat.last_ingest, 1) if beat.last_ingest else None,
                "last_scan_age_s": round(time.time() - beat.last_scan, 1) if beat.last_scan else None,
                "turns_added": beat.turns_added,
                "errors": beat.errors,
                "last_error": beat.last_error or None,
                "watching": beat.watching,
            },
            "outbox": {"pending": self.outbox, "oldest_age_s": self.oldest_s},
            "workspaces": self.workspaces,
        }


def watch_status(home: Path, env: Mapping[str, str], *, scan_seconds: int = 300) -> WatchStatus:
    running, pid = lock_state(lock_path(home))
    beat = read_heartbeat(home)
    found = service.installed(WATCH, home=home, env=env)
    stale = beat is None or time.time() - beat.beat > silent_after(scan_seconds)
    items = outbox.waiting(home)
    return WatchStatus(
        running=running,
        pid=pid if running else None,
        installed=found,
        heartbeat=beat,
        silent=found is not None and (not running or stale),
        outbox=len(items),
        oldest_s=outbox.oldest_age(home),
        workspaces=[str(p) for p in registered(home)],
    )


def age_text(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 172800:
        return f"{seconds / 3600:.1f} h"
    return f"{seconds / 86400:.1f} days"
