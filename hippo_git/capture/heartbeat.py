"""The watcher's heartbeat, `$HIPPO_HOME/capture/watch.json`: when it last looked, scanned and ingested.

`doctor` reads it to tell a running watcher from a silent one; `watch status` prints it.
"""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.files import write_json_atomic

BEAT_SECONDS = 60.0  # an idle watcher still stamps its heartbeat this often


def capture_dir(home: Path) -> Path:
    return home / "capture"


def heartbeat_path(home: Path) -> Path:
    return capture_dir(home) / "watch.json"


def lock_path(home: Path) -> Path:
    return capture_dir(home) / "watch.lock"


@dataclass
class Heartbeat:
    """The watcher's liveness and counters, as saved in `watch.json`."""

    pid: int = 0
    started: float = 0.0
    beat: float = 0.0  # the last time the loop was alive
    last_ingest: float = 0.0  # the last time it wrote transcripts into the index
    last_scan: float = 0.0
    turns_added: int = 0
    ingests: int = 0
    scans: int = 0
    errors: int = 0
    last_error: str = ""
    watching: list[str] = field(default_factory=list)

    def save(self, home: Path) -> None:
        self.beat = time.time()
        with contextlib.suppress(OSError):  # a full disk must not stop the watcher; doctor will tell
            write_json_atomic(heartbeat_path(home), asdict(self))


def read_heartbeat(home: Path) -> Heartbeat | None:
    try:
        data: Any = json.loads(heartbeat_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(data, dict):
        return None
    known = Heartbeat.__dataclass_fields__
    try:
        return Heartbeat(**{k: v for k, v in data.items() if k in known})
    except TypeError:
        return None


def silent_after(scan_seconds: int) -> float:
    """A heartbeat older than this means the watcher is not running (or stuck)."""
    return max(3 * scan_seconds, 3 * BEAT_SECONDS, 600.0)
