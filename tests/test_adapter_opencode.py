"""OpenCode adapter: the legacy JSON trees in the corpus and an `opencode.db` built from its schema."""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SUMMARY,
    SYSTEM,
    TOOL_CALL,
    TOOL_OUTPUT,
    Cursor,
)
from hippo_git.transcripts.opencode import ADAPTER
from tests.adapter_support import by_id, kinds
from tests.conftest import corpus


def test_every_corpus_tree_is_discovered() -> None:
    folder = corpus("transcripts", "opencode")
    fixture = folder / "agent-sessions-fixture"
    assert list(ADAPTER.discover(folder)) == [fixture / "storage_legacy", fixture / "storage_v2"]


def test_corpus_storage_v2() -> None:
    tree = corpus("transcripts", "opencode", "agent-sessions-fixture", "storage_v2")
    result = ADAPTER.parse(tree, Cursor())
    sessions = by_id(result.sessions)
    assert sorted(sessions) == ["s_stage0_large", "s_stage0_small"]
    small = sessions["s_stage0_small"]
    assert [(t.kind, t.text) for t in small.turns] == [
        (PROMPT, "Hello"),
        (TOOL_CALL, 'bash {"command": "ls", "cwd": "/tmp/repo"}'),
        (TOOL_OUTPUT, "a.txt\nb.txt"),
        (ANSWER, "Found 2 files."),
    ]
    assert small.info.title == "OpenCode Small" and small.info.cwd == "/tmp/repo"
    assert small.info.model == "gpt-4o-mini"
    large = sessions["s_stage0_large"]
    # Step 1 → bash (exit 1), a synthetic notice, a compaction part, the aborted-message error; Step 2 → "Ok".
    assert kinds(large) == {PROMPT: 2, TOOL_CALL: 1, TOOL_OUTPUT: 1, SYSTEM: 2, ERROR: 1, ANSWER: 1}
    assert [t.kind for t in large.turns] == [
        PROMPT,
        TOOL_CALL,
        TOOL_OUTPUT,
        SYSTEM,
        SYSTEM,
        ERROR,
        PROMPT,
        ANSWER,
    ]
    assert large.turns[2].is_error  # metadata.exit == 1
    assert large.turns[5].text == "MessageAbortedError: The operation was aborted."
    assert result.stats.reasoning == 1 and result.stats.unknown == 0
    assert all(s.mode == "replace" for s in result.sessions)


def test_corpus_storage_legacy() -> None:
    tree = corpus("transcripts", "opencode", "agent-sessions-fixture", "storage_legacy")
    result = ADAPTER.parse(tree, Cursor())
    (session,) = result.sessions
    assert session.info.id == "s_stage0_drift" and session.info.title == "OpenCode Drift"
    # The user message has no parts in this tree; parts are flat files naming their message.
    assert [(t.kind, t.tool) for t in session.turns] == [
        (TOOL_CALL, "bash"),
        (TOOL_OUTPUT, "bash"),
        (ANSWER, None),
    ]
    assert session.turns[1].text == "# Title\n\nBody" and not session.turns[1].is_error
    assert session.info.started == "2024-10-27T03:36:40.000Z"


def test_corpus_unchanged_trees_are_skipped() -> None:
    tree = corpus("transcripts", "opencode", "agent-sessions-fixture", "storage_v2")
    first = ADAPTER.parse(tree, Cursor())
    assert sorted(first.cursor.state["stamps"]) == ["s_stage0_large", "s_stage0_small"]
    assert ADAPTER.parse(tree, first.cursor).sessions == []


