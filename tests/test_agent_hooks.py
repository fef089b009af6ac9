"""The agent hooks, run as real subprocesses with each harness's payloads: output shapes, exit codes,
session records, heartbeats, the Cursor guard, background ingest, and a light import path."""

from __future__ import annotations

import json
import os
import re
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from hippo_git.agents.spec import EVENTS
from hippo_git.agents.state import heartbeat_dir
from hippo_git.config import load_config
from tests.conftest import make_repo, run_cli

STORAGE_NOTE = """---
title: Storage
---
# Storage

The index is one SQLite file in WAL mode. Checkpoints run after each ingest; a reader never
blocks the writer. Vacuum only with `git hippo ingest --full`.
"""
FAKE_TOKEN = "ghp_" + "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0dF3gH6"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "ws")
    assert run_cli(["init", "--no-hooks"], cwd=root).returncode == 0
    (root / "notes" / "storage.md").write_text(STORAGE_NOTE)
    return root


def hook(ws: Path, name: str, payload: object, **env: str) -> subprocess.CompletedProcess[str]:
    text = payload if isinstance(payload, str) else json.dumps(payload)
    return subprocess.run(
        [sys.executable, "-m", "hippo_git", "hook", name],
        cwd=ws,
        input=text,
        capture_output=True,
        text=True,
        env={**os.environ, **env},
        timeout=60,
    )


def _home() -> Path:
    return Path(os.environ["HIPPO_HOME"])


def _record(ws: Path, sid: str) -> dict[str, object]:
    data: dict[str, object] = json.loads((ws / ".hippo" / "sessions" / f"{sid}.json").read_text())
    return data


def _beat(ws: Path, harness: str, kind: str) -> dict[str, object] | None:
    path = heartbeat_dir(_home(), ws.resolve()) / f"{harness}-{kind}"
    return json.loads(path.read_text()) if path.exists() else None


def _start_payload(ws: Path, sid: str) -> dict[str, object]:
    return {"session_id": sid, "cwd": str(ws), "hook_event_name": "SessionStart", "source": "startup"}


