"""The cheaper parse paths give what the plain ones gave: incremental reads from the cursor, patch
paths found without a `^`-anchored scan, JSON scalars spelt without an encoder, non-times rejected
early, Claude Code lines timed once per line, Codex lines stamped once per distinct time."""

from __future__ import annotations

import json
import random
import re
from pathlib import Path
from typing import Any

import pytest
import zstandard

from hippo_git.transcripts.claude_code import ADAPTER as CLAUDE
from hippo_git.transcripts.codex import ADAPTER as CODEX
from hippo_git.transcripts.jsonl import LineReader, iso_text, render_fields, tool_paths
from hippo_git.transcripts.model import PROMPT, Cursor, ParseStats
from tests.adapter_support import append_jsonl, write_jsonl

# What `tool_paths` searched patches with before: a line-anchored pattern (slow on long inputs).
ANCHORED = re.compile(r"^\*\*\* (?:Add|Update|Delete) File: (.+)$", re.M)
PIECES = (
    "*** ",
    "Update File: ",
    "Add File: ",
    "Delete File: ",
    "Move to: ",
    "a.py",
    " b/c.py",
    "\n",
    "\r",
    "x",
)


def anchored_paths(text: str) -> tuple[str, ...]:
    return tuple(dict.fromkeys(m.strip() for m in ANCHORED.findall(text)))


def test_patch_paths_are_those_of_the_line_anchored_pattern() -> None:
    rnd = random.Random(5)
    texts = ["".join(rnd.choice(PIECES) for _ in range(rnd.randrange(1, 40))) for _ in range(3000)]
    texts += ["*** Update File: a.py", "x*** Update File: a.py\n*** Add File: b.py", "*** Add File: \n"]
    for text in texts:
        want = anchored_paths(text)
        assert tool_paths("apply_patch", text) == (want, bool(want)), text
        assert tool_paths("edit", {"input": text}) == (want, bool(want)), text
    assert sum(bool(anchored_paths(t)) for t in texts) > 100  # the fuzz does reach real paths


def test_tool_paths_keep_key_order_and_skip_what_is_not_a_path() -> None:
    args = {
        "paths": ["b.py", 3, "", "two\nlines", "a.py"],
        "file_path": "a.py",
        "path": 7,
        "patch": "*** Begin Patch\n*** Delete File: c.py\n*** End Patch",
    }
    assert tool_paths("MultiEdit", args) == (("a.py", "b.py", "c.py"), True)
    assert tool_paths("read_file", {"path": "x.md"}) == (("x.md",), False)
    assert tool_paths("exec_command", {"cmd": "ls", "workdir": "/w"}) == ((), False)
    assert tool_paths("write", {"file_path": ""}) == ((), False)
    assert tool_paths("edit", '{"file_path": "j.py"}') == (("j.py",), True)


def test_tool_input_scalars_are_spelt_as_json() -> None:
    values: dict[str, Any] = {
        "t": True,
        "f": False,
        "n": 12,
        "neg": -3,
        "big": 2**70,
        "x": 1.5,
        "mixed": [1, "x", None],
        "words": ["a", "b"],
        "nested": {"k": [True]},
        "none": None,
        "empty": "",
    }
    want = "\n".join(
        f"{key}: {' '.join(v) if key == 'words' else json.dumps(v, ensure_ascii=False)}"
        for key, v in values.items()
        if v is not None and v != ""
    )
    assert render_fields(values) == want
    assert render_fields(7) == "7" and render_fields(False) == "false"


@pytest.mark.parametrize(
    ("value", "want"),
    [
        ("2026-03-01T10:00:00+01:00", "2026-03-01T09:00:00.000Z"),
        ("2026-03-01", "2026-03-01T00:00:00.000Z"),
        ("[trimmed for fixture]", None),
        (" 2026-03-01", None),
        ("Z", None),
        ("", None),
        ("٢٠٢٦-03-01", None),  # digits, but not the ASCII ones a year is written in
        (None, None),
    ],
)
def test_iso_text_rejects_what_is_no_time(value: Any, want: str | None) -> None:
    assert iso_text(value) == want


