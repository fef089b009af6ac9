"""Muse Code adapter: the SDK's sample records and a journal written from the documented shapes."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hippo_git.transcripts.model import ANSWER, ERROR, PROMPT, TOOL_CALL, TOOL_OUTPUT, Cursor
from hippo_git.transcripts.muse import ADAPTER
from tests.adapter_support import append_jsonl, write_jsonl
from tests.conftest import corpus

SESSION = "0198f0aa-3333-7000-8000-0000000000aa"
RUN = "0198f0ab-3333-7000-8000-0000000000c1"


def envelope(sequence: int, payload_type: str, payload: dict[str, Any]) -> dict[str, Any]:
    return {
        "schema_version": 1,
        "id": f"rec-{sequence}",
        "stream": {"kind": "session", "id": SESSION},
        "sequence": sequence,
        "recorded_at": 1_789_742_968_906_636 + sequence * 1000,
        "record_type": "event",
        "durability": "durable",
        "causation_id": None,
        "payload_type": payload_type,
        "payload_schema_version": 1,
        "payload": payload,
    }


def run(sequence: int, event: dict[str, Any]) -> dict[str, Any]:
    return envelope(sequence, "runtime.session", {"kind": "run", "run_id": RUN, "event": event})


def journal() -> list[dict[str, Any]]:
    calls = [
        {"id": "fc_1", "call_id": "call_1", "name": "bash", "args": json.dumps({"command": "pytest -q"})},
        {"id": "fc_2", "call_id": "call_2", "name": "edit_file", "args": json.dumps({"path": "src/fold.py"})},
    ]
    results = [
        {
            "tool_call_index": 0,
            "tool_call_id": "call_1",
            "text": json.dumps({"exit_code": 1, "stdout": "1 failed"}),
        },
        {"tool_call_index": 1, "tool_call_id": "call_2", "text": "edited src/fold.py"},
    ]
    return [
        envelope(
            1,
            "runtime.session",
            {"kind": "metadata", "record": {"workspace_root": "/w", "model_id": "muse-spark-1.3"}},
        ),
        envelope(2, "runtime.session.route_facts", {"cwd": "/w/pkg", "pid": 42}),
        envelope(
            3,
            "runtime.user_intent.accepted",
            {
                "intent_id": "i-1",
                "model_messages": [{"content": [{"kind": "text", "text": "fix the fold tests"}]}],
            },
        ),
        run(4, {"kind": "started", "prompt": "fix the fold tests"}),
        run(5, {"kind": "reasoning_summary_committed", "message_id": "m0", "text": "Plan: run tests."}),
        run(6, {"kind": "assistant_tool_calls_committed", "message_id": "m1", "tool_calls": calls}),
        run(7, {"kind": "tool_result_batch_committed", "batch_id": "b1", "results": results}),
        run(8, {"kind": "text_delta", "message_id": "m2", "text": "Fixed"}),
        run(9, {"kind": "assistant_message_committed", "message_id": "m2", "text": "Fixed the fold."}),
        run(10, {"kind": "model_completed", "usage": {"input_tokens": 10, "output_tokens": 5}}),
        run(11, {"kind": "terminal", "terminal": "failed", "reason": "model overloaded"}),
        {"retained_frame": "session_permission_transaction", "children": []},
        envelope(12, "runtime.brand_new_thing", {"kind": "x"}),
    ]


def test_every_corpus_file_is_discovered() -> None:
    folder = corpus("transcripts", "muse-code")
    assert [p.name for p in ADAPTER.discover(folder)] == ["muse-code-sdk-reconciliation-refold.records.jsonl"]


def test_sdk_sample_records() -> None:
    path = corpus("transcripts", "muse-code", "muse-code-sdk-reconciliation-refold.records.jsonl")
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert session.info.id == "0198f0aa-2222-7000-8000-0000000000bb"
    # started → the prompt; two text deltas are streaming; the committed message is the answer.
    assert [(t.kind, t.text) for t in session.turns] == [
        (PROMPT, "Summarize the failing fold tests"),
        (ANSWER, "All 21 fold tests pass."),
    ]
    assert result.stats.records == 5 and result.stats.unknown == 0
    assert session.info.started == "1970-01-01T00:00:01.820Z"  # the SDK sample's own clock


def test_documented_journal(tmp_path: Path) -> None:
    path = tmp_path / "sessions" / "2026" / "07" / "01" / SESSION / "session.jsonl"
    write_jsonl(path, *journal())
    assert list(ADAPTER.discover(tmp_path)) == [path]
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert (
        session.info.id == SESSION and session.info.cwd == "/w/pkg" and session.info.model == "muse-spark-1.3"
    )
    # The accepted intent and `started` carry the same prompt: it is indexed once.
    assert [t.kind for t in session.turns] == [
        PROMPT,
        TOOL_CALL,
        TOOL_CALL,
        TOOL_OUTPUT,
        TOOL_OUTPUT,
        ANSWER,
        ERROR,
    ]
    bash_out, edit_out = session.turns[3], session.turns[4]
    assert bash_out.tool == "bash" and bash_out.is_error  # exit_code 1 in the command's report
    assert edit_out.tool == "edit_file" and not edit_out.is_error
    edit_call = session.turns[2]
    assert edit_call.paths == ("src/fold.py",) and edit_call.edited
    assert session.turns[-1].text == "run failed: model overloaded"
    assert result.stats.reasoning == 1
    assert result.stats.unknown == 2  # the retained frame and the unknown payload type
    assert session.info.started == "2026-09-18T14:49:28.907Z"


def test_subagent_and_incremental_read(tmp_path: Path) -> None:
    parent = tmp_path / "2026" / "07" / "01" / SESSION
    path = parent / "subagent" / "child-1" / "session.jsonl"
    records = journal()
    for record in records:
        if isinstance(record.get("stream"), dict):
            record["stream"] = {"kind": "session", "id": "child-1"}
    write_jsonl(path, *records[:6])
    first = ADAPTER.parse(path, Cursor())
    (session,) = first.sessions
    assert session.info.parent_id == SESSION and session.info.id == "child-1"
    assert [t.kind for t in session.turns] == [PROMPT, TOOL_CALL, TOOL_CALL]
    append_jsonl(
        path, *records[6:], tail='{"schema_version": 1, "payload": {"kind": "run", "event": {"kind": "star'
    )
    second = ADAPTER.parse(path, first.cursor)
    (more,) = second.sessions
    assert more.mode == "append"
    # Tool names come back from the calls kept in the cursor.
    assert [(t.seq, t.kind, t.tool) for t in more.turns] == [
        (3, TOOL_OUTPUT, "bash"),
        (4, TOOL_OUTPUT, "edit_file"),
        (5, ANSWER, None),
        (6, ERROR, None),
    ]
    assert second.cursor.offset < path.stat().st_size  # the torn last line waits
    assert second.stats.torn == 0