@pytest.mark.parametrize("name", ["session-start", "codex-session-start", "gemini-session-start"])
def test_session_start_hands_over_the_context(ws: Path, name: str) -> None:
    proc = hook(ws, name, _start_payload(ws, "s-1"))
    assert (proc.returncode, proc.stderr) == (0, "")
    out = json.loads(proc.stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "SessionStart"
    assert '<note path="notes/index.md" role="entry">' in out["hookSpecificOutput"]["additionalContext"]
    record = _record(ws, "s-1")
    assert record["kind"] == "declared" and record["harness"] == EVENTS[name][0]
    assert isinstance(record["context_bytes"], int) and record["context_bytes"] > 0
    beat = _beat(ws, EVENTS[name][0], "session-start")
    assert beat is not None and beat["ok"] is True


def test_cursor_session_start_shape(ws: Path) -> None:
    payload = {"conversation_id": "c-1", "workspace_roots": [str(ws)], "hook_event_name": "sessionStart"}
    proc = hook(ws.parent, "cursor-session-start", payload)  # Cursor names the workspace in the payload
    assert (proc.returncode, proc.stderr) == (0, "")
    out = json.loads(proc.stdout)
    assert list(out) == ["additional_context"] and "notes/index.md" in out["additional_context"]
    assert _record(ws, "c-1")["harness"] == "cursor"


def test_prompt_adds_notes_once_and_records_the_prompt(ws: Path) -> None:
    hook(ws, "session-start", _start_payload(ws, "s-2"))
    prompt = f"Why do the SQLite checkpoints in the index block readers in WAL mode? token {FAKE_TOKEN}"
    payload = {"session_id": "s-2", "cwd": str(ws), "hook_event_name": "UserPromptSubmit", "prompt": prompt}
    first = hook(ws, "prompt", payload)
    assert (first.returncode, first.stderr) == (0, "")
    out = json.loads(first.stdout)["hookSpecificOutput"]
    assert out["hookEventName"] == "UserPromptSubmit"
    assert '<note path="notes/storage.md"' in out["additionalContext"]
    again = hook(ws, "prompt", payload)  # already given in this session: nothing new to add
    assert (again.returncode, again.stdout, again.stderr) == (0, "", "")
    record = _record(ws, "s-2")
    assert isinstance(record["prompts"], list) and len(record["prompts"]) == 2
    assert "checkpoints" in str(record["task"])
    assert FAKE_TOKEN not in (ws / ".hippo" / "sessions" / "s-2.json").read_text()  # redacted


def test_prompt_shapes_for_gemini_codex_and_cursor(ws: Path) -> None:
    unrelated = {"session_id": "g-1", "cwd": str(ws), "prompt": "hello there"}
    gemini = hook(ws, "gemini-prompt", unrelated)
    assert (gemini.returncode, gemini.stdout.strip(), gemini.stderr) == (0, "{}", "")
    related = {"session_id": "g-1", "cwd": str(ws), "prompt": "sqlite checkpoint wal readers"}
    out = json.loads(hook(ws, "gemini-prompt", related).stdout)
    assert out["hookSpecificOutput"]["hookEventName"] == "BeforeAgent"
    codex = json.loads(hook(ws, "codex-prompt", {**related, "session_id": "x-1"}).stdout)
    assert codex["hookSpecificOutput"]["hookEventName"] == "UserPromptSubmit"
    cursor = hook(
        ws, "cursor-prompt", {"conversation_id": "c-2", "workspace_roots": [str(ws)], "prompt": "sqlite wal"}
    )
    assert (cursor.returncode, json.loads(cursor.stdout)) == (0, {"continue": True})
    assert _record(ws, "c-2")["prompts"] == ["sqlite wal"]


@pytest.mark.parametrize("payload", ["", "not json", "[1, 2]", '{"session_id": 7, "cwd": 3}'])
def test_garbage_payloads_never_fail(ws: Path, payload: str) -> None:
    for name in EVENTS:
        proc = hook(ws, name, payload)
        assert proc.returncode == 0 and proc.stderr == "", (name, proc.stderr)
        if name.startswith(("gemini-", "cursor-")):
            json.loads(proc.stdout)  # JSON only, always
        elif proc.stdout:
            assert proc.stdout.lstrip().startswith("{")
            json.loads(proc.stdout)


def test_internal_errors_exit_zero_and_are_logged(ws: Path) -> None:
    (ws / ".hippo" / "hippo.toml").write_text("notes_dir = [broken\n")
    for name, expected in (("session-start", ""), ("gemini-session-start", "{}"), ("prompt", "")):
        proc = hook(ws, name, {"session_id": "e-1", "cwd": str(ws), "prompt": "sqlite wal"})
        assert (proc.returncode, proc.stdout.strip(), proc.stderr) == (0, expected, "")
    log = (_home() / "logs" / "hooks.log").read_text()
    assert "hippo.toml" in log
    beat = _beat(ws, "claude-code", "session-start")
    assert beat is not None and beat["ok"] is False and "hippo.toml" in str(beat["detail"])


def test_claude_hooks_step_aside_inside_cursor(ws: Path) -> None:
    payload = _start_payload(ws, "cc-1")
    assert hook(ws, "session-start", payload, CURSOR_VERSION="1.7").stdout  # no Cursor install: works
    assert run_cli(["agent", "install", "cursor"], cwd=ws).returncode == 0
    proc = hook(ws, "session-start", {**payload, "session_id": "cc-2"}, CURSOR_VERSION="1.7")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert not (ws / ".hippo" / "sessions" / "cc-2.json").exists()
    beat = _beat(ws, "claude-code", "session-start")
    assert beat is not None and "stepped aside" in str(beat["detail"])
    assert hook(ws, "session-start", {**payload, "session_id": "cc-3"}).stdout  # outside Cursor: works


def test_internal_runs_do_nothing(ws: Path) -> None:
    proc = hook(ws, "session-start", _start_payload(ws, "i-1"), HIPPO_INTERNAL="1")
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert _beat(ws, "claude-code", "session-start") is None


def _claude_transcript(path: Path, ws: Path, sid: str) -> None:
    lines = [
        {
            "type": "user",
            "sessionId": sid,
            "cwd": str(ws),
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-01-02T03:04:05.000Z",
            "message": {"role": "user", "content": "Please make the checkpoint test stop flaking"},
        },
        {
            "type": "assistant",
            "sessionId": sid,
            "cwd": str(ws),
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-01-02T03:04:09.000Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "The flaky checkpoint test now waits for the WAL writer."}
                ],
            },
        },
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))


