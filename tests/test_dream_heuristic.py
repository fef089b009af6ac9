"""The built-in offline model: deterministic proposals with verbatim quotes, a strict reviewer, lessons."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_git.dream.evidence import NoteText, PassInput, TurnRef
from hippo_git.dream.heuristic import answer, find_items
from hippo_git.dream.packs import find_pack
from hippo_git.dream.prompt import Block, Section, parse_request, render
from hippo_git.dream.protocol import parse_propose_reply, parse_review_reply, propose_request, review_request
from hippo_git.dream.quotes import quotes_in
from hippo_git.dream.records import Proposal
from hippo_git.dream.runner import ModelRunError, heuristic_argv

TURNS = (
    TurnRef(
        "s1",
        0,
        "prompt",
        "No, don't use pip here. We use uv for everything.\nAlso, always run ruff before you commit.",
    ),
    TurnRef(
        "s1",
        1,
        "answer",
        "Understood. We decided to keep the fixtures in tests/data so both suites share them.",
    ),
    TurnRef("s1", 2, "tool_call", "command: make check\ndescription: lint and test"),
    TurnRef(
        "s1",
        3,
        "tool_output",
        "make: *** No rule to make target 'check'.  Stop.\nError: exit code 2",
        is_error=True,
    ),
    TurnRef("s1", 4, "tool_call", "command: make install-hooks"),
    TurnRef("s1", 5, "tool_output", "hooks installed"),
    TurnRef("s1", 6, "tool_call", "command: make check lint"),
    TurnRef("s1", 7, "tool_output", "all good"),
    TurnRef("s1", 8, "answer", "```\nwe decided nothing in code blocks counts\n```"),
)


def _pass(name: str):  # type: ignore[no-untyped-def]
    return find_pack(Path("/nonexistent/.hippo"), "core").get_pass(name)


def _shown(note: str = "# Build\n") -> PassInput:
    return PassInput(notes=(NoteText("notes/build.md", note, "0" * 40, ("s1",)),), turns=TURNS)


def _propose(pass_name: str, note: str = "# Build\n") -> list[Proposal]:
    p = _pass(pass_name)
    code, out = answer(propose_request(p, _shown(note), notes_dir="notes"))
    assert code == 0
    return parse_propose_reply(out, p.full_name).proposals


def test_each_pass_finds_its_kind_of_knowledge_quoted_verbatim() -> None:
    facts = _propose("facts")
    assert [p.new for p in facts] == [
        '- Correction: "No, don\'t use pip here. We use uv for everything." (s1#0)\n'
    ]
    decisions = _propose("decisions")
    assert [p.evidence for p in decisions] == [("s1#0",), ("s1#1",)]
    assert '"Also, always run ruff before you commit."' in decisions[0].new
    assert "Rule" in decisions[0].new and "Decision" in decisions[1].new
    fixes = _propose("fixes")
    assert len(fixes) == 1 and fixes[0].evidence == ("s1#3", "s1#4")
    assert '"Error: exit code 2" was fixed by "make install-hooks"' in fixes[0].new
    assert _propose("stale") == []  # staleness needs judgement: the offline model proposes nothing


def test_quotes_are_verbatim_and_already_known_text_is_skipped() -> None:
    for p in _propose("decisions") + _propose("facts") + _propose("fixes"):
        texts = [t.text for t in TURNS if t.id in p.evidence]
        quotes = quotes_in(p.new)
        assert quotes and all(any(q in t for t in texts) for q in quotes)
    known = (
        '# Build\n- Decision: "We decided to keep the fixtures in tests/data so both suites share them."\n'
    )
    assert [p.evidence for p in _propose("decisions", known)] == [("s1#0",)]


def test_items_ignore_code_blocks_and_agents_rules() -> None:
    blocks = [Block(t.meta(), t.text) for t in TURNS]
    items = find_items(blocks, {"decision", "rule", "correction"})
    assert all("code blocks" not in text for _, text, _ in items)
    agent_rule = [
        Block(
            TurnRef("s2", 0, "answer", "You must always restart the server after editing config.").meta(),
            "You must always restart the server after editing config.",
        )
    ]
    assert find_items(agent_rule, {"rule", "correction"}) == []  # rules count only when a person gave them


def test_reviewer_confirms_only_verbatim_new_knowledge() -> None:
    p = _pass("decisions")
    note = NoteText("notes/build.md", "# Build\n", "0" * 40)
    good = Proposal(
        op="append",
        path="notes/build.md",
        new='- Decision: "We decided to keep the fixtures in tests/data so both suites share them."\n',
        evidence=("s1#1",),
    )
    verdict, reason, ok = parse_review_reply(answer(review_request(p, good, note, [TURNS[1]]))[1])
    assert (verdict, ok) == ("confirm", True) and reason.startswith("heuristic:")
    invented = Proposal(
        op="append",
        path="notes/build.md",
        new='- Decision: "We decided to delete all tests."\n',
        evidence=("s1#1",),
    )
    assert parse_review_reply(answer(review_request(p, invented, note, [TURNS[1]]))[1])[0] == "reject"
    unquoted = Proposal(
        op="append", path="notes/build.md", new="- keep fixtures in tests/data\n", evidence=("s1#1",)
    )
    assert parse_review_reply(answer(review_request(p, unquoted, note, [TURNS[1]]))[1])[0] == "reject"
    said = NoteText(
        "notes/build.md",
        '# Build\n"We decided to keep the fixtures in tests/data so both suites share them."\n',
        "0" * 40,
    )
    assert parse_review_reply(answer(review_request(p, good, said, [TURNS[1]]))[1])[0] == "reject"


def test_lesson_task_quotes_the_correction() -> None:
    text, _ = render(
        {"task": "lesson"},
        "draft rules",
        [Section("Turns", "corrections", (Block(TURNS[0].meta(), TURNS[0].text),))],
        "reply",
    )
    code, out = answer(text)
    assert code == 0
    lessons = json.loads(out)["lessons"]
    assert [(x["rule"], x["evidence"]) for x in lessons] == [
        ('"No, don\'t use pip here. We use uv for everything."', ["s1#0"])
    ]
    named = Block(
        TurnRef("s9", 4, "prompt", "I told you to keep the old API. Please put it back.").meta(),
        "I told you to keep the old API. Please put it back.",
    )
    text, _ = render(
        {"task": "lesson", "corrections": ["s9#4"]}, "draft", [Section("Turns", "x", (named,))], "reply"
    )
    assert (
        json.loads(answer(text)[1])["lessons"][0]["rule"]
        == '"I told you to keep the old API. Please put it back."'
    )
    fails = tuple(
        Block(
            TurnRef(f"s{n}", 1, "tool_output", "Error: port 8080 in use", is_error=True).meta(),
            "Error: port 8080 in use",
        )
        for n in range(3)
    )
    text, _ = render({"task": "lesson", "kind": "failure"}, "draft", [Section("Turns", "x", fails)], "reply")
    assert json.loads(answer(text)[1]) == {"lessons": []}  # a repeated failure needs judgement


def test_unknown_tasks_and_garbage_are_errors() -> None:
    text, _ = render({"task": "poem"}, "x", [], "y")
    assert answer(text)[0] == 2 and "poem" in answer(text)[1]
    assert answer("not a request")[0] == 2


def test_the_command_speaks_the_protocol_on_stdin_and_stdout() -> None:
    prompt = propose_request(_pass("facts"), _shown(), notes_dir="notes")
    proc = subprocess.run(
        [sys.executable, "-m", "hippo_git", "model", "heuristic"],
        input=prompt,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["proposals"][0]["evidence"] == ["s1#0"]
    assert parse_request(prompt).task == "propose"


def test_the_command_loads_neither_pydantic_nor_pygit2() -> None:
    """Its own process (a configured `git hippo model heuristic`) stays light: a Python start per call."""
    prompt = propose_request(_pass("facts"), _shown(), notes_dir="notes")
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hippo_git", "model", "heuristic"],
        input=prompt,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0
    loaded = {
        line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time")
    }
    assert "hippo_git.dream.heuristic" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("pydantic", "pygit2", "git")}


def test_a_dream_answers_with_the_built_in_model_in_process(tmp_path: Path) -> None:
    from hippo_git.dream.runner import InProcessModel, make_model

    model = make_model(heuristic_argv(), tmp_path, "run-1", {}, 10.0)
    assert isinstance(model, InProcessModel) and model.argv == heuristic_argv()
    prompt = propose_request(_pass("facts"), _shown(), notes_dir="notes")
    assert json.loads(model(prompt).stdout)["proposals"][0]["evidence"] == ["s1#0"]
    assert not (tmp_path / "model-runs").exists()  # no scratch folder, no process
    with pytest.raises(ModelRunError, match="built-in model exited with status 2"):
        model("not a request")
    assert not isinstance(make_model(["llm", "-m", "x"], tmp_path, "run-1", {}, 10.0), InProcessModel)