# --- reading on from a cursor ------------------------------------------------------------------------


def rec(n: int) -> dict[str, Any]:
    return {"n": n, "digits": 10**20 + n}  # beyond 64 bits: must come back an exact int


def test_line_reader_reads_on_from_its_offset(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "log.jsonl", rec(1), rec(2), tail=json.dumps(rec(3)))
    first = LineReader(path, 0, ParseStats())
    assert list(first) == [rec(1), rec(2), rec(3)]  # a whole last line is taken, newline or not
    assert first.offset == path.stat().st_size
    append_jsonl(path, "", rec(4), tail='{"n": 5')  # the newline line 3 lacked, line 4, a torn tail
    second = LineReader(path, first.offset, ParseStats())
    assert list(second) == [rec(4)]
    assert second.offset == path.stat().st_size - len('{"n": 5')
    assert (second.stats.records, second.stats.torn, second.restarted) == (1, 0, False)
    with path.open("a") as handle:
        handle.write("}\n")
    third = LineReader(path, second.offset, ParseStats())
    assert list(third) == [{"n": 5}] and third.offset == path.stat().st_size


@pytest.mark.parametrize("compressed", [False, True])
def test_line_reader_restarts_a_file_shorter_than_its_offset(tmp_path: Path, compressed: bool) -> None:
    body = "".join(json.dumps(rec(n)) + "\n" for n in range(3)).encode()
    path = tmp_path / ("log.jsonl.zst" if compressed else "log.jsonl")
    path.write_bytes(zstandard.ZstdCompressor().compress(body) if compressed else body)
    reader = LineReader(path, len(body) + 10, ParseStats())
    assert list(reader) == [rec(0), rec(1), rec(2)]
    assert reader.restarted and reader.offset == len(body)


# --- Claude Code: one time per line ------------------------------------------------------------------


def claude_line(kind: str, ts: str | None, **extra: Any) -> dict[str, Any]:
    line = {"type": kind, "sessionId": "s1", "cwd": "/w", "gitBranch": "main", **extra}
    return line if ts is None else {**line, "timestamp": ts}


def prompt(words: str) -> dict[str, Any]:
    return {"role": "user", "content": words}


def test_claude_agent_progress_copy_is_timed_by_its_own_message(tmp_path: Path) -> None:
    inner_user = {"type": "user", "timestamp": "2026-01-01T00:00:05.000Z", "message": prompt("sub task")}
    inner_answer = {
        "type": "assistant",
        "message": {"id": "m9", "content": [{"type": "text", "text": "done"}]},
    }
    path = write_jsonl(
        tmp_path / "s1.jsonl",
        claude_line("user", "2026-01-01T00:00:00.000Z", uuid="u1", message=prompt("go")),
        claude_line(
            "progress",
            "2026-01-01T00:00:09.000Z",
            cwd="/w/sub",
            gitBranch="feature",
            data={"type": "agent_progress", "agentId": "a1", "message": inner_user},
        ),
        claude_line(
            "progress",
            "2026-01-01T00:00:20.000Z",
            data={"type": "agent_progress", "agentId": "a1", "message": inner_answer},
        ),
    )
    main, sub = CLAUDE.parse(path, Cursor()).sessions
    assert sub.info.id == "s1/agent-a1" and sub.info.parent_id == "s1"
    assert [(t.kind, t.text, t.ts) for t in sub.turns] == [
        (PROMPT, "sub task", "2026-01-01T00:00:05.000Z"),  # the copied message's own time
        ("answer", "done", "2026-01-01T00:00:20.000Z"),  # none of its own: the progress line's
    ]
    assert (sub.info.started, sub.info.ended) == ("2026-01-01T00:00:05.000Z", "2026-01-01T00:00:20.000Z")
    assert (sub.info.cwd, sub.info.git_branch) == ("/w/sub", "main")  # the first cwd stays, branches follow
    assert (main.info.started, main.info.ended) == ("2026-01-01T00:00:00.000Z",) * 2


