"""Command Code adapter: both documented line shapes, written here from FORMATS.md §6 (no public sample)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hippo_git.transcripts.command_code import ADAPTER
from hippo_git.transcripts.model import ANSWER, PROMPT, SYSTEM, TOOL_CALL, TOOL_OUTPUT, Cursor
from tests.adapter_support import append_jsonl, write_jsonl

SESSION = "33333333-3333-4333-8333-333333333333"


def bare(role: str, content: Any, second: int) -> dict[str, Any]:
    return {
        "role": role,
        "content": content,
        "timestamp": f"2026-06-16T05:58:{second:02d}.580Z",
        "sessionId": SESSION,
    }


BARE = [
    bare("user", [{"type": "text", "text": "read config.py and fix the typo"}], 10),
    bare(
        "assistant",
        [
            {"type": "reasoning", "text": "I should read it first."},
            {"type": "text", "text": "Reading the file."},
            {
                "type": "tool-call",
                "toolCallId": "c1",
                "toolName": "read_file",
                "input": {"path": "config.py"},
            },
        ],
        11,
    ),
    bare(
        "tool",
        [{"type": "tool-result", "toolCallId": "c1", "output": {"type": "text", "value": "TIMEOUT = 3O"}}],
        12,
    ),
    bare(
        "assistant",
        [
            {
                "type": "tool-call",
                "toolCallId": "c2",
                "toolName": "edit_file",
                "input": {"file_path": "config.py"},
            }
        ],
        13,
    ),
    bare(
        "tool",
        [
            {
                "type": "tool-result",
                "toolCallId": "c2",
                "output": {"type": "error-text", "value": "permission denied"},
            }
        ],
        14,
    ),
    bare("assistant", "I could not write config.py: permission denied.", 15),
]


def test_bare_model_messages(tmp_path: Path) -> None:
    home = tmp_path / ".commandcode"
    path = home / "projects" / "home-ada-repo" / f"{SESSION}.jsonl"
    write_jsonl(path, *BARE)
    write_jsonl(home / "projects" / "home-ada-repo" / f"{SESSION}.checkpoints.jsonl", {"snapshot": 1})
    (home / "config.json").write_text(
        json.dumps({"provider": "command-code", "model": "MiniMaxAI/MiniMax-M3"})
    )
    assert list(ADAPTER.discover(home / "projects")) == [path]  # the checkpoint stream is skipped
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert session.info.id == SESSION and session.info.model == "MiniMaxAI/MiniMax-M3"
    assert (
        session.info.started == "2026-06-16T05:58:10.580Z"
        and session.info.ended == "2026-06-16T05:58:15.580Z"
    )
    assert [t.kind for t in session.turns] == [
        PROMPT,
        ANSWER,
        TOOL_CALL,
        TOOL_OUTPUT,
        TOOL_CALL,
        TOOL_OUTPUT,
        ANSWER,
    ]
    read, read_out, edit, edit_out = session.turns[2:6]
    assert read.tool == "read_file" and read.paths == ("config.py",) and not read.edited
    assert read_out.tool == "read_file" and read_out.text == "TIMEOUT = 3O" and not read_out.is_error
    assert edit.edited and edit_out.is_error and edit_out.text == "permission denied"
    assert session.turns[-1].text == "I could not write config.py: permission denied."
    assert result.stats.reasoning == 1 and result.stats.unknown == 0
    assert not any("I should read it first" in t.text for t in session.turns)


def typed(mid: str, parent: str | None, ts: str, role: str, text: str, source: str) -> dict[str, Any]:
    """A newer `{type: "message"}` line: one text part, `meta.source` saying who wrote it."""
    message = {"role": role, "content": [{"type": "text", "text": text}], "meta": {"source": source}}
    return {"type": "message", "id": mid, "parentId": parent, "timestamp": ts, "message": message}


TYPED = [
    {"type": "session", "version": 3, "id": SESSION, "timestamp": "2026-09-03T08:00:00.000Z", "cwd": "/w"},
    typed(
        "aa11bb22",
        None,
        "2026-09-03T08:00:01.000+02:00",
        "user",
        "<system-reminder>use tabs</system-reminder>",
        "system",
    ),
    typed("bb22cc33", "aa11bb22", "2026-09-03T08:00:02.000Z", "user", "ping", "user"),
    typed("cc33dd44", "bb22cc33", "2026-09-03T08:00:03.000Z", "assistant", "PONG", "model"),
    {"type": "checkpoint-marker", "id": "x"},
]


def test_typed_message_lines_and_damage(tmp_path: Path) -> None:
    path = tmp_path / "w" / f"{SESSION}.jsonl"
    write_jsonl(
        path, *TYPED[:2], "{garbage", *TYPED[2:], tail='{"type": "message", "message": {"role": "assis'
    )
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert session.info.id == SESSION and session.info.cwd == "/w"
    # Only meta.source == "user" marks a person's words; an injected reminder is a system notice.
    assert [(t.kind, t.text) for t in session.turns] == [
        (SYSTEM, "<system-reminder>use tabs</system-reminder>"),
        (PROMPT, "ping"),
        (ANSWER, "PONG"),
    ]
    assert session.turns[0].ts == "2026-09-03T06:00:01.000Z"  # offsets are normalised to UTC
    assert result.stats.torn == 1 and result.stats.unknown == 1
    assert result.cursor.offset < path.stat().st_size  # the torn last line is not consumed


def test_incremental_read(tmp_path: Path) -> None:
    path = tmp_path / f"{SESSION}.jsonl"
    write_jsonl(path, *BARE[:3])
    first = ADAPTER.parse(path, Cursor())
    assert [t.kind for t in first.sessions[0].turns] == [PROMPT, ANSWER, TOOL_CALL, TOOL_OUTPUT]
    append_jsonl(path, *BARE[3:])
    second = ADAPTER.parse(path, first.cursor)
    (more,) = second.sessions
    assert more.mode == "append" and more.info.id == SESSION
    assert [(t.seq, t.kind) for t in more.turns] == [(4, TOOL_CALL), (5, TOOL_OUTPUT), (6, ANSWER)]
    assert more.turns[1].tool == "edit_file"
    assert ADAPTER.parse(path, second.cursor).sessions == []
