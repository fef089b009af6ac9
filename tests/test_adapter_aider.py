"""Aider adapter: the real `.aider.chat.history.md` sample, sessions by header, incremental reads."""

from __future__ import annotations

import shutil
from pathlib import Path

from hippo_git.transcripts.aider import ADAPTER
from hippo_git.transcripts.model import ANSWER, PROMPT, SYSTEM, TOOL_OUTPUT, Cursor
from tests.adapter_support import kinds
from tests.conftest import corpus


def test_every_corpus_file_is_discovered() -> None:
    folder = corpus("transcripts", "aider")
    assert [p.name for p in ADAPTER.discover(folder)] == ["zen-mcp-server.aider.chat.history.md"]


def test_real_history_sessions_and_turns() -> None:
    path = corpus("transcripts", "aider", "zen-mcp-server.aider.chat.history.md")
    result = ADAPTER.parse(path, Cursor())
    sessions = result.sessions
    # Four `# aider chat started at` headers.
    assert [s.info.started for s in sessions] == [
        "2025-10-20T21:49:17.000Z",
        "2025-10-20T21:49:22.000Z",
        "2025-10-22T09:29:12.000Z",
        "2025-10-23T17:04:56.000Z",
    ]
    assert [kinds(s) for s in sessions] == [
        {SYSTEM: 1},
        {SYSTEM: 1, PROMPT: 1, TOOL_OUTPUT: 1},
        {SYSTEM: 1},
        {SYSTEM: 1, PROMPT: 7, TOOL_OUTPUT: 7},
    ]
    assert all(s.mode == "replace" for s in sessions)
    assert len({s.info.id for s in sessions}) == 4
    assert sessions[1].turns[1].text == "/add **"
    assert sessions[1].info.model == "gemini/gemini-2.5-pro-preview-06-05"
    assert sessions[0].info.model is None  # that session never printed its banner
    # The third session's banner carries an SSL error from the version check.
    assert sessions[2].turns[0].is_error and "Error checking pypi" in sessions[2].turns[0].text
    last = sessions[3]
    # The first /add prompt spans eight `####` lines.
    assert last.turns[1].text.count("\n") == 7
    assert last.turns[2].paths[:2] == ("config.py", "providers/shared/model_capabilities.py")
    assert len(last.turns[2].paths) == 8 and not last.turns[2].edited
    assert "请你分析一下" in last.turns[3].text
    assert [t.seq for t in last.turns] == list(range(15))
    assert all(s.info.cwd == str(path.resolve().parent) for s in sessions)
    assert result.cursor.offset == path.stat().st_size
    assert result.stats.unknown == 0 and result.stats.torn == 0


def test_session_ids_are_stable_and_depend_on_the_file(tmp_path: Path) -> None:
    path = corpus("transcripts", "aider", "zen-mcp-server.aider.chat.history.md")
    first = [s.info.id for s in ADAPTER.parse(path, Cursor()).sessions]
    again = [s.info.id for s in ADAPTER.parse(path, Cursor()).sessions]
    assert first == again
    copy = tmp_path / "repo" / ".aider.chat.history.md"
    copy.parent.mkdir()
    shutil.copyfile(path, copy)
    moved = [s.info.id for s in ADAPTER.parse(copy, Cursor()).sessions]
    assert set(moved).isdisjoint(first)
    assert list(ADAPTER.discover(tmp_path)) == [copy]


HISTORY = """
# aider chat started at 2025-01-02 10:00:00

> Aider v0.86.1
> Main model: anthropic/claude-sonnet-4 with diff edit format

#### rename the helper in utils.py
#### and keep the tests green

I'll rename it.

utils.py
```python
<<<<<<< SEARCH
def helper():
=======
def tidy():
>>>>>>> REPLACE
```

> Tokens: 2.1k sent, 120 received.
> Applied edit to utils.py
> Commit abc1234 refactor: rename helper

"""


def test_answers_edits_and_multiline_prompts(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text("stray text before any header\n" + HISTORY)
    result = ADAPTER.parse(path, Cursor())
    (session,) = result.sessions
    assert [t.kind for t in session.turns] == [SYSTEM, PROMPT, ANSWER, TOOL_OUTPUT]
    assert session.turns[1].text == "rename the helper in utils.py\nand keep the tests green"
    answer = session.turns[2].text
    assert answer.startswith("I'll rename it.") and "<<<<<<< SEARCH" in answer and answer.endswith("```")
    output = session.turns[3]
    assert output.paths == ("utils.py",) and output.edited and output.tool == "aider"
    assert session.info.model == "anthropic/claude-sonnet-4"
    assert result.stats.unknown == 1  # the stray line before the first header


def test_incremental_reads_append_then_start_new_sessions(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(HISTORY)
    first = ADAPTER.parse(path, Cursor())
    (session,) = first.sessions
    assert len(session.turns) == 4
    with path.open("a") as handle:
        handle.write("#### now add a docstring\n\nDone.\n\n# aider chat started at 2025-01-03 09:00:00\n\n")
        handle.write("> Aider v0.86.1\n")
    second = ADAPTER.parse(path, first.cursor)
    grown, fresh = second.sessions
    assert grown.mode == "append" and grown.info.id == session.info.id
    assert [(t.seq, t.kind) for t in grown.turns] == [(4, PROMPT), (5, ANSWER)]
    assert fresh.mode == "replace" and fresh.info.id != session.info.id
    assert [t.kind for t in fresh.turns] == [SYSTEM]
    # Nothing new: nothing returned, cursor unchanged.
    third = ADAPTER.parse(path, second.cursor)
    assert third.sessions == [] and third.cursor.offset == second.cursor.offset


def test_a_line_still_being_written_is_not_consumed(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(HISTORY + "#### half a prom")
    result = ADAPTER.parse(path, Cursor())
    assert result.cursor.offset == len(HISTORY.encode())
    assert [t.kind for t in result.sessions[0].turns] == [SYSTEM, PROMPT, ANSWER, TOOL_OUTPUT]
    with path.open("a") as handle:
        handle.write("pt\n")
    later = ADAPTER.parse(path, result.cursor)
    assert [(t.seq, t.kind, t.text) for t in later.sessions[0].turns] == [(4, PROMPT, "half a prompt")]


def test_a_shrunk_file_is_read_again_from_the_start(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(HISTORY + HISTORY.replace("2025-01-02", "2025-01-05"))
    cursor = ADAPTER.parse(path, Cursor()).cursor
    path.write_text(HISTORY)
    result = ADAPTER.parse(path, cursor)
    assert [s.mode for s in result.sessions] == ["replace"]
    assert [t.seq for t in result.sessions[0].turns] == [0, 1, 2, 3]
