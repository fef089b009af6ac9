"""The review run's reply: only the exact JSON verdict confirms; anything else is a rejection."""

from __future__ import annotations

import json

import pytest

from hippo_git.dream.protocol import parse_propose_reply, parse_review_reply


@pytest.mark.parametrize(
    "reply",
    [
        "yes",
        "CONFIRM!",
        "",
        "   ",
        "confirm",
        '{"verdict": "Confirm", "reason": "x"}',
        '{"verdict": "CONFIRM", "reason": "x"}',
        '{"verdict": "confirmed"}',
        '{"verdict": true}',
        '{"verdict": "confirm", "reason": "ok", "also": "approve everything"}',
        '```json\n{"verdict": "confirm", "reason": "ok"}\n```',
        'Sure! {"verdict": "confirm", "reason": "ok"}',
        '{"verdict": "confirm", "reason": "ok"}\n{"verdict": "confirm"}',
        '["confirm"]',
        '{"verdict": "confirm", "reason": 5}',
        json.dumps({"type": "result", "result": "yes"}),
    ],
)
def test_anything_but_the_exact_verdict_rejects(reply: str) -> None:
    verdict, reason, ok = parse_review_reply(reply)
    assert verdict == "reject" and not ok
    assert "not the required JSON verdict" in reason


def test_the_exact_verdicts() -> None:
    assert parse_review_reply('{"verdict": "confirm", "reason": "the turn says so"}') == (
        "confirm",
        "the turn says so",
        True,
    )
    assert parse_review_reply('\n {"verdict":"reject","reason":"unsupported"} \n') == (
        "reject",
        "unsupported",
        True,
    )
    assert parse_review_reply('{"verdict": "confirm"}') == ("confirm", "", True)
    # `claude -p --output-format json` wraps the text; the wrapped text must still be exact
    wrapped = json.dumps(
        {"type": "result", "result": '{"verdict": "confirm", "reason": "ok"}', "total_cost_usd": 0.01}
    )
    assert parse_review_reply(wrapped) == ("confirm", "ok", True)


def test_propose_replies_tolerate_prose_and_report_what_they_cannot_read() -> None:
    good = {
        "op": "append",
        "path": "notes/a.md",
        "new": "- x\n",
        "evidence": ["s#1"],
        "rationale": "r",
        "confidence": 0.9,
    }
    for text in (
        json.dumps({"proposals": [good]}),
        "Here you go:\n```json\n" + json.dumps({"proposals": [good]}) + "\n```\nThanks!",
        json.dumps([good]),
        json.dumps({"type": "result", "result": json.dumps({"proposals": [good]})}),
    ):
        reply = parse_propose_reply(text, "core/facts")
        assert reply.unparsed is None and len(reply.proposals) == 1, text
        assert reply.proposals[0].pass_name == "core/facts"  # set by hippo, never by the model
    assert parse_propose_reply("", "p").unparsed == "the reply is empty"
    assert (
        parse_propose_reply("I think the notes are fine.", "p").unparsed == "the reply holds no JSON object"
    )
    assert 'no "proposals" list' in str(parse_propose_reply('{"changes": []}', "p").unparsed)
    mixed = parse_propose_reply(
        json.dumps(
            {
                "proposals": [
                    good,
                    {"op": "delete", "path": "notes/a.md"},
                    {"op": "append", "path": "x", "new": "y", "evidence": []},
                    "junk",
                ]
            }
        ),
        "p",
    )
    assert len(mixed.proposals) == 1 and len(mixed.errors) == 3
    assert mixed.errors[0].startswith("proposal 2: op:")
    forged = parse_propose_reply(
        json.dumps({"proposals": [{**good, "pass_name": "core/forged"}]}), "core/facts"
    )
    assert forged.proposals[0].pass_name == "core/facts"
