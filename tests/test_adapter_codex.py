"""Codex adapter: every corpus rollout, legacy and enveloped shapes, forks, zstd, incremental reads."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from hippo_git.transcripts.codex import ADAPTER
from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SUMMARY,
    SYSTEM,
    TOOL_CALL,
    TOOL_OUTPUT,
)
from hippo_git.transcripts.registry import get_adapter
from tests.adapter_support import Reads, kinds, line_cuts, read_in_two, write_jsonl
from tests.conftest import corpus

ROOT = ("transcripts", "codex")
BIG = "localpush-sanitized/rollout-2026-02-23T12-54-34-019c8a59-e9dd-71f0-9ae3-4079fe9726a9.jsonl"
DESKTOP = "localpush-sanitized/rollout-2026-02-23T13-19-38-019c8a70-dda7-7f33-98ea-f30553347322.jsonl"
SHORT = "localpush-sanitized/rollout-2026-02-23T20-34-25-019c8bfe-ec25-79e0-97d7-bda6a9c575ff.jsonl"
LEGACY = "claude-code-log-fixture/rollout-44444444-4444-4444-8444-444444444444.jsonl"

# Per corpus file: stats, the session id, its turns by kind. Prompts come from
# event_msg/user_message; response-item copies of them and event echoes count as duplicates.
EXPECTED: dict[str, tuple[dict[str, int], str, dict[str, int]]] = {
    "agent-history-real/session-01.jsonl": (
        {"unknown": 0, "reasoning": 0, "duplicates": 2},
        "019e9625-802f-7e91-840a-cfe88d14117a",
        {PROMPT: 1, ANSWER: 1, SYSTEM: 2},
    ),
    "agent-sessions-fixture-small.jsonl": (
        {"unknown": 0, "reasoning": 2, "duplicates": 38},
        "019fc8be-3658-7ca3-9e29-000000000000",
        {PROMPT: 3, ANSWER: 1, TOOL_CALL: 8, TOOL_OUTPUT: 5, SUMMARY: 5, ERROR: 2, SYSTEM: 4},
    ),
    LEGACY: (
        {"unknown": 0, "reasoning": 0, "duplicates": 0},
        "44444444-4444-4444-8444-444444444444",
        {PROMPT: 1, ANSWER: 1},
    ),
    BIG: (
        {"unknown": 0, "reasoning": 219, "duplicates": 501},
        "019c8a59-e9dd-71f0-9ae3-4079fe9726a9",
        {PROMPT: 38, ANSWER: 255, TOOL_CALL: 372, TOOL_OUTPUT: 365, SUMMARY: 1, SYSTEM: 45},
    ),
    DESKTOP: (
        {"unknown": 0, "reasoning": 1, "duplicates": 6},
        "019c8a70-dda7-7f33-98ea-f30553347322",
        {PROMPT: 1, ANSWER: 1, TOOL_CALL: 1, SYSTEM: 4},
    ),
    SHORT: (
        {"unknown": 0, "reasoning": 6, "duplicates": 15},
        "019c8bfe-ec25-79e0-97d7-bda6a9c575ff",
        {PROMPT: 1, ANSWER: 6, TOOL_CALL: 5, TOOL_OUTPUT: 5, SYSTEM: 4},
    ),
}


READS = Reads(ADAPTER)
parse, one = READS.parse, READS.one


def envelope(kind: str, payload: dict[str, Any], ts: str = "2026-03-01T10:00:00.000Z") -> dict[str, Any]:
    return {"timestamp": ts, "type": kind, "payload": payload}


def meta(sid: str, **extra: Any) -> dict[str, Any]:
    return envelope(
        "session_meta", {"id": sid, "timestamp": "2026-03-01T10:00:00.000Z", "cwd": "/w", **extra}
    )


def item(**payload: Any) -> dict[str, Any]:
    return envelope("response_item", payload)


def event(**payload: Any) -> dict[str, Any]:
    return envelope("event_msg", payload)


def test_registry_and_every_corpus_file_is_listed() -> None:
    root = corpus(*ROOT)
    assert get_adapter("codex") is ADAPTER
    assert {p.relative_to(root).as_posix() for p in root.rglob("*.jsonl")} == set(EXPECTED)
    # discover finds the `rollout-*` files; the two fixtures named otherwise are parsed directly.
    found = {p.relative_to(root).as_posix() for p in ADAPTER.discover(root)}
    assert found == {name for name in EXPECTED if Path(name).name.startswith("rollout-")}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_file(name: str) -> None:
    stats, sid, turns = EXPECTED[name]
    result = parse(corpus(*ROOT, name))
    assert {k: getattr(result.stats, k) for k in stats} == stats
    assert (result.stats.torn, result.stats.recovered) == (0, 0)
    (session,) = result.sessions
    assert (session.info.id, session.info.harness, session.mode) == (sid, "codex", "replace")
    assert kinds(session) == turns
    assert [t.seq for t in session.turns] == list(range(len(session.turns)))
    json.dumps(result.cursor.state)


def test_session_01_by_hand() -> None:
    session = one(corpus(*ROOT, "agent-history-real/session-01.jsonl"))
    info = session.info
    assert info.cwd == "/tmp/agent-history-real-agent/codex/workspace"
    assert (info.model, info.parent_id, info.title) == ("gpt-5.5", None, "[REDACTED_PROMPT]")
    assert (info.started, info.ended) == ("2026-06-05T04:58:20.593Z", "2026-06-05T04:58:26.713Z")
    assert [(t.kind, t.text.splitlines()[0]) for t in session.turns] == [
        (SYSTEM, "[REDACTED_DEVELOPER_CONTEXT]"),  # developer message
        (SYSTEM, "<environment_context>"),  # injected, not a prompt
        (PROMPT, "[REDACTED_PROMPT]"),
        (ANSWER, "[REDACTED_ASSISTANT_TEXT]"),  # once, though event_msg/agent_message repeats it
    ]


def test_legacy_rollout_by_hand() -> None:
    session = one(corpus(*ROOT, LEGACY))
    assert [(t.kind, t.text, t.ts) for t in session.turns] == [
        (PROMPT, "Open the synthetic legacy session.", None),
        (ANSWER, "The synthetic legacy session is open.", None),
    ]
    assert session.info.started == "2026-01-04T05:06:07.000Z"
    assert session.info.title == "Open the synthetic legacy session."


def test_big_rollout_tools_and_compaction() -> None:
    session = one(corpus(*ROOT, BIG))
    calls = Counter(t.tool for t in session.turns if t.kind == TOOL_CALL)
    assert (calls["exec_command"], calls["write_stdin"], calls["apply_patch"], calls["web_search"]) == (
        212,
        70,
        49,
        7,
    )
    # every output found its call by call_id
    outputs = Counter(t.tool for t in session.turns if t.kind == TOOL_OUTPUT)
    assert None not in outputs and outputs["apply_patch"] == 49
    (summary,) = [t for t in session.turns if t.kind == SUMMARY]
    assert (
        summary.text == "[REDACTED_MESSAGE len=0 sha=e3b0c442]" and summary.ts == "2026-02-24T09:51:48.878Z"
    )
    assert session.info.git_branch == "main" and session.info.model == "gpt-5.3-codex"


def test_desktop_rollout_metadata() -> None:
    info = one(corpus(*ROOT, DESKTOP)).info
    assert info.cwd == "/redacted/path/da0ba47443"
    assert info.git_branch is not None


def test_fixture_small_fork_title_errors() -> None:
    session = one(corpus(*ROOT, "agent-sessions-fixture-small.jsonl"))
    info = session.info
    # seven session_meta lines: the first names the session, a later one is the fork parent
    assert info.id == "019fc8be-3658-7ca3-9e29-000000000000"
    assert info.parent_id == "[trimmed for fixture]"
    assert info.title == "[trimmed for fixture]"  # thread_name_updated
    assert [t.text for t in session.turns[:3]] == ["List the files", "command: ls", "command: ls"]
    assert session.turns[3].tool == "shell" and session.turns[3].text == "a.txt"
    compactions = [t for t in session.turns if t.kind in (SUMMARY, SYSTEM) and "compacted" in t.text.lower()]
    assert len(compactions) == 1  # the one `compacted` line whose message is empty
    assert all(t.is_error for t in session.turns if t.kind == ERROR)


def test_apply_patch_paths_and_exit_codes(tmp_path: Path) -> None:
    patch = "*** Begin Patch\n*** Update File: src/app.py\n@@\n-a\n+b\n*** Add File: docs/notes.md\n+hi\n*** End Patch"
    shell_patch = {"command": ["bash", "-lc", f"apply_patch <<'EOF'\n{patch}\nEOF"], "workdir": "/w"}
    path = write_jsonl(
        tmp_path / "rollout-x.jsonl",
        meta("s-1"),
        event(type="user_message", message="fix it"),
        item(type="custom_tool_call", name="apply_patch", call_id="c1", input=patch),
        item(type="custom_tool_call_output", call_id="c1", output="Success. Updated the following files"),
        item(type="function_call", name="shell", call_id="c2", arguments=json.dumps(shell_patch)),
        item(
            type="function_call_output",
            call_id="c2",
            output=json.dumps({"output": "boom", "metadata": {"exit_code": 1}}),
        ),
        item(type="function_call", name="exec_command", call_id="c3", arguments='{"cmd": "cat README.md"}'),
        item(
            type="function_call_output",
            call_id="c3",
            output="Chunk ID: 1\nProcess exited with code 2\nOutput:\nnope",
        ),
        item(
            type="local_shell_call",
            call_id="c4",
            status="completed",
            action={"type": "exec", "command": ["ls", "-la"]},
        ),
        item(type="function_call_output", call_id="c4", output="Exit code: 0\ntotal 0"),
    )
    turns = one(path).turns
    assert [(t.kind, t.tool, t.paths, t.edited, t.is_error) for t in turns] == [
        (PROMPT, None, (), False, False),
        (TOOL_CALL, "apply_patch", ("src/app.py", "docs/notes.md"), True, False),
        (TOOL_OUTPUT, "apply_patch", (), False, False),
        (TOOL_CALL, "shell", ("src/app.py", "docs/notes.md"), True, False),
        (TOOL_OUTPUT, "shell", (), False, True),
        (TOOL_CALL, "exec_command", (), False, False),
        (TOOL_OUTPUT, "exec_command", (), False, True),
        (TOOL_CALL, "local_shell", (), False, False),
        (TOOL_OUTPUT, "local_shell", (), False, False),
    ]
    assert turns[3].text.startswith("command: bash -lc apply_patch <<'EOF'\n*** Begin Patch")
    assert turns[4].text == "boom"
    assert turns[7].text == "ls -la"


def test_fork_copies_parent_history_without_a_second_session(tmp_path: Path) -> None:
    path = write_jsonl(
        tmp_path / "rollout-fork.jsonl",
        meta("child"),
        meta("parent-1"),  # the copied parent rollout starts with its own session_meta
        event(type="user_message", message="old question"),
        event(type="user_message", message="new question"),
    )
    result = parse(path)
    (session,) = result.sessions
    assert (session.info.id, session.info.parent_id) == ("child", "parent-1")
    assert [t.text for t in session.turns] == ["old question", "new question"]


def test_subagent_rollout_names_its_parent(tmp_path: Path) -> None:
    source = {"subagent": {"thread_spawn": {"parent_thread_id": "boss", "depth": 1}}}
    session = one(
        write_jsonl(
            tmp_path / "rollout-sub.jsonl",
            meta("worker", source=source),
            event(type="user_message", message="go"),
        )
    )
    assert session.info.parent_id == "boss"


def test_compacted_replacement_history_is_not_indexed_again(tmp_path: Path) -> None:
    history = [{"type": "message", "role": "user", "content": [{"type": "input_text", "text": "old prompt"}]}]
    path = write_jsonl(
        tmp_path / "rollout-c.jsonl",
        meta("s-1"),
        event(type="user_message", message="old prompt"),
        envelope("compacted", {"message": "We were fixing the parser.", "replacement_history": history}),
        event(type="context_compacted"),
        event(type="user_message", message="next"),
    )
    result = parse(path)
    assert [(t.kind, t.text) for t in result.sessions[0].turns] == [
        (PROMPT, "old prompt"),
        (SUMMARY, "We were fixing the parser."),
        (PROMPT, "next"),
    ]
    assert result.stats.duplicates == 1


def test_zstd_rollout_reads_like_the_plain_one(tmp_path: Path) -> None:
    import zstandard

    src = corpus(*ROOT, SHORT)
    packed = tmp_path / "2026" / (src.name + ".zst")
    packed.parent.mkdir()
    packed.write_bytes(zstandard.ZstdCompressor().compress(src.read_bytes()))
    plain, zipped = one(src), one(packed)
    assert zipped.info == plain.info
    assert zipped.turns == plain.turns
    assert list(ADAPTER.discover(tmp_path)) == [packed]
    # a plain rollout wins over its compressed twin
    (packed.parent / src.name).write_bytes(src.read_bytes())
    assert list(ADAPTER.discover(tmp_path)) == [packed.parent / src.name]


def test_discover_only_rollouts(tmp_path: Path) -> None:
    day = tmp_path / "sessions" / "2026" / "02" / "23"
    day.mkdir(parents=True)
    for name in ("rollout-a.jsonl", "rollout-b.jsonl.zst", "notes.jsonl"):
        (day / name).write_text("")
    (tmp_path / "history.jsonl").write_text("")
    (tmp_path / "session_index.jsonl").write_text("")
    archived = tmp_path / "archived_sessions"
    archived.mkdir()
    (archived / "rollout-c.jsonl").write_text("")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in ADAPTER.discover(tmp_path))
    assert found == [
        "archived_sessions/rollout-c.jsonl",
        "sessions/2026/02/23/rollout-a.jsonl",
        "sessions/2026/02/23/rollout-b.jsonl.zst",
    ]


@pytest.mark.parametrize(
    "name", ["agent-history-real/session-01.jsonl", SHORT, "agent-sessions-fixture-small.jsonl", BIG]
)
def test_incremental_read_in_two_halves_equals_whole(tmp_path: Path, name: str) -> None:
    src = corpus(*ROOT, name)
    data = src.read_bytes()
    whole = one(src)
    tmp = tmp_path / src.name
    for cut in line_cuts(data, 10):
        first, second = read_in_two(ADAPTER, tmp, data, cut)
        (tail,) = second.sessions
        assert tail.mode == "append"
        turns = [t for s in first.sessions for t in s.turns] + tail.turns
        assert turns == whole.turns, cut
        assert tail.info == whole.info
        assert second.cursor.offset == len(data)


def test_torn_last_line_waits_for_the_rest(tmp_path: Path) -> None:
    path = tmp_path / "rollout-t.jsonl"
    head = json.dumps(meta("s-1")) + "\n" + json.dumps(event(type="user_message", message="hello")) + "\n"
    tail = json.dumps(
        item(type="message", role="assistant", content=[{"type": "output_text", "text": "hi!"}])
    )
    path.write_text(head + tail[:30])
    first = parse(path)
    assert first.cursor.offset == len(head.encode())
    assert [t.text for t in first.sessions[0].turns] == ["hello"]
    path.write_text(head + tail + "\n")
    second = parse(path, first.cursor)
    assert [(t.seq, t.kind, t.text) for t in second.sessions[0].turns] == [(1, ANSWER, "hi!")]
    assert second.sessions[0].info.id == "s-1"


def test_concatenated_garbage_and_unknown_lines(tmp_path: Path) -> None:
    path = tmp_path / "rollout-g.jsonl"
    glued = json.dumps(event(type="user_message", message="a")) + json.dumps(
        event(type="user_message", message="b")
    )
    path.write_text(
        json.dumps(meta("s-1"))
        + "\n"
        + glued
        + "\n{not json at all\n"
        + json.dumps(envelope("future_item", {"x": 1}))
        + "\n"
        + json.dumps(item(type="future_response_item"))
        + "\n"
        + json.dumps(event(type="future_event"))
        + "\n"
    )
    result = parse(path)
    assert [t.text for t in result.sessions[0].turns] == ["a", "b"]
    assert (result.stats.recovered, result.stats.torn, result.stats.unknown) == (2, 1, 2)


def test_rollout_without_session_meta_takes_its_id_from_the_name(tmp_path: Path) -> None:
    name = "rollout-2026-01-01T00-00-00-0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000.jsonl"
    session = one(write_jsonl(tmp_path / name, event(type="user_message", message="x")))
    assert session.info.id == "0199aaaa-bbbb-7ccc-8ddd-eeeeffff0000"
