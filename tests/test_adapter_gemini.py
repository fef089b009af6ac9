"""Gemini CLI adapter: the real legacy JSON sessions, the JSONL fixture, `$set`/`$rewindTo`, layout."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

import pytest

from hippo_git.transcripts.gemini import ADAPTER
from hippo_git.transcripts.model import ANSWER, PROMPT, SYSTEM, TOOL_CALL, TOOL_OUTPUT, Cursor, ParsedSession
from tests.adapter_support import append_jsonl, kinds
from tests.conftest import corpus

EXPECTED: dict[str, dict[str, Any]] = {
    "agent-sessions-fixture-jsonl_v040.jsonl": {
        "id": "gemini_stage0_jsonl",
        "kinds": {PROMPT: 1, TOOL_CALL: 1, TOOL_OUTPUT: 1, ANSWER: 1},
        "tools": ["run_shell_command"],
        "thoughts": 0,
    },
    "agent-sessions-fixture-small.json": {
        "id": "session-2026-01-16T18-34-3739ef95",
        "kinds": {PROMPT: 1, ANSWER: 1},
        "tools": [],
        "thoughts": 1,
    },
    "entire-12-cbfeaa512b_0.session.json": {
        "id": "faff42ab-6ea5-4f78-b8c4-f7dd6272af08",
        "kinds": {PROMPT: 2, ANSWER: 2, TOOL_CALL: 2, TOOL_OUTPUT: 2},
        "tools": ["read_file", "write_file"],
        "thoughts": 6,
    },
    # 1 user message, 11 gemini messages (10 with text, 9 tool calls), 1 `info` notice, 15 thoughts.
    "entire-ab-2b9748b105_0.session.json": {
        "id": "f7633853-6663-4dbb-bbf4-6159afa29df8",
        "kinds": {PROMPT: 1, ANSWER: 10, TOOL_CALL: 9, TOOL_OUTPUT: 9, SYSTEM: 1},
        "tools": [
            "write_file",
            "run_shell_command",  # ls -l docs/blue.md
            "run_shell_command",  # git status
            "run_shell_command",  # rm docs/blue.md
            "read_file",
            "run_shell_command",  # echo … >> docs/color.md
            "read_file",
            "run_shell_command",  # git status
            "run_shell_command",  # git add docs/color.md
        ],
        "thoughts": 15,
    },
    "entire-ec-38b74f08e3_2.session.json": {
        "id": "29eb990e-c773-4302-a4e7-317f0af0001f",
        "kinds": {SYSTEM: 1},
        "tools": [],
        "thoughts": 0,
    },
}


def test_every_corpus_file_is_discovered() -> None:
    folder = corpus("transcripts", "gemini-cli")
    assert sorted(p.name for p in ADAPTER.discover(folder)) == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_file(name: str) -> None:
    path = corpus("transcripts", "gemini-cli", name)
    expected = EXPECTED[name]
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert session.mode == "replace" and session.info.id == expected["id"]
    assert kinds(session) == expected["kinds"]
    assert [t.tool for t in session.turns if t.kind == TOOL_CALL] == expected["tools"]
    assert [t.tool for t in session.turns if t.kind == TOOL_OUTPUT] == expected["tools"]
    assert [t.seq for t in session.turns] == list(range(len(session.turns)))
    assert result.stats.reasoning == expected["thoughts"]
    assert result.stats.unknown == 0 and result.stats.torn == 0
    assert result.cursor.offset == path.stat().st_size


def test_corpus_facts() -> None:
    folder = corpus("transcripts", "gemini-cli")
    small = ADAPTER.parse(folder / "entire-12-cbfeaa512b_0.session.json", Cursor()).sessions[0]
    assert small.info.model == "gemini-2.5-flash"
    assert small.info.started == "2026-01-10T02:08:26.108Z" and small.info.ended == "2026-01-10T02:09:27.575Z"
    assert [t.text for t in small.turns if t.kind == PROMPT] == [
        "add new text to test-gemini.txt",
        '",how are you"',
    ]
    read, read_out, write, write_out = small.turns[3:7]
    assert read.paths == ("test-gemini.txt",) and not read.edited and read_out.text == "hello from gemini"
    assert write.paths == ("test-gemini.txt",) and write.edited
    assert write_out.text.startswith("Successfully overwrote file")
    # Thoughts are counted, never indexed.
    assert not any("Gathering User Input" in t.text or "I'm currently focused" in t.text for t in small.turns)
    big = ADAPTER.parse(folder / "entire-ab-2b9748b105_0.session.json", Cursor()).sessions[0]
    notice = next(t for t in big.turns if t.kind == SYSTEM)
    assert notice.text.startswith("Gemini CLI update available!")
    fixture = ADAPTER.parse(folder / "agent-sessions-fixture-jsonl_v040.jsonl", Cursor()).sessions[0]
    assert fixture.info.ended == "2026-04-29T21:39:45.996Z"  # `$set` lastUpdated, then the last message
    assert fixture.turns[2].text == "Output: AgentSessions/\nREADME.md\nProcess Group PGID: 12345"
    warning = ADAPTER.parse(folder / "entire-ec-38b74f08e3_2.session.json", Cursor()).sessions[0]
    assert warning.turns[0].text.startswith("Hook(s) [entire-session-end-exit] failed")


def user(mid: str, text: str) -> dict[str, Any]:
    return {"id": mid, "timestamp": "2026-04-29T21:39:33.155Z", "type": "user", "content": [{"text": text}]}


def gemini(mid: str, text: str, calls: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    record: dict[str, Any] = {
        "id": mid,
        "timestamp": "2026-04-29T21:39:35.125Z",
        "type": "gemini",
        "content": text,
        "thoughts": [{"subject": "s", "description": "secret thinking"}],
        "model": "gemini-3-pro",
    }
    if calls:
        record["toolCalls"] = calls
    return record


META = {"sessionId": "s-jsonl", "projectHash": "abc", "startTime": "2026-04-29T21:39:22.319Z", "kind": "main"}


def texts(session: ParsedSession) -> list[str]:
    return [t.text for t in session.turns]


def test_rewind_drops_the_target_and_everything_after(tmp_path: Path) -> None:
    path = tmp_path / "session-2026-04-29T21-39-s-jsonl.jsonl"
    append_jsonl(
        path, META, user("u1", "first"), gemini("g1", "one"), user("u2", "second"), gemini("g2", "two")
    )
    first = ADAPTER.parse(path, Cursor())
    assert texts(first.sessions[0]) == ["first", "one", "second", "two"]
    append_jsonl(path, {"$rewindTo": "u2"}, user("u3", "second, better"), gemini("g3", "three"))
    rewound = ADAPTER.parse(path, first.cursor)
    (session,) = rewound.sessions
    # History was rewritten: the whole session is read again and replaces what was indexed.
    assert session.mode == "replace"
    assert texts(session) == ["first", "one", "second, better", "three"]
    assert [t.seq for t in session.turns] == [0, 1, 2, 3]
    # Plain new messages afterwards are an append, numbered on.
    append_jsonl(
        path, {"$set": {"lastUpdated": "2026-04-29T22:00:00.000Z", "summary": "Greeting"}}, user("u4", "bye")
    )
    grown = ADAPTER.parse(path, rewound.cursor)
    (more,) = grown.sessions
    assert more.mode == "append" and [(t.seq, t.text) for t in more.turns] == [(4, "bye")]
    assert more.info.title == "Greeting" and more.info.ended == "2026-04-29T22:00:00.000Z"
    assert ADAPTER.parse(path, grown.cursor).sessions == []


def test_rewritten_ids_and_set_messages_checkpoints(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    call = {"id": "c1", "name": "replace", "args": {"file_path": "a.py"}, "status": "executing"}
    append_jsonl(path, META, user("u1", "edit a.py"), gemini("g1", "", [call]))
    first = ADAPTER.parse(path, Cursor())
    assert [t.kind for t in first.sessions[0].turns] == [PROMPT, TOOL_CALL, TOOL_OUTPUT]
    done = dict(call, status="error", result=[{"functionResponse": {"response": {"error": "no such file"}}}])
    append_jsonl(path, gemini("g1", "", [done]))  # the same message id written again, now finished
    again = ADAPTER.parse(path, first.cursor)
    (session,) = again.sessions
    assert session.mode == "replace"
    output = session.turns[2]
    assert output.is_error and output.text == "no such file" and session.turns[1].edited
    # A `$set` carrying `messages` is a checkpoint: it replaces the history.
    append_jsonl(path, {"$set": {"messages": [user("u9", "restored")]}})
    checkpoint = ADAPTER.parse(path, again.cursor)
    assert texts(checkpoint.sessions[0]) == ["restored"] and checkpoint.sessions[0].mode == "replace"


def test_torn_line_and_unknown_message_type(tmp_path: Path) -> None:
    path = tmp_path / "session.jsonl"
    append_jsonl(path, META, user("u1", "hi"), {"id": "x1", "type": "hologram", "content": "?"})
    whole = path.read_bytes()
    path.write_bytes(whole + b'{"id": "g1", "type": "gemi')
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert texts(session) == ["hi"] and result.stats.unknown == 1
    assert result.cursor.offset == len(whole)
    path.write_bytes(whole)
    append_jsonl(path, gemini("g1", "hello"))
    later = ADAPTER.parse(path, result.cursor)
    assert later.sessions[0].mode == "append" and texts(later.sessions[0]) == ["hello"]
    assert later.stats.reasoning == 1 and "secret thinking" not in texts(later.sessions[0])


def test_discovery_in_a_gemini_home(tmp_path: Path) -> None:
    home = tmp_path / ".gemini"
    chats = home / "tmp" / "my-repo" / "chats"
    chats.mkdir(parents=True)
    (home / "tmp" / "my-repo" / ".project_root").write_text("/src/my-repo\n")
    (home / "tmp" / "my-repo" / "logs.json").write_text("[]")
    (home / "tmp" / "my-repo" / "checkpoint-x.json").write_text("[]")
    main = chats / "session-2026-04-29T21-39-s-jsonl.jsonl"
    append_jsonl(main, META, user("u1", "hi"))
    child = chats / "s-jsonl" / "child-1.jsonl"
    child.parent.mkdir()
    append_jsonl(child, dict(META, sessionId="child-1", kind="subagent"), user("u1", "sub task"))
    old_hash = hashlib.sha256(b"/src/legacy").hexdigest()
    legacy = home / "tmp" / old_hash / "chats" / "session-2025-12-01T10-00-abc.json"
    legacy.parent.mkdir(parents=True)
    legacy.write_text(json.dumps(dict(META, sessionId="old", messages=[user("u1", "old days")])))
    (home / "projects.json").write_text(json.dumps({"projects": {"/src/legacy": "legacy"}}))
    (home / "settings.json").write_text("{}")
    found = list(ADAPTER.discover(home))
    assert sorted(found) == sorted([main, child, legacy])
    assert ADAPTER.parse(main, Cursor()).sessions[0].info.cwd == "/src/my-repo"
    sub = ADAPTER.parse(child, Cursor()).sessions[0]
    assert sub.info.parent_id == "s-jsonl" and sub.info.id == "child-1"
    assert ADAPTER.parse(legacy, Cursor()).sessions[0].info.cwd == "/src/legacy"  # sha256 folder name