def _wait_for(check: object, seconds: float = 45.0) -> None:
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        if check():  # type: ignore[operator]
            return
        time.sleep(0.2)
    raise AssertionError("timed out waiting for the background ingest")


def test_session_end_ends_the_session_and_ingests_in_the_background(ws: Path, tmp_path: Path) -> None:
    transcript = tmp_path / "transcripts" / "end-1.jsonl"
    transcript.parent.mkdir()
    _claude_transcript(transcript, ws, "end-1")
    hook(ws, "session-start", {**_start_payload(ws, "end-1"), "transcript_path": str(transcript)})
    payload = {"session_id": "end-1", "cwd": str(ws), "transcript_path": str(transcript), "reason": "exit"}
    proc = hook(ws, "session-end", payload)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, "", "")
    assert _record(ws, "end-1")["ended"]
    _wait_for(lambda: _beat(ws, "claude-code", "ingest") is not None)
    beat = _beat(ws, "claude-code", "ingest")
    assert beat is not None and beat["ok"] is True, beat
    conn = sqlite3.connect(load_config(ws).index_path)
    try:
        turns = conn.execute("SELECT count(*) FROM turns WHERE session_id = 'end-1'").fetchone()[0]
    finally:
        conn.close()
    assert turns >= 2


def test_status_shows_which_hooks_ran(ws: Path) -> None:
    assert run_cli(["agent", "install", "claude-code"], cwd=ws).returncode == 0
    hook(ws, "session-start", _start_payload(ws, "st-1"))
    proc = run_cli(["agent", "status", "claude-code", "--json"], cwd=ws)
    assert proc.returncode == 0, proc.stderr
    [status] = json.loads(proc.stdout)
    runs = {h["event"]: h["last_run"] for h in status["hooks"]}
    assert runs["SessionStart"] is not None and runs["SessionEnd"] is None
    assert all(h["installed"] for h in status["hooks"]) and status["mcp"]["installed"]
    text = run_cli(["agent", "status", "claude-code"], cwd=ws).stdout
    assert "never ran" in text and re.search(r"SessionStart\s+installed\s+\d{4}-", text)


@pytest.mark.parametrize(
    ("name", "payload"),
    [
        ("session-start", {"session_id": "imp-1", "hook_event_name": "SessionStart", "source": "startup"}),
        ("prompt", {"session_id": "imp-1", "prompt": "how do sqlite checkpoints and wal readers interact"}),
    ],
)
def test_hook_path_stays_light(ws: Path, name: str, payload: dict[str, object]) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hippo_git", "hook", name],
        cwd=ws,
        input=json.dumps({**payload, "cwd": str(ws)}),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 0 and proc.stdout
    imported = {
        line.rsplit("|", 1)[-1].strip()
        for line in proc.stderr.splitlines()
        if line.startswith("import time:")
    }
    # importlib.import_module bypasses -X importtime, so look for what agent_hooks imports itself.
    assert "hippo_git.agents.state" in imported
    heavy = sorted(
        m for m in imported if m.split(".")[0] in {"pygit2", "git", "pydantic", "pydantic_core", "mcp"}
    )
    assert heavy == []


def test_without_init_the_hooks_give_context_but_write_no_records(tmp_path: Path) -> None:
    bare = make_repo(tmp_path / "plain", files={"notes/index.md": "# Index\nHello.\n"})
    proc = hook(bare, "session-start", _start_payload(bare, "n-1"))
    assert proc.returncode == 0 and "notes/index.md" in proc.stdout
    hook(bare, "prompt", {"session_id": "n-1", "cwd": str(bare), "prompt": "hello index"})
    hook(bare, "session-end", {"session_id": "n-1", "cwd": str(bare)})
    assert not (bare / ".hippo").exists()
