"""Claude Code adapter: every corpus file, the three subagent layouts, incremental reads."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from hippo_git.transcripts.claude_code import ADAPTER
from hippo_git.transcripts.model import (
    ANSWER,
    ERROR,
    PROMPT,
    SUMMARY,
    SYSTEM,
    TOOL_CALL,
    TOOL_OUTPUT,
    TOOL_TEXT_CAP,
    Cursor,
)
from hippo_git.transcripts.registry import get_adapter
from tests.adapter_support import Reads, by_id, jsonl, kinds, line_cuts, read_in_two
from tests.conftest import corpus

ROOT = ("transcripts", "claude-code")
SUB_DIR = "agent-sessions-subagent-fixture/0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"

# Per corpus file: stats, then per session id the turns by kind — counted from the files by hand
# (and see the specific tests below for what each count is made of).
EXPECTED: dict[str, tuple[dict[str, int], dict[str, dict[str, int]]]] = {
    "agent-sessions-fixture-small.jsonl": (
        {"unknown": 1, "recovered": 0, "reasoning": 6, "duplicates": 0},
        {
            "ses_stage0_small": {PROMPT: 9, ANSWER: 2, TOOL_CALL: 2, TOOL_OUTPUT: 1, ERROR: 7, SYSTEM: 3},
            # its isSidechain lines (root uuid sys1) form an inline subagent
            "ses_stage0_small/agent-sys1": {PROMPT: 1, ANSWER: 3, TOOL_CALL: 1, TOOL_OUTPUT: 2, SUMMARY: 1},
        },
    ),
    f"{SUB_DIR}/subagents/agent-a0ad4f44468bdf20d.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 0, "duplicates": 0},
        {
            "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f/agent-a0ad4f44468bdf20d": {
                PROMPT: 1,
                ANSWER: 1,
                TOOL_CALL: 1,
                TOOL_OUTPUT: 1,
            },
        },
    ),
    f"{SUB_DIR}.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 0, "duplicates": 0},
        {"0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f": {PROMPT: 1, ANSWER: 1, TOOL_CALL: 1}},
    ),
    "entire-26-dcd5518fea_0.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 21, "duplicates": 0},
        {
            "062a8bdd-4322-4ffa-bc38-3e8b8bfb5a56": {
                PROMPT: 20,
                ANSWER: 52,
                TOOL_CALL: 74,
                TOOL_OUTPUT: 74,
                SYSTEM: 6,
            }
        },
    ),
    "entire-37-995ebed6e4_2.jsonl": (
        {"unknown": 0, "recovered": 2, "reasoning": 42, "duplicates": 1},
        {
            "130d7b7e-5801-4345-9bd6-f32fd9b8429b": {
                PROMPT: 5,
                ANSWER: 20,
                TOOL_CALL: 41,
                TOOL_OUTPUT: 41,
                SYSTEM: 1,
            }
        },
    ),
    "entire-4c-02af2759b6_0.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 1, "duplicates": 0},
        {"5a3bb1c8-c3ce-466e-b487-24212cbf1da1": {PROMPT: 1, ANSWER: 1, TOOL_CALL: 1}},
    ),
    "entire-9f-e3cfdef74d_0.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 1, "duplicates": 0},
        {"6da7d497-00e2-460d-a6b4-d280e0314cfd": {PROMPT: 2, ANSWER: 2, TOOL_CALL: 2, TOOL_OUTPUT: 2}},
    ),
    "entire-a6-e4c2a0fbd1_0.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 12, "duplicates": 0},
        {
            "198393f2-22db-477b-ac77-1825bea883ae": {
                PROMPT: 3,
                ANSWER: 10,
                TOOL_CALL: 10,
                TOOL_OUTPUT: 10,
                SUMMARY: 1,
                SYSTEM: 3,
            }
        },
    ),
    "entire-ac-0df591859d_0.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 3, "duplicates": 0},
        {
            "acdd84ab-e724-42c8-925d-420b2a4f1861": {PROMPT: 3, ANSWER: 11, TOOL_CALL: 17, TOOL_OUTPUT: 17},
            # no subagent file beside it: its 37 agent_progress copies are the only record
            "acdd84ab-e724-42c8-925d-420b2a4f1861/agent-ad355fd": {PROMPT: 1, TOOL_CALL: 18, TOOL_OUTPUT: 18},
        },
    ),
    "entire-ad-ac80fffbb8_0.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 56, "duplicates": 0},
        {
            "a032db5a-df02-44d7-ab1e-fb024213ecc4": {
                PROMPT: 7,
                ANSWER: 12,
                TOOL_CALL: 71,
                TOOL_OUTPUT: 71,
                ERROR: 1,
            }
        },
    ),
    "entire-c9-883595c929_0.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 2, "duplicates": 0},
        {"1b3e6441-62e3-4b41-8a0c-9d252f531f7a": {PROMPT: 1, ANSWER: 1, TOOL_CALL: 1, TOOL_OUTPUT: 1}},
    ),
    "simonw-sample_session.jsonl": (
        {"unknown": 0, "recovered": 0, "reasoning": 0, "duplicates": 0},
        {"test-session-id": {PROMPT: 2, ANSWER: 2, TOOL_CALL: 2, TOOL_OUTPUT: 2}},
    ),
}


READS = Reads(ADAPTER)
parse, one = READS.parse, READS.one


def user(text: Any, **extra: Any) -> dict[str, Any]:
    return {"type": "user", "sessionId": "s1", "message": {"role": "user", "content": text}, **extra}


def assistant(*blocks: dict[str, Any], mid: str = "m1", **extra: Any) -> dict[str, Any]:
    msg = {"id": mid, "role": "assistant", "model": "claude-x", "content": list(blocks)}
    return {"type": "assistant", "sessionId": "s1", "message": msg, **extra}


def text(value: str) -> dict[str, Any]:
    return {"type": "text", "text": value}


def test_registry_and_discover_cover_every_corpus_file() -> None:
    root = corpus(*ROOT)
    assert get_adapter("claude-code") is ADAPTER
    found = {p.relative_to(root).as_posix() for p in ADAPTER.discover(root)}
    assert found == set(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_file(name: str) -> None:
    stats, sessions = EXPECTED[name]
    result = parse(corpus(*ROOT, name))
    assert {k: getattr(result.stats, k) for k in stats} == stats
    assert result.stats.torn == 0
    assert {sid: kinds(s) for sid, s in by_id(result.sessions).items()} == sessions
    for session in result.sessions:
        assert session.mode == "replace"
        assert [t.seq for t in session.turns] == list(range(len(session.turns)))
        assert all(t.text for t in session.turns if t.kind not in (TOOL_CALL, TOOL_OUTPUT))
        assert all(len(t.text) <= TOOL_TEXT_CAP + 100 for t in session.turns if t.kind == TOOL_OUTPUT)
        assert session.info.harness == "claude-code"
    json.dumps(result.cursor.state)  # the state is JSON


def test_simonw_sample_turn_by_turn() -> None:
    session = one(corpus(*ROOT, "simonw-sample_session.jsonl"))
    info = session.info
    assert (info.id, info.cwd, info.git_branch) == ("test-session-id", "/project", "main")
    assert info.title == "Test session for JSONL parsing"  # the `summary` line
    assert (info.started, info.ended) == ("2025-12-24T10:00:00.000Z", "2025-12-24T10:01:05.000Z")
    got = [(t.kind, t.tool, t.text.splitlines()[0]) for t in session.turns]
    assert got == [
        (PROMPT, None, "Create a hello world function"),
        (ANSWER, None, "I'll create that function for you."),
        (TOOL_CALL, "Write", "file_path: /project/hello.py"),
        (TOOL_OUTPUT, "Write", "File written successfully"),
        (TOOL_CALL, "Bash", "command: git add . && git commit -m 'Add hello function'"),
        (TOOL_OUTPUT, "Bash", "[main abc1234] Add hello function"),
        (PROMPT, None, "Now add a goodbye function"),
        (ANSWER, None, "Done! The hello function is ready."),
    ]
    write = session.turns[2]
    assert write.paths == ("/project/hello.py",) and write.edited
    assert "def hello():\n    return 'Hello, World!'" in write.text  # newlines kept, not `\n`
    assert session.turns[4].paths == () and not session.turns[4].edited


def test_subagent_layout_2_1_with_meta_json() -> None:
    sub = one(corpus(*ROOT, f"{SUB_DIR}/subagents/agent-a0ad4f44468bdf20d.jsonl"))
    parent = one(corpus(*ROOT, f"{SUB_DIR}.jsonl"))
    assert parent.info.id == "0a1b2c3d-4e5f-4061-8071-2a3b4c5d6e7f"
    assert parent.info.title == "proj_stage0_subagent_parent"  # slug
    assert sub.info.id == f"{parent.info.id}/agent-a0ad4f44468bdf20d"
    assert sub.info.parent_id == parent.info.id
    assert sub.info.title == "general-purpose: Search the repo for TODO comments"  # meta agentType
    assert sub.info.cwd == "/tmp"
    # the tool_result line is isMeta, but a tool result is tool output, never SYSTEM
    assert [t.kind for t in sub.turns] == [PROMPT, ANSWER, TOOL_CALL, TOOL_OUTPUT]
    assert sub.turns[3].text == "a.txt:1: TODO fix"


def test_subagent_sibling_layout_2_0(tmp_path: Path) -> None:
    project = tmp_path / "-work-app"
    project.mkdir()
    parent = user("delegate", cwd="/work/app", timestamp="2026-01-01T00:00:00.000Z")
    (project / "s1.jsonl").write_text(jsonl(parent))
    side: dict[str, Any] = {"isSidechain": True, "agentId": "abc123", "cwd": "/work/app"}
    (project / "agent-abc123.jsonl").write_text(
        jsonl(user("find TODOs", **side), assistant(text("found 2"), **side))
    )
    assert sorted(p.name for p in ADAPTER.discover(tmp_path)) == ["agent-abc123.jsonl", "s1.jsonl"]
    sub = one(project / "agent-abc123.jsonl")
    assert (sub.info.id, sub.info.parent_id) == ("s1/agent-abc123", "s1")
    assert [t.kind for t in sub.turns] == [PROMPT, ANSWER]


def test_inline_sidechains_become_subagent_sessions(tmp_path: Path) -> None:
    # ≤1.0.x: Task subagents inline, `isSidechain: true`, chained by parentUuid, no agentId.
    path = tmp_path / "s1.jsonl"
    path.write_text(
        jsonl(
            user("main question", uuid="u1"),
            user("sub A prompt", uuid="a1", parentUuid=None, isSidechain=True),
            user("sub B prompt", uuid="b1", parentUuid=None, isSidechain=True),
            assistant(text("A answer"), mid="ma", uuid="a2", parentUuid="a1", isSidechain=True),
            assistant(text("B answer"), mid="mb", uuid="b2", parentUuid="b1", isSidechain=True),
            assistant(text("main answer"), mid="mm", uuid="u2", parentUuid="u1"),
        )
    )
    sessions = by_id(parse(path).sessions)
    assert {sid: [t.text for t in s.turns] for sid, s in sessions.items()} == {
        "s1": ["main question", "main answer"],
        "s1/agent-a1": ["sub A prompt", "A answer"],
        "s1/agent-b1": ["sub B prompt", "B answer"],
    }
    assert sessions["s1/agent-a1"].info.parent_id == "s1"


def test_agent_progress_skipped_when_the_subagent_file_exists(tmp_path: Path) -> None:
    src = corpus(*ROOT, "entire-ac-0df591859d_0.jsonl")
    sid = "acdd84ab-e724-42c8-925d-420b2a4f1861"
    parent = tmp_path / f"{sid}.jsonl"
    shutil.copyfile(src, parent)
    sub_file = tmp_path / sid / "subagents" / "agent-ad355fd.jsonl"
    sub_file.parent.mkdir(parents=True)
    sub_file.write_text(jsonl(user("search", isSidechain=True, agentId="ad355fd", sessionId=sid)))
    result = parse(parent)
    assert [s.info.id for s in result.sessions] == [sid]
    assert result.stats.duplicates == 37
    assert one(sub_file).info.id == f"{sid}/agent-ad355fd"


def test_agent_progress_subagent_facts() -> None:
    sessions = by_id(parse(corpus(*ROOT, "entire-ac-0df591859d_0.jsonl")).sessions)
    sub = sessions["acdd84ab-e724-42c8-925d-420b2a4f1861/agent-ad355fd"]
    assert sub.info.parent_id == "acdd84ab-e724-42c8-925d-420b2a4f1861"
    assert sub.info.model == "claude-haiku-4-5-20251001"
    assert sub.turns[0].text.startswith("Search the codebase at /Users/dip/Repositories/cli")
    assert {t.tool for t in sub.turns if t.kind == TOOL_CALL} <= {"Grep", "Read", "Glob", "Bash"}
    assert sum(1 for t in sub.turns if t.kind == TOOL_CALL and t.tool == "Read" and t.paths) >= 1


def test_streamed_blocks_merge_by_message_id() -> None:
    result = parse(corpus(*ROOT, "entire-ac-0df591859d_0.jsonl"))
    main = by_id(result.sessions)["acdd84ab-e724-42c8-925d-420b2a4f1861"]
    # msg_01YSz…: "\n\n", a thinking block, then text, then tool_use — one answer, then the call.
    assert [t.kind for t in main.turns[:3]] == [PROMPT, ANSWER, TOOL_CALL]
    assert main.turns[1].text == "Let me check the current state of things."


def test_streamed_text_blocks_of_one_message_are_one_answer(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_text(
        jsonl(
            user("go"),
            assistant(text("part one")),
            assistant({"type": "thinking", "thinking": "secret plan", "signature": "x"}),
            assistant(text("part two")),
            assistant({"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a.md"}}),
            assistant(text("after the call")),
            assistant(text("next message"), mid="m2"),
        )
    )
    result = parse(path)
    session = result.sessions[0]
    assert [(t.kind, t.text) for t in session.turns] == [
        (PROMPT, "go"),
        (ANSWER, "part one\n\npart two"),
        (TOOL_CALL, "file_path: /a.md"),
        (ANSWER, "after the call"),
        (ANSWER, "next message"),
    ]
    assert session.turns[2].paths == ("/a.md",) and not session.turns[2].edited
    assert result.stats.reasoning == 1
    assert all("secret plan" not in t.text for t in session.turns)


def test_compaction_boundary_then_summary() -> None:
    session = one(corpus(*ROOT, "entire-a6-e4c2a0fbd1_0.jsonl"))
    at = next(i for i, t in enumerate(session.turns) if t.kind == SUMMARY)
    boundary, summary = session.turns[at - 1], session.turns[at]
    assert boundary.kind == SYSTEM
    assert boundary.text == "Conversation compacted (trigger: auto, 155250 tokens before)"
    assert summary.text.startswith("This session is being continued from a previous conversation")
    assert session.info.model == "claude-opus-4-5-20251101"  # the <synthetic> line does not count


def test_api_error_line_is_an_error_turn() -> None:
    session = one(corpus(*ROOT, "entire-ad-ac80fffbb8_0.jsonl"))
    (error,) = [t for t in session.turns if t.kind == ERROR]
    assert error.is_error and error.text.startswith("API Error")
    assert sum(1 for t in session.turns if t.kind == TOOL_OUTPUT and t.is_error) == 5
    assert session.info.model == "claude-sonnet-4-5-20250929"


def test_concatenated_line_and_resumed_copy() -> None:
    # entire-37: an assistant object and a `summary` on one line (`}{`); its resume rewrote the
    # last assistant line (same uuid and time) — indexed once.
    result = parse(corpus(*ROOT, "entire-37-995ebed6e4_2.jsonl"))
    session = result.sessions[0]
    assert session.info.title == "Add agent name to logging context"
    done = [
        t for t in session.turns if t.text.startswith("Done. I updated `TestLogging_IncludesContextValues`")
    ]
    assert len(done) == 1 and "\n\nDone." not in done[0].text
    assert session.info.cwd == "/Users/soph/Work/entire/devenv/cli"  # first cwd, not the resumed one
    assert session.turns[-1].kind == ANSWER


def test_user_lines_meta_images_and_mixed_blocks() -> None:
    session = one(corpus(*ROOT, "entire-26-dcd5518fea_0.jsonl"))
    system = [t.text for t in session.turns if t.kind == SYSTEM]
    assert system[0].startswith("Invoke the superpowers:brainstorming skill")  # isMeta
    assert "<local-command-stdout>Connected to Visual Studio Code.</local-command-stdout>" in system
    prompts = [t.text for t in session.turns if t.kind == PROMPT]
    assert prompts[0].startswith("<command-message>superpowers:brainstorm</command-message>")
    # line 206: a tool_result and the person's words in one user line
    at = next(i for i, t in enumerate(session.turns) if t.text.startswith("let's not leave _all_ the tests"))
    assert session.turns[at].kind == PROMPT
    assert session.turns[at - 1].kind == TOOL_OUTPUT and session.turns[at - 1].tool == "Edit"
    edits = [t for t in session.turns if t.kind == TOOL_CALL and t.edited]
    assert edits and all(t.tool in ("Edit", "Write") and t.paths for t in edits)


def test_fixture_small_titles_errors_and_unknowns() -> None:
    result = parse(corpus(*ROOT, "agent-sessions-fixture-small.jsonl"))
    main = by_id(result.sessions)["ses_stage0_small"]
    assert main.info.title == "Stage0 small fixture"  # custom-title beats ai-title and summary
    errors = [t.text for t in main.turns if t.kind == ERROR]
    assert errors[0] == "API refusal: Refused for policy reasons."
    assert errors[1] == "API error: 429: [trimmed for fixture]"
    assert result.stats.unknown == 1  # `atis-latch`
    side = by_id(result.sessions)["ses_stage0_small/agent-sys1"]
    assert side.info.title == "Hello"  # its first prompt, not the parent's slug
    assert [t.is_error for t in side.turns if t.kind == TOOL_OUTPUT] == [False, True]
    assert all("Reasoning goes here." not in t.text for s in result.sessions for t in s.turns)


def test_discover_skips_non_transcripts(tmp_path: Path) -> None:
    project = tmp_path / "projects" / "-w"
    sub = project / "s1" / "subagents"
    (sub / "workflows" / "wf1").mkdir(parents=True)
    for path in (
        project / "s1.jsonl",
        sub / "agent-a1.jsonl",
        sub / "workflows" / "wf1" / "agent-a2.jsonl",
        sub / "workflows" / "wf1" / "journal.jsonl",
        tmp_path / "history.jsonl",
    ):
        path.write_text(jsonl(user("hi")))
    (sub / "agent-a1.meta.json").write_text("{}")
    found = sorted(p.relative_to(tmp_path).as_posix() for p in ADAPTER.discover(tmp_path))
    assert found == [
        "projects/-w/s1.jsonl",
        "projects/-w/s1/subagents/agent-a1.jsonl",
        "projects/-w/s1/subagents/workflows/wf1/agent-a2.jsonl",
    ]
    assert one(sub / "workflows" / "wf1" / "agent-a2.jsonl").info.id in ("s1/agent-a2",)


def _grown_in_two(tmp: Path, data: bytes, cut: int) -> list[tuple[str, list[Any]]]:
    first, second = read_in_two(ADAPTER, tmp, data, cut)
    assert all(s.mode == "append" for s in second.sessions if s.info.id in by_id(first.sessions))
    return [
        (s.info.id, [(t.seq, t.kind, t.text, t.tool, t.paths) for t in s.turns])
        for s in (*first.sessions, *second.sessions)
    ]


@pytest.mark.parametrize(
    "name",
    [
        "simonw-sample_session.jsonl",
        "entire-ac-0df591859d_0.jsonl",
        "entire-37-995ebed6e4_2.jsonl",
        "agent-sessions-fixture-small.jsonl",
    ],
)
def test_incremental_read_in_two_halves_equals_whole(tmp_path: Path, name: str) -> None:
    src = corpus(*ROOT, name)
    data = src.read_bytes()
    tmp = tmp_path / src.name
    whole = parse(src)
    expected = {
        s.info.id: [(t.seq, t.kind, t.text, t.tool, t.paths) for t in s.turns] for s in whole.sessions
    }
    for cut in line_cuts(data, 12):
        got: dict[str, list[Any]] = {}
        for sid, turns in _grown_in_two(tmp, data, cut):
            got.setdefault(sid, []).extend(turns)
        assert got == expected, cut
    final = parse(tmp, Cursor(len(data), json.loads(json.dumps(parse(tmp).cursor.state))))
    assert final.sessions == [] and final.cursor.offset == len(data)


def test_torn_last_line_is_not_consumed(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    done = jsonl(user("first", timestamp="2026-01-01T00:00:00.000Z"))
    torn = json.dumps(assistant(text("second half")))
    path.write_text(done + torn[:40])
    first = parse(path)
    assert first.cursor.offset == len(done.encode())
    assert [t.text for t in first.sessions[0].turns] == ["first"]
    path.write_text(done + torn + "\n")
    second = parse(path, first.cursor)
    assert [(t.seq, t.text) for t in second.sessions[0].turns] == [(1, "second half")]
    assert second.sessions[0].mode == "append"
    assert second.sessions[0].info.started == "2026-01-01T00:00:00.000Z"  # kept from the state


def test_garbage_concatenated_and_unknown_lines(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    glued = json.dumps(user("one")) + json.dumps(user("two"))
    path.write_text(
        jsonl(user("zero"))
        + "this is not json\n"
        + glued
        + "\n"
        + jsonl({"type": "hologram", "x": 1}, user("three"))
    )
    result = parse(path)
    assert [t.text for t in result.sessions[0].turns] == ["zero", "one", "two", "three"]
    assert (result.stats.torn, result.stats.recovered, result.stats.unknown) == (1, 2, 1)


def test_tool_output_is_capped_and_errors_flagged(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    call = {"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "yes"}}
    result_block = {"type": "tool_result", "tool_use_id": "t1", "content": "y\n" * 20_000, "is_error": True}
    path.write_text(jsonl(assistant(call), user([result_block])))
    out = one(path).turns[1]
    assert (out.kind, out.tool, out.is_error) == (TOOL_OUTPUT, "Bash", True)
    assert len(out.text) < TOOL_TEXT_CAP + 100 and out.text.endswith("more characters not indexed]")


def test_shrunk_file_is_read_again_whole(tmp_path: Path) -> None:
    path = tmp_path / "s1.jsonl"
    path.write_text(jsonl(user("a"), user("b"), user("c")))
    first = parse(path)
    path.write_text(jsonl(user("new")))
    again = parse(path, first.cursor)
    assert again.sessions[0].mode == "replace"
    assert [(t.seq, t.text) for t in again.sessions[0].turns] == [(0, "new")]


def test_title_lines_before_any_session_id_wait_for_it(tmp_path: Path) -> None:
    path = tmp_path / "file-name.jsonl"
    head = jsonl({"type": "summary", "summary": "A title", "leafUuid": "x"})
    path.write_text(head)
    first = parse(path)
    assert first.sessions == [] and first.cursor.offset == 0
    path.write_text(head + jsonl(user("hello")))
    session = one(path)
    assert (session.info.id, session.info.title) == ("s1", "A title")
