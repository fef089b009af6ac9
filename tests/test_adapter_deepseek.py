"""DeepSeek Harness adapter: every recorded sample, zstd logs, incremental and damaged reads."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import zstandard

from hippo_git.transcripts.deepseek import ADAPTER
from hippo_git.transcripts.model import (
    ANSWER,
    PROMPT,
    SUMMARY,
    SYSTEM,
    TOOL_CALL,
    TOOL_OUTPUT,
    Cursor,
)
from tests.adapter_support import kinds
from tests.conftest import corpus

# What a person reading each file counts. The `user/message` a plugin injects (runtime context,
# a tool's image) is a system notice; `run_code` sub-calls (`tool/code-dispatch`) are tool calls.
EXPECTED: dict[str, dict[str, Any]] = {
    "acp-code-mode-read-image.session.jsonl": {
        "id": "44444444-4444-4444-8444-444444444444",
        "kinds": {PROMPT: 1, SYSTEM: 2, TOOL_CALL: 3, TOOL_OUTPUT: 3, ANSWER: 1},
        "tools": ["run_code", "bash", "read_image"],
        "reasoning": 0,
    },
    "acp-packed-chunks.session.jsonl": {
        "id": "ff1c1e99-3bd4-4ef8-a954-80d607d628ba",
        "kinds": {PROMPT: 1, SYSTEM: 1, TOOL_CALL: 1, TOOL_OUTPUT: 1, ANSWER: 1},
        "tools": ["bash"],
        "reasoning": 2,
    },
    "headless-advanced-toolchain/session.1.jsonl": {
        "id": "22222222-2222-4222-8222-222222222222",
        "kinds": {PROMPT: 1, SYSTEM: 1, ANSWER: 1},
        "tools": [],
        "reasoning": 0,
    },
    "headless-advanced-toolchain/session.jsonl": {
        "id": "11111111-1111-4111-8111-111111111111",
        "kinds": {PROMPT: 1, TOOL_CALL: 7, TOOL_OUTPUT: 7, ANSWER: 1},
        "tools": [
            "cordis_define",
            "run_code",
            "cordis_run",
            "cordis_inspect_self",
            "subagent",
            "workflow",
            "cordis_undefine",
        ],
        "reasoning": 0,
    },
    "headless-compaction-recovery.session.jsonl": {
        "id": "headless-compaction-recovery",  # the header's id is a `{{sessionId}}` placeholder
        "kinds": {PROMPT: 1, TOOL_CALL: 1, TOOL_OUTPUT: 1, SUMMARY: 1, ANSWER: 1},
        "tools": ["bash"],
        "reasoning": 0,
    },
    "web-approval-composer.session.jsonl": {
        "id": "web-approval-composer",
        "kinds": {PROMPT: 1, TOOL_CALL: 3, TOOL_OUTPUT: 3, ANSWER: 1},
        "tools": ["bash", "bash", "read"],
        "reasoning": 4,
    },
    "web-fresh-round-trip.session.jsonl": {
        "id": "web-fresh-round-trip",
        "kinds": {PROMPT: 1, TOOL_CALL: 1, TOOL_OUTPUT: 1, ANSWER: 1},
        "tools": ["bash"],
        "reasoning": 2,
    },
}


def test_every_corpus_file_is_discovered() -> None:
    folder = corpus("transcripts", "deepseek-harness")
    found = sorted(str(p.relative_to(folder)) for p in ADAPTER.discover(folder))
    assert found == sorted(EXPECTED)


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_corpus_file(name: str) -> None:
    path = corpus("transcripts", "deepseek-harness", *name.split("/"))
    expected = EXPECTED[name]
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert session.mode == "replace"
    assert session.info.id == expected["id"]
    assert kinds(session) == expected["kinds"]
    assert [t.tool for t in session.turns if t.kind == TOOL_CALL] == expected["tools"]
    assert [t.seq for t in session.turns] == list(range(len(session.turns)))
    assert result.stats.reasoning == expected["reasoning"]
    assert result.stats.unknown == 0 and result.stats.torn == 0
    assert result.cursor.offset == path.stat().st_size
    assert session.info.model and session.info.model.startswith("deepseek-v4-flash")
    assert session.info.title


def test_corpus_facts() -> None:
    folder = corpus("transcripts", "deepseek-harness")
    child = ADAPTER.parse(folder / "headless-advanced-toolchain" / "session.1.jsonl", Cursor()).sessions[0]
    assert child.info.parent_id == "11111111-1111-4111-8111-111111111111"
    assert child.turns[-1].text == "DIRECT_CHILD_OK"
    blocked = ADAPTER.parse(folder / "acp-packed-chunks.session.jsonl", Cursor()).sessions[0]
    output = next(t for t in blocked.turns if t.kind == TOOL_OUTPUT)
    assert output.is_error and output.text == "Error: bash is disabled by policy in this session"
    compacted = ADAPTER.parse(folder / "headless-compaction-recovery.session.jsonl", Cursor()).sessions[0]
    summary = next(t for t in compacted.turns if t.kind == SUMMARY)
    assert summary.text == "The request established a durable compaction premise."
    assert compacted.info.started is None  # `createdAt: 0` is a placeholder, not a time
    image = ADAPTER.parse(folder / "acp-code-mode-read-image.session.jsonl", Cursor()).sessions[0]
    read = next(t for t in image.turns if t.tool == "read_image" and t.kind == TOOL_CALL)
    assert read.paths == ("red.png",) and not read.edited
    fresh = ADAPTER.parse(folder / "web-fresh-round-trip.session.jsonl", Cursor()).sessions[0]
    assert fresh.info.cwd == "{{cwd}}/workspace" and fresh.info.started == "2026-07-25T10:04:10.091Z"
    assert [t.text for t in fresh.turns if t.kind == TOOL_OUTPUT] == ["WEB_E2E_OK"]
    # Reasoning never becomes a turn.
    assert not any("The user wants me" in t.text for t in fresh.turns)


def _zstd_frames(lines: list[bytes], per_frame: int) -> bytes:
    compressor = zstandard.ZstdCompressor()
    chunks = [b"".join(lines[i : i + per_frame]) for i in range(0, len(lines), per_frame)]
    return b"".join(compressor.compress(chunk) for chunk in chunks)


def test_zstd_log_reads_like_the_plain_one(tmp_path: Path) -> None:
    plain = corpus("transcripts", "deepseek-harness", "web-approval-composer.session.jsonl")
    folder = tmp_path / "sessions" / "--work--" / "web-approval-composer"
    folder.mkdir(parents=True)
    packed = folder / "session.jsonl.zstd"
    # One frame for the header, then one per append batch, as dsh writes them.
    packed.write_bytes(_zstd_frames(plain.read_bytes().splitlines(keepends=True), per_frame=7))
    assert list(ADAPTER.discover(tmp_path)) == [packed]
    expected = ADAPTER.parse(plain, Cursor()).sessions[0]
    result = ADAPTER.parse(packed, Cursor())
    (session,) = result.sessions
    assert session.info.id == "web-approval-composer"  # the folder is named after the session
    assert [(t.kind, t.text) for t in session.turns] == [(t.kind, t.text) for t in expected.turns]
    assert result.cursor.offset == plain.stat().st_size  # offsets count decompressed bytes
    # A plain log beside the compressed one wins.
    (folder / "session.jsonl").write_bytes(plain.read_bytes())
    assert list(ADAPTER.discover(tmp_path)) == [folder / "session.jsonl"]


def test_zstd_log_with_a_frame_still_being_written(tmp_path: Path) -> None:
    plain = corpus("transcripts", "deepseek-harness", "web-fresh-round-trip.session.jsonl")
    lines = plain.read_bytes().splitlines(keepends=True)
    data = _zstd_frames(lines, per_frame=10)
    packed = tmp_path / "session.jsonl.zstd"
    packed.write_bytes(data[:-5])  # the last frame is cut short
    torn = ADAPTER.parse(packed, Cursor())
    complete_frames = (len(lines) - 1) // 10 * 10
    assert torn.cursor.offset == sum(len(line) for line in lines[:complete_frames])
    packed.write_bytes(data)
    later = ADAPTER.parse(packed, torn.cursor)
    full = ADAPTER.parse(plain, Cursor()).sessions[0]
    combined = torn.sessions[0].turns + later.sessions[0].turns
    assert later.sessions[0].mode == "append"
    assert [(t.seq, t.kind, t.text) for t in combined] == [(t.seq, t.kind, t.text) for t in full.turns]


def test_incremental_read_continues_numbering_and_pairs_tools(tmp_path: Path) -> None:
    plain = corpus("transcripts", "deepseek-harness", "web-approval-composer.session.jsonl")
    lines = plain.read_bytes().splitlines(keepends=True)
    cut = next(i for i, line in enumerate(lines) if b'"approval/asked"' in line)
    path = tmp_path / "session.jsonl"
    path.write_bytes(b"".join(lines[:cut]))
    first = ADAPTER.parse(path, Cursor())
    with path.open("ab") as handle:
        handle.write(b"".join(lines[cut:]))
    second = ADAPTER.parse(path, first.cursor)
    (more,) = second.sessions
    assert more.mode == "append" and more.info.id == first.sessions[0].info.id
    full = ADAPTER.parse(plain, Cursor()).sessions[0]
    combined = first.sessions[0].turns + more.turns
    assert [(t.seq, t.kind, t.tool, t.text) for t in combined] == [
        (t.seq, t.kind, t.tool, t.text) for t in full.turns
    ]
    assert ADAPTER.parse(path, second.cursor).sessions == []


def test_torn_garbage_and_unknown_records(tmp_path: Path) -> None:
    header = {"type": "session", "version": 0, "id": "s-1", "createdAt": 1784973850091, "cwd": "/w"}
    prompt = {
        "type": "user/message",
        "data": {"content": [{"type": "text", "text": "hi"}], "source": {"kind": "user"}},
    }
    answer = {
        "type": "assistant/message",
        "data": {"content": [{"type": "text", "text": "hello"}], "provenance": {"model": "m"}},
    }
    path = tmp_path / "session.jsonl"
    body = "\n".join(json.dumps(r) for r in (header, {"type": "brand/new-thing", "data": {}}, prompt))
    path.write_text(body + "\nnot json at all\n" + json.dumps(answer)[:25])
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert [t.kind for t in session.turns] == [PROMPT]
    assert result.stats.unknown == 1 and result.stats.torn == 1
    assert result.cursor.offset == len((body + "\nnot json at all\n").encode())
    path.write_text(body + "\nnot json at all\n" + json.dumps(answer) + "\n")
    later = ADAPTER.parse(path, result.cursor)
    assert [(t.seq, t.kind, t.text) for t in later.sessions[0].turns] == [(1, ANSWER, "hello")]
    assert later.sessions[0].info.id == "s-1" and later.sessions[0].info.model == "m"