SCHEMA = """
CREATE TABLE project (id TEXT PRIMARY KEY, worktree TEXT NOT NULL, vcs TEXT, name TEXT,
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL);
CREATE TABLE session (id TEXT PRIMARY KEY, project_id TEXT NOT NULL REFERENCES project(id),
    workspace_id TEXT, parent_id TEXT, slug TEXT NOT NULL, directory TEXT NOT NULL, path TEXT,
    title TEXT NOT NULL, version TEXT NOT NULL, share_url TEXT, summary_additions INTEGER,
    summary_deletions INTEGER, summary_files INTEGER, summary_diffs TEXT, cost REAL NOT NULL DEFAULT 0,
    tokens_input INTEGER NOT NULL DEFAULT 0, tokens_output INTEGER NOT NULL DEFAULT 0,
    revert TEXT, permission TEXT, agent TEXT, model TEXT, time_created INTEGER NOT NULL,
    time_updated INTEGER NOT NULL, time_compacting INTEGER, time_archived INTEGER);
CREATE TABLE message (id TEXT PRIMARY KEY, session_id TEXT NOT NULL REFERENCES session(id),
    time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL, data TEXT NOT NULL);
CREATE TABLE part (id TEXT PRIMARY KEY, message_id TEXT NOT NULL REFERENCES message(id),
    session_id TEXT NOT NULL, time_created INTEGER NOT NULL, time_updated INTEGER NOT NULL,
    data TEXT NOT NULL);
CREATE TABLE todo (session_id TEXT NOT NULL, content TEXT NOT NULL, status TEXT NOT NULL,
    priority TEXT NOT NULL, position INTEGER NOT NULL, time_created INTEGER NOT NULL,
    time_updated INTEGER NOT NULL);
"""

T0 = 1_767_000_000_000


def add_message(
    conn: sqlite3.Connection,
    session: str,
    mid: str,
    at: int,
    data: dict[str, Any],
    parts: list[dict[str, Any]],
) -> None:
    conn.execute("INSERT INTO message VALUES (?, ?, ?, ?, ?)", (mid, session, at, at, json.dumps(data)))
    for index, part in enumerate(parts):
        pid = f"prt_{mid}_{index:03d}"
        conn.execute(
            "INSERT INTO part VALUES (?, ?, ?, ?, ?, ?)", (pid, mid, session, at, at, json.dumps(part))
        )


def add_prompt(conn: sqlite3.Connection, session: str, mid: str, at: int, text: str) -> None:
    """A user message of one text part."""
    add_message(
        conn, session, mid, at, {"role": "user", "time": {"created": at}}, [{"type": "text", "text": text}]
    )


