"""Capture thresholds (N prompts, M minutes, always at compaction/end) and episode summaries."""

from __future__ import annotations

import json
import os
import sqlite3
import sys
import time
from pathlib import Path

import pytest

from hippo_git.agents.state import SessionState
from hippo_git.capture.episodes import capture_episode
from hippo_git.capture.thresholds import capture_due
from hippo_git.capture.workspaces import registered
from hippo_git.config import CaptureSettings, load_config
from hippo_git.index.ingest import ingest
from tests.capture_support import wait_for
from tests.index_support import claude_lines, write_jsonl
from tests.test_agent_hooks import hook
from tests.test_agent_hooks import ws as ws  # noqa: F401  (the fixture)


def test_capture_due_by_turns_minutes_and_always_at_compaction_and_end() -> None:
    s = CaptureSettings(turns=5, minutes=20)
    assert not capture_due("prompt", 4, 60.0, s)
    assert capture_due("prompt", 5, 60.0, s)
    assert capture_due("prompt", 1, 20 * 60.0, s)
    assert not capture_due("prompt", 1, None, s)
    assert capture_due("pre-compact", 0, 0.0, s) and capture_due("session-end", 0, 0.0, s)
    assert not capture_due("stop", 0, 60.0, s) and capture_due("stop", 5, 60.0, s)


def _turn_count(root: Path, sid: str) -> int:
    index = load_config(root).index_path
    if not index.exists():
        return 0
    conn = sqlite3.connect(index)
    try:
        return int(conn.execute("SELECT count(*) FROM turns WHERE session_id = ?", (sid,)).fetchone()[0])
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def test_a_session_is_captured_after_n_prompts(ws: Path, tmp_path: Path) -> None:  # noqa: F811
    settings = ws / ".hippo" / "hippo.toml"
    assert "\nturns = 5\n" in settings.read_text()  # init writes the [capture] section
    settings.write_text(settings.read_text().replace("\nturns = 5\n", "\nturns = 2\n"))
    transcript = write_jsonl(
        tmp_path / "t" / "cap-1.jsonl",
        claude_lines("cap-1", str(ws), [("user", "first prompt about caching"), ("assistant", "ok")]),
    )
    base = {"session_id": "cap-1", "cwd": str(ws), "transcript_path": str(transcript)}
    hook(ws, "session-start", {**base, "hook_event_name": "SessionStart", "source": "startup"})
    assert ws.resolve() in registered(Path(os.environ["HIPPO_HOME"]))
    hook(ws, "prompt", {**base, "prompt": "first prompt about caching"})
    time.sleep(1.0)
    assert _turn_count(ws, "cap-1") == 0  # one prompt: not yet
    hook(ws, "prompt", {**base, "prompt": "second prompt"})
    assert wait_for(lambda: _turn_count(ws, "cap-1") == 2, timeout=30)
    state = SessionState.load(Path(os.environ["HIPPO_HOME"]), ws.resolve(), "claude-code", "cap-1")
    assert state.prompts == 2 and state.captured_prompts == 2


def _session(tmp_path: Path, repo: Path, text: str, model: list[str] | None) -> None:
    home = Path(os.environ["HIPPO_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    folder = tmp_path / "claude"
    write_jsonl(folder / "p" / "ep.jsonl", claude_lines("ep", "/w", [("user", text), ("assistant", "noted")]))
    head = f"model_command = {json.dumps(model)}\n" if model else ""
    (home / "config.toml").write_text(head + f'[transcripts.roots]\n"claude-code" = ["{folder}"]\n')
    ingest(load_config(repo))


def test_episode_summary_with_a_model_is_written_as_its_own_kind(tmp_path: Path, repo: Path) -> None:
    reply = {"decisions": ["Use WAL for the index"], "preferences": ["Short commits"], "follow_ups": []}
    _session(
        tmp_path,
        repo,
        "we decided on WAL mode " * 20,
        [sys.executable, "-c", f"print({json.dumps(reply)!r})"],
    )
    cfg = load_config(repo)
    result = capture_episode(cfg, "ep", os.environ)
    assert result.written, result.reason
    conn = sqlite3.connect(cfg.index_path)
    rows = conn.execute("SELECT text, seq FROM turns WHERE kind = 'episode'").fetchall()
    hit = conn.execute("SELECT count(*) FROM turns_fts WHERE turns_fts MATCH 'preferences'").fetchone()[0]
    conn.close()
    assert len(rows) == 1 and "Use WAL for the index" in rows[0][0] and rows[0][1] < 0
    assert hit == 1  # searchable like any turn
    again = capture_episode(cfg, "ep", os.environ)  # nothing new since
    assert not again.written and "not worth" in again.reason
    ingest(cfg, full=True, root=tmp_path / "claude", harness="claude-code")  # re-reading keeps it
    conn = sqlite3.connect(cfg.index_path)
    assert conn.execute("SELECT count(*) FROM turns WHERE kind = 'episode'").fetchone()[0] == 1
    conn.close()


@pytest.mark.parametrize("model", [None, ["false"]])
def test_no_model_or_a_short_window_makes_no_model_call(
    tmp_path: Path, repo: Path, model: list[str] | None
) -> None:
    _session(tmp_path, repo, "tiny", model)  # `false` would fail if it were called
    result = capture_episode(load_config(repo), "ep", os.environ)
    assert not result.written
    assert ("ingest only" if model is None else "not worth a model call") in result.reason
