"""Cursor state that costs the redactor little: Claude Code keeps digests of its last lines, not
their ids; cursors written before that still resume; tool names still cross an append."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from hippo_git.index.prepare import Prepared, Task, prepare
from hippo_git.index.scrub import Scrubber
from hippo_git.transcripts.claude_code import ADAPTER as CLAUDE
from hippo_git.transcripts.codex import ADAPTER as CODEX
from hippo_git.transcripts.model import PROMPT, TOOL_CALL, TOOL_OUTPUT, Cursor, ParseResult
from hippo_git.transcripts.redact import Redactor
from tests.adapter_support import append_jsonl, write_jsonl

SID = "5d1c2b0e-8f3a-4c55-9a61-2b7e0c9d4f18"
TOOL_ID = "toolu_01AbCdEfGhIjKlMnOpQrStUv"
# What the code before digests wrote after reading `_first_lines()`, as the index stored it.
OLD_STATE = {
    "v": 1,
    "sid": SID,
    "main": {
        "info": {
            "id": SID,
            "harness": "claude-code",
            "cwd": "/w",
            "title": "list the files",
            "started": "2025-10-25T21:04:01.000Z",
            "ended": "2025-10-25T21:04:02.000Z",
            "parent_id": None,
            "model": None,
            "git_branch": None,
        },
        "seq": 2,
        "rank": 0,
    },
    "subs": {},
    "side": {},
    "tools": {TOOL_ID: "Bash"},
    "recent": [
        "00000000-0000-4000-8000-000000000001 2025-10-25T21:04:01.000Z",
        "00000000-0000-4000-8000-000000000002 2025-10-25T21:04:02.000Z",
    ],
    "agent_type": None,
}


def _line(n: int, kind: str, content: Any) -> dict[str, Any]:
    return {
        "type": kind,
        "sessionId": SID,
        "uuid": f"00000000-0000-4000-8000-{n:012d}",
        "timestamp": f"2025-10-25T21:04:{n:02d}.000Z",
        "cwd": "/w",
        "message": {"role": kind, "content": content},
    }


def _first_lines() -> list[dict[str, Any]]:
    call = {"type": "tool_use", "id": TOOL_ID, "name": "Bash", "input": {"command": "ls"}}
    return [_line(1, "user", "list the files"), _line(2, "assistant", [call])]


def _result_line(n: int, tool_id: str) -> dict[str, Any]:
    return _line(n, "user", [{"type": "tool_result", "tool_use_id": tool_id, "content": "a.txt"}])


def _stored(state: dict[str, Any]) -> dict[str, Any]:
    """`state` as the index gives it back: redacted, then through JSON."""
    return dict(json.loads(json.dumps(Scrubber().state(state))))


def _turns(result: ParseResult) -> list[tuple[int, str, str, str | None]]:
    return [(t.seq, t.kind, t.text, t.tool) for s in result.sessions for t in s.turns]


def test_cursor_from_before_digests_resumes_where_it_stopped(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"{SID}.jsonl", *_first_lines())
    offset = path.stat().st_size
    assert CLAUDE.parse(path, Cursor()).cursor.offset == offset
    # A resume writes the last line again; then the tool's result and a prompt come.
    append_jsonl(path, _first_lines()[-1], _result_line(3, TOOL_ID), _line(4, "user", "thanks"))
    second = CLAUDE.parse(path, Cursor(offset, _stored(OLD_STATE)))
    assert [s.mode for s in second.sessions] == ["append"]
    assert second.stats.duplicates == 1
    assert _turns(second) == [(2, TOOL_OUTPUT, "a.txt", "Bash"), (3, PROMPT, "thanks", None)]
    whole = CLAUDE.parse(path, Cursor())
    assert _turns(whole)[2:] == _turns(second)
    # The cursor it wrote is in the new shape, and keeps what the old one knew.
    state = _stored(second.cursor.state)
    assert "recent" not in state and len(state["seen"].split()) == 4
    append_jsonl(path, _line(4, "user", "thanks"), _line(2, "assistant", "again"))
    third = CLAUDE.parse(path, Cursor(second.cursor.offset, state))
    assert third.stats.duplicates == 2 and _turns(third) == []


def test_old_cursor_is_taken_as_it_is_through_prepare(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"{SID}.jsonl", *_first_lines())
    first = prepare(Task("claude-code", str(path), path.stat().st_size, False, None, False), Scrubber())
    size = path.stat().st_size
    append_jsonl(path, _result_line(3, TOOL_ID))
    row = (first.offset, json.dumps(OLD_STATE), size, first.head_hash)
    got: Prepared = prepare(Task("claude-code", str(path), path.stat().st_size, False, row, True), Scrubber())
    assert got.error is None and not got.reset
    (session,) = got.sessions
    assert session.append and [(r[0], r[1], r[4]) for r in session.rows] == [(2, TOOL_OUTPUT, "Bash")]


def test_tool_name_is_found_across_an_append(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / f"{SID}.jsonl", *_first_lines())
    first = CLAUDE.parse(path, Cursor())
    assert _turns(first)[-1] == (1, TOOL_CALL, "command: ls", "Bash")
    append_jsonl(path, _result_line(3, TOOL_ID), _result_line(4, "toolu_unknown"))
    second = CLAUDE.parse(path, Cursor(first.cursor.offset, _stored(first.cursor.state)))
    assert [(t[1], t[3]) for t in _turns(second)] == [(TOOL_OUTPUT, "Bash"), (TOOL_OUTPUT, None)]
    assert _stored(second.cursor.state)["tools"] == {}  # an answered call is not kept


def test_codex_tool_name_is_found_across_an_append(tmp_path: Path) -> None:
    def rec(kind: str, **payload: Any) -> dict[str, Any]:
        return {"timestamp": "2026-03-01T10:00:00.000Z", "type": kind, "payload": payload}

    call = rec("response_item", type="function_call", name="shell", call_id="call_7Hq2", arguments="{}")
    path = write_jsonl(tmp_path / "rollout-x.jsonl", rec("session_meta", id="s-1", cwd="/w"), call)
    first = CODEX.parse(path, Cursor())
    append_jsonl(path, rec("response_item", type="function_call_output", call_id="call_7Hq2", output="ok"))
    second = CODEX.parse(path, Cursor(first.cursor.offset, _stored(first.cursor.state)))
    assert [(t[1], t[2], t[3]) for t in _turns(second)] == [(TOOL_OUTPUT, "ok", "shell")]
    assert _stored(second.cursor.state)["calls"] == {}


def test_last_lines_are_kept_as_one_string_of_short_digests(tmp_path: Path) -> None:
    lines = [_line(n, "user" if n % 2 else "assistant", f"line {n}") for n in range(1, 41)]
    path = write_jsonl(tmp_path / f"{SID}.jsonl", *lines)
    result = CLAUDE.parse(path, Cursor())
    seen = result.cursor.state["seen"]
    words = seen.split(" ")
    assert len(words) == 16 and all(re.fullmatch(r"[0-9a-f]{16}", w) for w in words)
    redactor = Redactor()
    assert redactor.redact(seen) == seen and redactor.counts == {}
    assert "00000000-0000-4000-8000" not in json.dumps(result.cursor.state)
    # Only the last 16 lines are known to the next read: a copy of the 25th is one, of the 24th not.
    append_jsonl(path, lines[24], lines[23])
    again = CLAUDE.parse(path, Cursor(result.cursor.offset, _stored(result.cursor.state)))
    assert again.stats.duplicates == 1 and [t[2] for t in _turns(again)] == ["line 24"]