def make_db(path: Path) -> None:
    conn = sqlite3.connect(path)
    conn.execute("PRAGMA journal_mode=WAL")  # OpenCode's own mode
    conn.executescript(SCHEMA)
    conn.execute("INSERT INTO project VALUES ('p1', '/src/app', 'git', 'app', ?, ?)", (T0, T0))
    model = json.dumps({"id": "claude-sonnet-4", "providerID": "anthropic"})
    session_sql = (
        "INSERT INTO session (id, project_id, parent_id, slug, directory, title, version, model,"
        " time_created, time_updated) VALUES (?, 'p1', ?, ?, '/src/app', ?, '1.2.3', ?, ?, ?)"
    )
    conn.execute(session_sql, ("ses_a", None, "fix-login", "Fix the login bug", model, T0, T0 + 9000))
    conn.execute(
        session_sql,
        ("ses_b", "ses_a", "explore", "Explore auth (@explore subagent)", None, T0 + 100, T0 + 500),
    )
    user = {"role": "user", "time": {"created": T0 + 1000}, "agent": "build"}
    add_message(
        conn,
        "ses_a",
        "msg_001",
        T0 + 1000,
        user,
        [
            {"type": "text", "text": "fix the login bug in @src/auth.py"},
            {
                "type": "text",
                "text": 'Called the Read tool with the following input: {"filePath":"src/auth.py"}',
                "synthetic": True,
            },
            {
                "type": "file",
                "mime": "text/plain",
                "filename": "auth.py",
                "url": "file:///src/app/src/auth.py",
            },
        ],
    )
    assistant = {
        "role": "assistant",
        "time": {"created": T0 + 2000},
        "modelID": "claude-sonnet-4",
        "providerID": "anthropic",
        "path": {"cwd": "/src/app", "root": "/src/app"},
    }
    add_message(
        conn,
        "ses_a",
        "msg_002",
        T0 + 2000,
        assistant,
        [
            {"type": "step-start", "snapshot": "abc"},
            {"type": "reasoning", "text": "Let me think about sessions."},
            {"type": "text", "text": "The token check is inverted."},
            {
                "type": "tool",
                "callID": "c1",
                "tool": "edit",
                "state": {
                    "status": "completed",
                    "input": {"filePath": "/src/app/src/auth.py", "oldString": "<", "newString": ">"},
                    "output": "Edit applied.",
                    "title": "src/auth.py",
                    "metadata": {},
                },
            },
            {
                "type": "tool",
                "callID": "c2",
                "tool": "bash",
                "state": {"status": "error", "input": {"command": "pytest -q"}, "error": "1 failed"},
            },
            {
                "type": "tool",
                "callID": "c3",
                "tool": "task",
                "state": {"status": "running", "input": {"prompt": "explore"}},
            },
            {"type": "hologram", "text": "a part type from the future"},
            {"type": "step-finish", "reason": "stop", "tokens": {"input": 1, "output": 2}},
        ],
    )
    add_message(
        conn,
        "ses_a",
        "msg_003",
        T0 + 3000,
        {"role": "user", "time": {"created": T0 + 3000}},
        [
            {"type": "compaction", "auto": True},
        ],
    )
    add_message(
        conn,
        "ses_a",
        "msg_004",
        T0 + 4000,
        dict(assistant, summary=True, time={"created": T0 + 4000}),
        [
            {"type": "text", "text": "Summary: fixed the inverted token check in src/auth.py."},
        ],
    )
    add_message(
        conn,
        "ses_a",
        "msg_005",
        T0 + 5000,
        dict(
            assistant,
            time={"created": T0 + 5000},
            error={"name": "APIError", "data": {"message": "overloaded"}},
        ),
        [
            {"type": "retry", "attempt": 1, "error": {"name": "APIError", "data": {"message": "overloaded"}}},
        ],
    )
    add_prompt(conn, "ses_b", "msg_101", T0 + 200, "find where tokens are checked")
    add_message(
        conn,
        "ses_b",
        "msg_102",
        T0 + 300,
        dict(assistant, time={"created": T0 + 300}),
        [
            {
                "type": "tool",
                "callID": "c9",
                "tool": "grep",
                "state": {
                    "status": "completed",
                    "input": {"pattern": "token", "path": "src"},
                    "output": "src/auth.py:3",
                },
            },
            {"type": "text", "text": "In src/auth.py."},
        ],
    )
    conn.commit()
    conn.close()


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_database_sessions_read_only(tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    data.mkdir()
    db = data / "opencode.db"
    make_db(db)
    before = digest(db)
    result = ADAPTER.parse(db, Cursor())
    sessions = by_id(result.sessions)
    assert sorted(sessions) == ["ses_a", "ses_b"]
    main = sessions["ses_a"]
    assert [(t.kind, t.tool) for t in main.turns] == [
        (PROMPT, None),
        (SYSTEM, None),  # OpenCode's synthetic "Called the Read tool" text
        (ANSWER, None),
        (TOOL_CALL, "edit"),
        (TOOL_OUTPUT, "edit"),
        (TOOL_CALL, "bash"),
        (TOOL_OUTPUT, "bash"),
        (TOOL_CALL, "task"),  # still running: no output yet
        (SYSTEM, None),  # conversation compacted (auto)
        (SUMMARY, None),
        (ERROR, None),  # the retry part
        (ERROR, None),  # the message's own error
    ]
    prompt = main.turns[0]
    assert prompt.text == "fix the login bug in @src/auth.py" and prompt.paths == ("/src/app/src/auth.py",)
    edit = main.turns[3]
    assert edit.paths == ("/src/app/src/auth.py",) and edit.edited
    assert main.turns[6].is_error and main.turns[6].text == "1 failed"
    assert main.turns[9].text.startswith("Summary: fixed")
    assert main.turns[11].text == "APIError: overloaded"
    assert main.info.title == "Fix the login bug" and main.info.cwd == "/src/app"
    assert main.info.model == "claude-sonnet-4" and main.info.parent_id is None
    child = sessions["ses_b"]
    assert child.info.parent_id == "ses_a"
    assert [t.kind for t in child.turns] == [PROMPT, TOOL_CALL, TOOL_OUTPUT, ANSWER]
    assert result.stats.reasoning == 1 and result.stats.unknown == 1  # the "hologram" part
    # Read-only: the database file is untouched and no -wal/-shm files were left beside it.
    assert digest(db) == before
    assert sorted(p.name for p in data.iterdir()) == ["opencode.db"]


def test_unchanged_sessions_are_skipped_by_their_stamp(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    make_db(db)
    first = ADAPTER.parse(db, Cursor())
    assert len(first.sessions) == 2
    assert first.cursor.offset == 0 and sorted(first.cursor.state["stamps"]) == ["ses_a", "ses_b"]
    assert ADAPTER.parse(db, first.cursor).sessions == []
    # A copy where one session's change stamp moved: only that session comes back, whole.
    copy = tmp_path / "copy" / "opencode.db"
    copy.parent.mkdir()
    shutil.copyfile(db, copy)
    conn = sqlite3.connect(copy)
    conn.execute("UPDATE session SET time_updated = time_updated + 1 WHERE id = 'ses_b'")
    conn.commit()
    conn.close()
    second = ADAPTER.parse(copy, first.cursor)
    assert [(s.info.id, s.mode) for s in second.sessions] == [("ses_b", "replace")]
    assert [t.seq for t in second.sessions[0].turns] == [0, 1, 2, 3]
    # A new message moves the stamp too, even when the session row itself is not touched.
    conn = sqlite3.connect(copy)
    add_prompt(conn, "ses_a", "msg_006", T0 + 6000, "thanks")
    conn.commit()
    conn.close()
    third = ADAPTER.parse(copy, second.cursor)
    assert [s.info.id for s in third.sessions] == ["ses_a"]
    assert third.sessions[0].turns[-1].text == "thanks"


def test_discovery_prefers_the_database_over_a_migrated_tree(tmp_path: Path) -> None:
    data = tmp_path / "opencode"
    tree = data / "storage"
    shutil.copytree(corpus("transcripts", "opencode", "agent-sessions-fixture", "storage_v2"), tree)
    assert list(ADAPTER.discover(data)) == [tree]
    assert list(ADAPTER.discover(tree)) == [tree]
    make_db(data / "opencode.db")
    make_db(data / "opencode-beta.db")
    (data / "snapshot").mkdir()
    assert list(ADAPTER.discover(data)) == [data / "opencode-beta.db", data / "opencode.db"]


def test_old_0x_tree_layout(tmp_path: Path) -> None:
    root = tmp_path / "storage"
    (root / "session" / "info").mkdir(parents=True)
    (root / "session" / "info" / "ses_old.json").write_text(
        json.dumps({"id": "ses_old", "title": "Old", "time": {"created": T0, "updated": T0}})
    )
    messages = root / "session" / "message" / "ses_old"
    messages.mkdir(parents=True)
    (messages / "msg_1.json").write_text(json.dumps({"id": "msg_1", "role": "user", "time": {"created": T0}}))
    parts = root / "session" / "part" / "ses_old" / "msg_1"
    parts.mkdir(parents=True)
    (parts / "prt_1.json").write_text(json.dumps({"id": "prt_1", "type": "text", "text": "hello from 0.x"}))
    assert list(ADAPTER.discover(tmp_path)) == [root]
    (session,) = ADAPTER.parse(root, Cursor()).sessions
    assert session.info.title == "Old" and [(t.kind, t.text) for t in session.turns] == [
        (PROMPT, "hello from 0.x")
    ]


def test_a_live_database_is_read_with_its_write_ahead_log(tmp_path: Path) -> None:
    db = tmp_path / "opencode.db"
    make_db(db)
    first = ADAPTER.parse(db, Cursor())
    writer = sqlite3.connect(db)  # OpenCode still running: its last commit sits in the -wal file
    try:
        writer.execute("PRAGMA wal_autocheckpoint=0")
        add_prompt(writer, "ses_b", "msg_103", T0 + 400, "and the refresh tokens?")
        writer.commit()
        assert (tmp_path / "opencode.db-wal").stat().st_size > 0
        result = ADAPTER.parse(db, first.cursor)
        assert [s.info.id for s in result.sessions] == ["ses_b"]
        assert result.sessions[0].turns[-1].text == "and the refresh tokens?"
    finally:
        writer.close()