def test_claude_repeated_line_counts_once_and_odd_types_are_unknown(tmp_path: Path) -> None:
    again = claude_line("user", "2026-01-01T00:00:00.000Z", uuid="u1", message=prompt("hello"))
    path = write_jsonl(
        tmp_path / "s1.jsonl",
        again,
        again,  # a resumed session writes its last lines again: same uuid, same time
        {**again, "timestamp": "2026-01-01T00:00:01.000Z"},  # same uuid, new time: a line of its own
        claude_line("user", None, uuid="u2", message=prompt("untimed")),
        claude_line("user", None, uuid="u2", message=prompt("untimed")),  # no time: never a repeat
        {"type": ["user"], "message": prompt("not a type")},
        {"type": 5},
        claude_line(
            "attachment",
            "2026-01-01T00:00:07.000Z",
            attachment={"type": "queued_command", "prompt": "typed while busy"},
        ),
    )
    result = CLAUDE.parse(path, Cursor())
    (session,) = result.sessions
    assert [(t.text, t.ts) for t in session.turns] == [
        ("hello", "2026-01-01T00:00:00.000Z"),
        ("hello", "2026-01-01T00:00:01.000Z"),
        ("untimed", None),
        ("untimed", None),
        ("typed while busy", "2026-01-01T00:00:07.000Z"),
    ]
    assert (result.stats.records, result.stats.duplicates, result.stats.unknown) == (8, 1, 2)
    assert session.info.ended == "2026-01-01T00:00:07.000Z"


# --- Codex: one stamp per distinct time --------------------------------------------------------------


def envelope(kind: str, payload: dict[str, Any], ts: str | None) -> dict[str, Any]:
    line: dict[str, Any] = {"type": kind, "payload": payload}
    return line if ts is None else {"timestamp": ts, **line}


def test_codex_session_times_with_repeated_missing_and_unordered_times(tmp_path: Path) -> None:
    meta = {"id": "c1", "timestamp": "2026-03-01T10:00:05.000Z", "cwd": "/w"}
    path = write_jsonl(
        tmp_path / "rollout-c1.jsonl",
        envelope("session_meta", meta, "2026-03-01T10:00:05.000Z"),
        envelope("event_msg", {"type": "token_count"}, None),
        envelope("event_msg", {"type": "user_message", "message": "one"}, "2026-03-01T10:00:09.000Z"),
        envelope("event_msg", {"type": "agent_message", "message": "a"}, "2026-03-01T10:00:09.000Z"),
        envelope("event_msg", {"type": "user_message", "message": "two"}, "2026-03-01T10:00:09.000Z"),
        envelope("event_msg", {"type": "token_count"}, "2026-03-01T09:59:59.000Z"),
        envelope("event_msg", {"type": "token_count"}, "2026-03-01T10:00:09.000Z"),
        envelope("event_msg", {"type": "token_count"}, "2026-03-01 12:00:00+01:00"),
    )
    result = CODEX.parse(path, Cursor())
    (session,) = result.sessions
    assert [(t.text, t.ts) for t in session.turns] == [
        ("one", "2026-03-01T10:00:09.000Z"),
        ("two", "2026-03-01T10:00:09.000Z"),
    ]
    assert (session.info.started, session.info.ended) == (
        "2026-03-01T09:59:59.000Z",
        "2026-03-01T11:00:00.000Z",
    )
    assert (result.stats.records, result.stats.duplicates) == (8, 1)


def test_codex_line_without_a_time_still_makes_a_session(tmp_path: Path) -> None:
    path = write_jsonl(tmp_path / "rollout-c2.jsonl", envelope("event_msg", {"type": "token_count"}, None))
    (session,) = CODEX.parse(path, Cursor()).sessions
    assert session.info.id == "c2" and session.turns == []
    assert (session.info.started, session.info.ended) == (None, None)
