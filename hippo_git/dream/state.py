"""The per-person dream window (`.hippo/dream-state.json`) and the one-dream-at-a-time lock.

The state says, per pack, up to when sessions have been dreamt over and up to which turn of the
index's ingest sequence (`marks`: a session ingested after a dream, with turns older than its
window, is still dreamt over by the next one), and which run is in progress with the chunks it
finished, so a killed run is resumed under the same run id (same proposals
branch; commits and receipts are idempotent per proposal id). It is written atomically after each
chunk completes, so the window only ever advances over finished chunks.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippo_git.config import Config
from hippo_git.files import FileLock, write_json_atomic

STATE_FILE = "dream-state.json"
LOCK_FILE = "dream.lock"
STATE_VERSION = 1
KEEP_RUNS = 20


@dataclass
class CurrentRun:
    """The dream run in progress: its packs, window start, finished chunks and ingest marks."""

    run: str
    packs: list[str]
    since: str
    done: list[str] = field(default_factory=list)  # keys of finished chunks
    # the ingest sequence: turns after `seen_id` (or from `seen_until` on) are new to this run's
    # packs; `upto_id` is the newest turn when the run began, the packs' mark once it finishes
    seen_id: int | None = None
    seen_until: str | None = None
    upto_id: int | None = None


@dataclass
class DreamState:
    """The saved dream state: each pack's window end and turn mark, the current run and recent runs."""

    windows: dict[str, str] = field(default_factory=dict)  # pack → end of the last finished chunk
    marks: dict[str, int] = field(default_factory=dict)  # pack → newest turn id its last run had
    current: CurrentRun | None = None
    runs: list[dict[str, Any]] = field(default_factory=list)  # the last few finished runs

    def to_dict(self) -> dict[str, Any]:
        current = None
        if self.current is not None:
            c = self.current
            current = {
                "run": c.run,
                "packs": c.packs,
                "since": c.since,
                "done": c.done,
                "seen_id": c.seen_id,
                "seen_until": c.seen_until,
                "upto_id": c.upto_id,
            }
        return {
            "version": STATE_VERSION,
            "windows": self.windows,
            "marks": self.marks,
            "current": current,
            "runs": self.runs[-KEEP_RUNS:],
        }


def state_path(hippo_dir: Path) -> Path:
    return hippo_dir / STATE_FILE


def load_state(hippo_dir: Path) -> DreamState:
    """The state, or an empty one when the file is absent or unreadable (a dream then starts over)."""
    try:
        data = json.loads(state_path(hippo_dir).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return DreamState()
    if not isinstance(data, dict):
        return DreamState()
    windows = {str(k): str(v) for k, v in (data.get("windows") or {}).items() if isinstance(v, str)}
    cur = data.get("current")
    current = None
    if isinstance(cur, dict) and isinstance(cur.get("run"), str) and isinstance(cur.get("since"), str):
        current = CurrentRun(
            run=cur["run"],
            packs=[str(p) for p in cur.get("packs") or []],
            since=cur["since"],
            done=[str(d) for d in cur.get("done") or []],
            seen_id=_int(cur.get("seen_id")),
            seen_until=cur["seen_until"] if isinstance(cur.get("seen_until"), str) else None,
            upto_id=_int(cur.get("upto_id")),
        )
    runs = [r for r in data.get("runs") or [] if isinstance(r, dict)]
    marks = {str(k): n for k, v in (data.get("marks") or {}).items() if (n := _int(v)) is not None}
    return DreamState(windows=windows, marks=marks, current=current, runs=runs)


def _int(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def last_success(cfg: Config) -> datetime | None:
    """When the window of this person's last completed dream ended (None: never dreamed here)."""
    ends = []
    for run in load_state(cfg.hippo_dir).runs:
        if run.get("status") == "complete" and isinstance(run.get("until"), str):
            try:
                when = datetime.fromisoformat(str(run["until"]).replace("Z", "+00:00"))
            except ValueError:
                continue
            ends.append(when if when.tzinfo else when.replace(tzinfo=UTC))
    return max(ends) if ends else None


def save_state(hippo_dir: Path, state: DreamState) -> None:
    write_json_atomic(state_path(hippo_dir), state.to_dict())


class DreamLock(FileLock):
    """One dream per workspace at a time; the lock of a killed dream is simply taken over."""

    def __init__(self, hippo_dir: Path) -> None:
        super().__init__(
            hippo_dir / LOCK_FILE,
            busy="another dream is running in this workspace",
            hint="wait for it to finish; a dream that was killed releases the lock by itself",
        )
