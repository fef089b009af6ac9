"""Cursor adapter: agent-transcript JSONL, `store.db` (meta + content-addressed blobs), a Cursor home."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from hippo_git.transcripts.cursor import ADAPTER
from hippo_git.transcripts.model import ANSWER, PROMPT, SYSTEM, TOOL_CALL, TOOL_OUTPUT, Cursor
from tests.adapter_support import kinds
from tests.conftest import corpus

AGENT = "5f0c2a4e-1b2c-4d3e-8f90-0a1b2c3d4e5f"


def test_every_corpus_file_is_discovered() -> None:
    folder = corpus("transcripts", "cursor")
    assert sorted(p.name for p in ADAPTER.discover(folder)) == [
        "agent-sessions-fixture-subagent-session.jsonl",
        "agent-sessions-fixture-test-session.jsonl",
        "agent-sessions-fixture-test-store.db",
    ]


def test_corpus_transcripts() -> None:
    folder = corpus("transcripts", "cursor")
    result = ADAPTER.parse(folder / "agent-sessions-fixture-test-session.jsonl", Cursor())
    (session,) = result.sessions
    assert session.info.id == "agent-sessions-fixture-test-session" and session.mode == "replace"
    # Two <user_query> prompts, three visible answers, two Shell calls; "[REDACTED]" is hidden thinking.
    assert kinds(session) == {PROMPT: 2, ANSWER: 3, TOOL_CALL: 2}
    assert [t.text for t in session.turns if t.kind == PROMPT] == [
        "run ls command",
        "now show me the git status",
    ]
    assert [t.tool for t in session.turns if t.kind == TOOL_CALL] == ["Shell", "Shell"]
    assert session.turns[5].text == 'Shell {"command": "git status", "description": "Check git status"}'
    assert not any(t.text == "[REDACTED]" for t in session.turns)
    assert result.stats.reasoning == 1 and result.stats.unknown == 0
    sub = ADAPTER.parse(folder / "agent-sessions-fixture-subagent-session.jsonl", Cursor()).sessions[0]
    assert [t.kind for t in sub.turns] == [PROMPT, TOOL_CALL, ANSWER]
    assert sub.turns[0].text == "Run ls -la in the workspace directory and return the output."


def test_corpus_store_db_metadata_only() -> None:
    path = corpus("transcripts", "cursor", "agent-sessions-fixture-test-store.db")
    before = path.read_bytes()
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    # The fixture's blobs table is empty: the session is its metadata alone.
    assert session.info.id == "a1b2c3d4-e5f6-7890-abcd-ef1234567890"
    assert session.info.title == "Test Session" and session.info.model == "claude-4-sonnet"
    assert session.info.started == "2026-04-07T00:43:10.321Z"
    assert session.turns == [] and session.mode == "replace"
    assert ADAPTER.parse(path, result.cursor).sessions == []  # unchanged stamp: nothing to read
    assert path.read_bytes() == before
    assert sorted(p.name for p in path.parent.iterdir() if p.name.startswith(path.name)) == [path.name]


def blob(data: bytes) -> tuple[str, bytes]:
    return hashlib.sha256(data).hexdigest(), data


def link(*children: str, embedded: dict[str, Any] | None = None) -> bytes:
    out = b"".join(b"\x0a\x20" + bytes.fromhex(c) for c in children)
    if embedded is not None:
        raw = json.dumps(embedded).encode()
        out += b"\x12" + bytes([len(raw)]) + raw  # field 2, length-delimited (< 128 bytes here)
    return out


def make_store(path: Path, meta: dict[str, Any], messages: list[dict[str, Any]]) -> None:
    """A store.db shaped like cursor-agent's: a root link blob over two nested link blobs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE blobs (id TEXT PRIMARY KEY, data BLOB)")
    conn.execute("CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT)")
    ids = []
    for message in messages:
        blob_id, data = blob(json.dumps(message).encode())
        conn.execute("INSERT OR IGNORE INTO blobs VALUES (?, ?)", (blob_id, data))
        ids.append(blob_id)
    first_id, first = blob(link(*ids[:2]))
    second_id, second = blob(link(*ids[2:-1], embedded=messages[-1]))
    root_id, root = blob(link(first_id, second_id))
    conn.executemany(
        "INSERT OR IGNORE INTO blobs VALUES (?, ?)", [(first_id, first), (second_id, second), (root_id, root)]
    )
    meta = dict(meta, latestRootBlobId=root_id)
    conn.execute("INSERT INTO meta VALUES ('0', ?)", (json.dumps(meta).encode().hex(),))
    conn.commit()
    conn.close()


STORE_MESSAGES: list[dict[str, Any]] = [
    {"role": "system", "content": "You are Cursor's agent. " * 50},
    {
        "role": "user",
        "content": [
            {
                "type": "text",
                "text": "<user_info>os: linux</user_info>\n<user_query>\nfix README.md\n</user_query>",
            }
        ],
    },
    {
        "role": "assistant",
        "id": "1",
        "content": [
            {"type": "reasoning", "text": "hidden", "signature": "x"},
            {"type": "text", "text": "Editing it."},
            {
                "type": "tool-call",
                "toolCallId": "t1",
                "toolName": "edit_file",
                "args": {"target_file": "README.md"},
            },
        ],
    },
    {
        "role": "tool",
        "content": [
            {
                "type": "tool-result",
                "toolCallId": "t1",
                "toolName": "edit_file",
                "result": "ok",
                "isError": False,
            }
        ],
    },
    {"role": "assistant", "id": "1", "content": [{"type": "text", "text": "README.md fixed."}]},
]


