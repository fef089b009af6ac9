"""`git hippo mcp`: started as a real subprocess and driven over stdio with the SDK's own client."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from hippo_git.config import load_config
from hippo_git.notes.declared import start_session
from tests.conftest import make_repo, run_cli

STORAGE_NOTE = """---
title: Storage
---
# Storage

The index is one SQLite file in WAL mode; checkpoints run after each ingest.
"""
TOOLS = {
    "search",
    "note_get",
    "notes_search",
    "context",
    "sessions",
    "handoff",
    "remember",
    "recall",
    "outcome",
    "forget",
}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "ws")
    assert run_cli(["init", "--no-hooks"], cwd=root).returncode == 0
    (root / "notes" / "storage.md").write_text(STORAGE_NOTE)
    transcript = tmp_path / "claude" / "mcp-1.jsonl"
    transcript.parent.mkdir()
    lines = [
        {
            "type": "user",
            "sessionId": "mcp-1",
            "cwd": str(root),
            "uuid": "u1",
            "parentUuid": None,
            "timestamp": "2026-01-02T03:04:05.000Z",
            "message": {"role": "user", "content": "The checkpoint test flakes under load"},
        },
        {
            "type": "assistant",
            "sessionId": "mcp-1",
            "cwd": str(root),
            "uuid": "a1",
            "parentUuid": "u1",
            "timestamp": "2026-01-02T03:04:09.000Z",
            "message": {
                "id": "msg_1",
                "role": "assistant",
                "content": [
                    {"type": "text", "text": "Fixed: the checkpoint test now waits for the WAL writer."}
                ],
            },
        },
    ]
    transcript.write_text("".join(json.dumps(line) + "\n" for line in lines))
    proc = run_cli(["ingest", "--root", str(transcript), "--harness", "claude-code"], cwd=root)
    assert proc.returncode == 0, proc.stderr
    start_session(load_config(root), "make checkpoints reliable", session_id="decl-1", harness="claude-code")
    return root


def _text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if getattr(block, "type", "") == "text")


async def _drive(ws: Path) -> dict[str, Any]:
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "hippo_git", "mcp"], cwd=str(ws), env=dict(os.environ)
    )
    out: dict[str, Any] = {}
    with anyio.fail_after(60):
        async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
            await session.initialize()
            out["tools"] = {tool.name for tool in (await session.list_tools()).tools}
            calls = {
                "search": {"query": "checkpoint flakes"},
                "notes_search": {"query": "sqlite checkpoints"},
                "note_get": {"name": "storage"},
                "note_get_missing": {"name": "no such note"},
                "context": {"task": "wal checkpoints"},
                "sessions": {},
                "handoff": {"text": "Checkpoints fixed; details in [[storage]]."},
            }
            for key, args in calls.items():
                result = await session.call_tool(key.removesuffix("_missing"), args)
                out[key] = (bool(result.is_error), _text(result))
    return out


def test_mcp_server_over_stdio(ws: Path) -> None:
    out = anyio.run(_drive, ws)
    assert out["tools"] == TOOLS
    for key in ("search", "notes_search", "note_get", "context", "sessions", "handoff"):
        assert out[key][0] is False, (key, out[key][1])
    assert "mcp-1#" in out["search"][1] and "«" in out["search"][1]  # citable id, highlighted match
    assert "notes/storage.md" in out["notes_search"][1]
    assert '<note path="notes/storage.md"' in out["note_get"][1]
    assert out["note_get_missing"][0] is True and "no note named" in out["note_get_missing"][1]
    assert '<note path="notes/index.md" role="entry">' in out["context"][1]
    assert "decl-1" in out["sessions"][1] and "make checkpoints reliable" in out["sessions"][1]
    assert "decl-1" in out["handoff"][1]
    record = json.loads((ws / ".hippo" / "sessions" / "decl-1.json").read_text())
    assert record["ended"] and "notes/storage.md" in record["notes_touched"]
    assert record["handoff"].startswith("Checkpoints fixed")


def test_tools_never_load_gitpython(ws: Path) -> None:
    script = (
        "import sys; from pathlib import Path; from hippo_git.agents.mcp_server import Tools, build_server\n"
        f"t = Tools(Path({str(ws)!r})); build_server(t.start)\n"
        "t.search('checkpoint'); t.notes_search('sqlite'); t.note_get('storage'); t.context('wal'); t.sessions()\n"
        "bad = sorted(m for m in sys.modules if m.split('.')[0] in ('git', 'pygit2'))\n"
        "print(bad)\n"
    )
    proc = subprocess.run([sys.executable, "-c", script], cwd=ws, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"
