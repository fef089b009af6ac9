"""Ingesting one session's transcript in the background, so end-of-session hooks return at once.

Claude Code gives SessionEnd hooks ~1.5 s in all; an ingest can take longer. The hook starts
`python -m hippo_git hook ingest-transcript` in its own session (so the harness tearing down its
process group does not kill it), hands it the transcripts on stdin and returns. That process waits
for the index lock when another ingest holds it, and records how far it got, so the next session
start catches up on whatever a killed or locked-out run missed.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from hippo_git.agents import state as agent_state
from hippo_git.agents.detached import spawn_hook
from hippo_git.agents.spec import INGEST_EVENT, SPECS

LOCK_WAIT_SECONDS = 60.0


def spawn_ingest(home: Path, root: Path, sessions: list[agent_state.SessionState]) -> None:
    """Start a detached ingest of these sessions' transcripts and return without waiting."""
    items = [
        {"harness": s.harness, "session_id": s.session_id, "transcript": s.transcript}
        for s in sessions
        if s.transcript
    ]
    if not items:
        return
    payload = json.dumps({"root": str(root), "items": items}).encode("utf-8")
    spawn_hook(home, root, INGEST_EVENT, "ingest-background.log", payload)


def _sources(harness: str, transcript: Path) -> list[Path]:
    """The transcript, plus Claude Code's subagent transcripts kept beside it (`<id>/subagents/`)."""
    sources = [transcript]
    if harness == "claude-code":
        sidecar = transcript.with_suffix("")
        if sidecar.is_dir():
            sources.append(sidecar)
    return sources


def run_background_ingest(home: Path, payload: dict[str, Any]) -> None:
    """The detached side: ingest each transcript, waiting for the index lock; never raises."""
    from hippo_git.config import load_config
    from hippo_git.errors import HippoError

    root_text = payload.get("root")
    items = payload.get("items")
    if not isinstance(root_text, str) or not isinstance(items, list):
        agent_state.log(home, INGEST_EVENT, "payload without root/items; nothing to do")
        return
    root = Path(root_text)
    from hippo_git.capture.steps import replay

    replay(home)  # earlier captures that failed go first, in order
    for item in items:
        if not isinstance(item, dict):
            continue
        harness, sid, transcript = item.get("harness"), item.get("session_id"), item.get("transcript")
        if harness not in SPECS or not isinstance(sid, str) or not isinstance(transcript, str):
            continue
        started = time.perf_counter()
        path = Path(transcript)
        try:
            size = path.stat().st_size
        except OSError:
            agent_state.log(home, INGEST_EVENT, f"{transcript}: gone before it could be read")
            continue
        ok, detail = True, ""
        try:
            cfg = load_config(root)
            turns = 0
            for source in _sources(harness, path):
                turns += _ingest_one(cfg, SPECS[harness].transcript_harness, source)
            state = agent_state.SessionState.load(home, root, harness, sid)
            state.transcript = state.transcript or transcript
            state.ingested_size = max(state.ingested_size, size)
            state.save()
            detail = f"{transcript}: {turns} turns added"
            from hippo_git.capture.episodes import capture_episode

            try:
                detail += f"; episode: {capture_episode(cfg, sid, os.environ).reason}"
            except Exception as exc:  # the ingest stands; a failed summary is only reported
                detail += f"; episode failed: {type(exc).__name__}: {exc}"
                agent_state.log(home, INGEST_EVENT, detail, None if isinstance(exc, HippoError) else exc)
        except Exception as exc:
            ok, detail = False, f"{transcript}: {type(exc).__name__}: {exc}"
            agent_state.log(home, INGEST_EVENT, detail, None if isinstance(exc, HippoError) else exc)
        ms = (time.perf_counter() - started) * 1000
        agent_state.stamp(home, root, harness, "ingest", ok=ok, ms=ms, detail=detail)


def _ingest_one(cfg: Any, harness: str, source: Path) -> int:
    """Ingest one source, waiting for a busy index lock outside it; a write that fails stays in
    the outbox (`capture.steps`) for the next capture or the watcher to replay."""
    from hippo_git.capture.steps import ingest_source

    summary = ingest_source(cfg, harness, source, timeout_s=LOCK_WAIT_SECONDS)
    if summary.failed:
        reasons = "; ".join(f"{f.path}: {f.reason}" for f in summary.failed)
        agent_state.log(cfg.home, INGEST_EVENT, f"some sources failed: {reasons}")
    return int(summary.turns_added)