def test_store_db_conversation_and_stamp(tmp_path: Path) -> None:
    path = tmp_path / "chats" / ("0" * 32) / AGENT / "store.db"
    meta = {
        "agentId": AGENT,
        "name": "Fix readme",
        "mode": "auto-run",
        "createdAt": 1775522590321,
        "lastUsedModel": "gpt-5",
    }
    make_store(path, meta, STORE_MESSAGES)
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert session.info.id == AGENT and session.info.title == "Fix readme" and session.info.model == "gpt-5"
    # The system prompt is not conversation; the user's words are the <user_query>.
    assert [(t.kind, t.text) for t in session.turns] == [
        (PROMPT, "fix README.md"),
        (ANSWER, "Editing it."),
        (TOOL_CALL, 'edit_file {"target_file": "README.md"}'),
        (TOOL_OUTPUT, "ok"),
        (ANSWER, "README.md fixed."),
    ]
    assert session.turns[2].paths == ("README.md",) and session.turns[2].edited
    assert session.turns[3].tool == "edit_file"
    assert result.stats.reasoning == 1
    assert ADAPTER.parse(path, result.cursor).sessions == []
    # A new message moves the stamp (new root, more blobs): the chat is read again and replaced.
    make_store(
        tmp_path / "copy.db",
        meta,
        [*STORE_MESSAGES, {"role": "user", "content": "<user_query>thanks</user_query>"}],
    )
    shutil.copyfile(tmp_path / "copy.db", path)
    again = ADAPTER.parse(path, result.cursor)
    assert again.sessions[0].mode == "replace" and again.sessions[0].turns[-1].text == "thanks"


def test_cursor_home_enriches_transcripts_and_skips_their_databases(tmp_path: Path) -> None:
    repo = tmp_path / "src" / "my-app"
    repo.mkdir(parents=True)
    slug = str(repo).strip("/").replace("/", "-")
    home = tmp_path / ".cursor"
    transcripts = home / "projects" / slug / "agent-transcripts"
    main = transcripts / AGENT / f"{AGENT}.jsonl"
    main.parent.mkdir(parents=True)
    shutil.copyfile(corpus("transcripts", "cursor", "agent-sessions-fixture-test-session.jsonl"), main)
    child = transcripts / AGENT / "subagents" / "9e8d7c6b-0000-4000-8000-000000000001.jsonl"
    child.parent.mkdir()
    shutil.copyfile(corpus("transcripts", "cursor", "agent-sessions-fixture-subagent-session.jsonl"), child)
    meta = {
        "agentId": AGENT,
        "name": "List files",
        "createdAt": 1775522590321,
        "lastUsedModel": "claude-4-sonnet",
    }
    make_store(
        home / "chats" / hashlib.md5(str(repo).encode()).hexdigest() / AGENT / "store.db",
        meta,
        STORE_MESSAGES,
    )
    lone = home / "chats" / ("f" * 32) / "11111111-2222-4333-8444-555555555555" / "store.db"
    make_store(lone, dict(meta, agentId="11111111-2222-4333-8444-555555555555"), STORE_MESSAGES)
    (home / "extensions" / "some.ext").mkdir(parents=True)
    (home / "extensions" / "some.ext" / "data.jsonl").write_text("{}\n")
    assert sorted(ADAPTER.discover(home)) == sorted([main, child, lone])
    session = ADAPTER.parse(main, Cursor()).sessions[0]
    assert session.info.id == AGENT and session.info.title == "List files"
    assert session.info.model == "claude-4-sonnet" and session.info.started == "2026-04-07T00:43:10.321Z"
    assert session.info.cwd == str(repo)  # the lossy slug decoded against the file system
    sub = ADAPTER.parse(child, Cursor()).sessions[0]
    assert sub.info.parent_id == AGENT and sub.info.cwd == str(repo)


def test_incremental_transcript_torn_and_unknown_lines(tmp_path: Path) -> None:
    lines = (
        corpus("transcripts", "cursor", "agent-sessions-fixture-test-session.jsonl").read_text().splitlines()
    )
    path = tmp_path / f"{AGENT}.jsonl"
    path.write_text("\n".join(lines[:3]) + '\n{"kind": "telemetry"}\n' + lines[3][:30])
    first = ADAPTER.parse(path, Cursor())
    assert kinds(first.sessions[0]) == {PROMPT: 1, ANSWER: 2, TOOL_CALL: 1}
    assert first.stats.unknown == 1 and first.cursor.offset < path.stat().st_size
    path.write_text("\n".join(lines[:3]) + '\n{"kind": "telemetry"}\n' + "\n".join(lines[3:]) + "\n")
    second = ADAPTER.parse(path, first.cursor)
    (more,) = second.sessions
    assert more.mode == "append"
    assert [(t.seq, t.kind) for t in more.turns] == [(4, PROMPT), (5, TOOL_CALL), (6, ANSWER)]
    assert second.stats.reasoning == 1
    user_only = tmp_path / "plain.jsonl"
    user_only.write_text(
        json.dumps({"role": "user", "message": {"content": "<attached_files>a.py</attached_files>"}}) + "\n"
    )
    assert [t.kind for t in ADAPTER.parse(user_only, Cursor()).sessions[0].turns] == [SYSTEM]
