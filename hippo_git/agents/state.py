"""Small per-machine files the agent hooks keep under $HIPPO_HOME: heartbeats, per-session state, the log.

Light on purpose (no git libraries, no pydantic): the hooks run on every session start and prompt.
Every write here is best-effort and atomic; a hook never fails because one of these files could
not be written.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippo_git.agents.spec import workspace_key
from hippo_git.files import write_json_atomic

LOG_MAX_BYTES = 1_000_000
STATE_KEEP_DAYS = 30


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _write_json(path: Path, data: dict[str, Any]) -> None:
    write_json_atomic(path, data, indent=None)


def _read_json(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


# --- the hook log ---------------------------------------------------------------------------------


def log(home: Path, event: str, message: str, exc: BaseException | None = None) -> None:
    """Append to $HIPPO_HOME/logs/hooks.log (rotated at ~1 MB); never raises."""
    try:
        logs = home / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        path = logs / "hooks.log"
        if path.exists() and path.stat().st_size > LOG_MAX_BYTES:
            os.replace(path, logs / "hooks.log.1")
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"{now_iso()} [{os.getpid()}] {event}: {message}\n")
            if exc is not None:
                import traceback  # only on failure: it loads linecache and tokenize, on every hook otherwise

                fh.write("".join(traceback.format_exception(exc)))
    except OSError:
        pass


# --- heartbeats -----------------------------------------------------------------------------------


def heartbeat_dir(home: Path, root: Path) -> Path:
    return home / "heartbeats" / workspace_key(str(root))


def stamp(home: Path, root: Path, harness: str, kind: str, *, ok: bool, ms: float, detail: str = "") -> None:
    """Record that `harness`'s `kind` hook ran in this workspace (what `agent status` reads)."""
    with contextlib.suppress(OSError):
        _write_json(
            heartbeat_dir(home, root) / f"{harness}-{kind}",
            {"time": now_iso(), "ok": ok, "ms": round(ms, 1), "detail": detail[:500]},
        )


def read_heartbeat(home: Path, root: Path, harness: str, kind: str) -> dict[str, Any] | None:
    return _read_json(heartbeat_dir(home, root) / f"{harness}-{kind}")


# --- per-session state ----------------------------------------------------------------------------

_SAFE = re.compile(r"[^A-Za-z0-9._-]")


@dataclass
class SessionState:
    """What the hooks remember about one agent session: notes already handed over, its transcript."""

    path: Path
    harness: str
    session_id: str
    transcript: str | None = None
    given: list[str] = field(default_factory=list)  # note paths already put in this session's context
    ingested_size: int = 0  # transcript size at the last background ingest that finished
    prompts: int = 0
    captured_prompts: int = 0  # `prompts` at the last capture (capture thresholds)
    captured_at: float = 0.0  # epoch seconds of the last capture, or of the session's start

    @classmethod
    def load(cls, home: Path, root: Path, harness: str, session_id: str) -> SessionState:
        name = _SAFE.sub("_", session_id)[:120] or "unknown"
        path = state_dir(home, root) / f"{harness}--{name}.json"
        data = _read_json(path) or {}
        given = data.get("given")
        return cls(
            path=path,
            harness=harness,
            session_id=session_id,
            transcript=data.get("transcript") if isinstance(data.get("transcript"), str) else None,
            given=[g for g in given if isinstance(g, str)] if isinstance(given, list) else [],
            ingested_size=int(data.get("ingested_size") or 0),
            prompts=int(data.get("prompts") or 0),
            captured_prompts=int(data.get("captured_prompts") or 0),
            captured_at=float(data.get("captured_at") or 0.0),
        )

    def save(self) -> None:
        with contextlib.suppress(OSError):
            _write_json(
                self.path,
                {
                    "harness": self.harness,
                    "session_id": self.session_id,
                    "transcript": self.transcript,
                    "given": self.given,
                    "ingested_size": self.ingested_size,
                    "prompts": self.prompts,
                    "captured_prompts": self.captured_prompts,
                    "captured_at": self.captured_at,
                    "updated": now_iso(),
                },
            )


def state_dir(home: Path, root: Path) -> Path:
    return home / "agent-state" / workspace_key(str(root))


def pending_transcripts(
    home: Path, root: Path, *, skip: str | None = None, limit: int = 20
) -> list[SessionState]:
    """Recent sessions whose transcript grew past what the last background ingest read.

    Also drops state files older than STATE_KEEP_DAYS, so the folder stays small.
    """
    folder = state_dir(home, root)
    try:
        files = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return []
    cutoff = time.time() - STATE_KEEP_DAYS * 86400
    pending: list[SessionState] = []
    for i, path in enumerate(files):
        try:
            if path.stat().st_mtime < cutoff:
                path.unlink()
                continue
        except OSError:
            continue
        if i >= limit:
            continue
        data = _read_json(path) or {}
        transcript, harness, sid = data.get("transcript"), data.get("harness"), data.get("session_id")
        if (
            not (isinstance(transcript, str) and isinstance(harness, str) and isinstance(sid, str))
            or sid == skip
        ):
            continue
        try:
            size = os.stat(transcript).st_size
        except OSError:
            continue
        if size > int(data.get("ingested_size") or 0):
            pending.append(SessionState.load(home, root, harness, sid))
    return pending
