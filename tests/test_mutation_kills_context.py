"""The context block's small print that mutation testing found unguarded (issue 21): the session
line, the notes-health line, one-line shortening, the JSON shape and the budget's edges."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.errors import UsageError
from hippo_git.notes.context import (
    CLAUDE_HOOK_MAX_BYTES,
    ContextBlock,
    Part,
    _lint_part,
    _one_line,
    _session_part,
    build_context,
)
from tests.conftest import make_repo


def test_one_line_flattens_and_cuts_at_exactly_the_limit() -> None:
    assert _one_line("a\n b\t c", 5) == "a b c"  # 5 characters: kept whole
    assert _one_line("abcdef", 5) == "abcd…"  # 6: cut to 4 and the ellipsis, 5 in all
    assert _one_line("abcdef", 6) == "abcdef"


def test_the_session_line_names_where_and_each_session() -> None:
    assert "Working on no branch." in _session_part(None, None, []).text
    assert "Working on detached HEAD at 0123456789ab." in _session_part(None, "0123456789abcdef", []).text
    none = _session_part("main", None, [])
    assert (
        none.text
        == "## Session\nWorking on branch `main`.\nNo earlier sessions are recorded in this workspace.\n"
    )
    assert (none.kind, none.label, none.required) == ("session", "session", False)
    records = [
        {"id": "s2", "started": "2026-01-02T03:04:05Z", "harness": "codex", "task": "fix it"},
        {"id": "s1", "started": "2026-01-01T00:00:00Z", "ended": "2026-01-01T09:30:59Z", "title": "old work"},
        {"id": "s0", "handoff": "line one\n  line two"},
    ]
    text = _session_part("main", None, records).text
    assert "Recent sessions in this workspace (newest first):" in text
    assert "- 2026-01-02 03:04 · codex · fix it [still open] (session `s2`)" in text
    assert "- 2026-01-01 09:30 · unknown harness · old work (session `s1`)" in text
    assert (
        "- ? · unknown harness · (no task recorded) [still open] (session `s0`)\n  handoff: line one line two"
        in text
    )
    assert "No earlier sessions" not in text


def test_the_notes_health_line_counts_in_words() -> None:
    text = _lint_part(
        {"notes": 12, "errors": 3, "warnings": 1, "broken_link": 2, "front_matter": 1, "orphan": 1}
    ).text
    assert text == (
        "## Notes health\n12 notes; `git hippo notes lint`: 3 errors (2 broken links, 1 bad front matter), "
        "1 warnings (1 orphan).\n"
    )
    assert _lint_part({}).text == "## Notes health\n0 notes; `git hippo notes lint`: 0 errors, 0 warnings.\n"
    part = _lint_part({"notes": 1})
    assert (part.kind, part.label, part.required) == ("lint", "lint", False)


def test_the_blocks_json_and_hook_shapes() -> None:
    parts = [Part("header", "header", "# é\n", True), Part("relevant", "notes/a.md", "abc", False, why="w")]
    block = ContextBlock(task="t", budget=100, parts=parts, left_out=[parts[1]], text="# é\nabc", branch="b")
    assert block.size == 8 and block.sizes == {"header": 5, "notes/a.md": 3}
    data = block.as_dict()
    assert data == {
        "task": "t",
        "budget": 100,
        "bytes": 8,
        "required_bytes": 0,
        "branch": "b",
        "parts": [p.as_dict() for p in parts],
        "left_out": [parts[1].as_dict()],
        "sessions": [],
        "lint": {},
        "text": "# é\nabc",
    }
    hook = json.loads(block.claude_hook())
    assert hook == {"hookSpecificOutput": {"hookEventName": "SessionStart", "additionalContext": "# é\nabc"}}
    assert "é" in block.claude_hook()  # UTF-8 kept, not \\u-escaped: the cap is counted in bytes


def test_the_budget_must_be_positive_and_the_hook_cap_only_lowers_it(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "r", files={"notes/index.md": "# Index\n"})
    cfg = load_config(repo)
    for bad in (0, -5):
        with pytest.raises(UsageError, match=f"positive number of bytes, not {bad}"):
            build_context(cfg, budget=bad)
    assert (
        build_context(cfg, budget=50_000, for_claude_hook=True, degrade=True).budget == CLAUDE_HOOK_MAX_BYTES
    )
    assert build_context(cfg, budget=4_000, for_claude_hook=True).budget == 4_000
    assert build_context(cfg, budget=50_000).budget == 50_000
    block = build_context(cfg, task="   ")
    assert block.task is None and "Task:" not in block.text
    assert "Task: ship  it" not in build_context(cfg, task=" ship\n it ").text
    assert build_context(cfg, task=" ship\n it ").task == "ship\n it"


def test_an_entry_outside_the_notes_folder_is_never_read(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        files={
            ".hippo/hippo.toml": '[context]\nentry = "../secret.md"\nrequired = ["notes/../../secret.md", "index.md"]\n',
            "secret.md": "TOP SECRET\n",
            "notes/index.md": "# Index\n",
        },
    )
    block = build_context(load_config(repo))
    assert "TOP SECRET" not in block.text
    assert "Missing context notes" in block.text and "notes/../secret.md" in block.text
    assert [p.label for p in block.parts if p.kind == "required"] == ["notes/index.md"]


def test_memory_notes_are_not_relevant_notes(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        files={
            "notes/index.md": "# Index\nSee [[memories/deploy-canary]] and [[deploy]].\n",
            "notes/deploy.md": "# Deploy\nCanary deploys.\n",
            "notes/memories/deploy-canary.md": "# Deploy canary memory\nCanary deploys.\n",
        },
    )
    block = build_context(load_config(repo), task="canary deploys")
    relevant = [p.label for p in block.parts if p.kind == "relevant"]
    assert "notes/deploy.md" in relevant and not any("memories/" in p for p in relevant)


def test_a_sessions_task_is_cut_at_120_characters() -> None:
    exact, longer = "x" * 120, "y" * 121
    text = _session_part("main", None, [{"id": "a", "task": exact}, {"id": "b", "task": longer}]).text
    assert f"· {exact} [still open]" in text
    assert f"· {'y' * 119}… [still open]" in text


def test_lint_is_pending_only_when_the_index_is_complete_but_no_counts_are_at_hand(tmp_path: Path) -> None:
    import time

    files = {f"notes/n{i}.md": f"# Note {i}\nSee [[n{i + 1}]].\n" for i in range(30)}
    cfg = load_config(make_repo(tmp_path / "r", files={"notes/index.md": "# Index\n", **files}))
    cut = build_context(cfg, deadline=time.monotonic() - 1)  # the index is not built in time
    assert not cut.index_complete and not cut.lint_pending and cut.lint == {}
    full = build_context(cfg)  # no deadline: the index is finished and linted
    assert full.index_complete and full.lint["notes"] == 31 and not full.lint_pending


def test_a_required_note_named_twice_or_as_the_entry_does_not_hide_the_next(tmp_path: Path) -> None:
    repo = make_repo(
        tmp_path / "r",
        files={
            ".hippo/hippo.toml": '[context]\nrequired = ["index.md", "a.md", "a.md", "b.md"]\n',
            "notes/index.md": "# Index\n",
            "notes/a.md": "# A\n",
            "notes/b.md": "# B\n",
        },
    )
    block = build_context(load_config(repo))
    assert [p.label for p in block.parts if p.kind in ("entry", "required")] == [
        "notes/index.md",
        "notes/a.md",
        "notes/b.md",
    ]


def _sessions(repo: Path, handoffs: list[str]) -> None:
    """Ended session records, newest first as listed: the i-th ended on day 20 - i."""
    from hippo_git.index.records import write_record_dict

    for i, handoff in enumerate(handoffs):
        day = f"2026-01-{20 - i:02d}T10:00:00Z"
        write_record_dict(
            repo, {"id": f"s{i}", "started": day, "ended": day, "task": f"t{i}", "handoff": handoff}
        )


def test_the_handoffs_of_the_five_newest_sessions_pick_relevant_notes(tmp_path: Path) -> None:
    files = {
        "notes/index.md": "# Index\n",
        "notes/fifth.md": "# Fifth\nx\n",
        "notes/sixth.md": "# Sixth\ny\n",
    }
    repo = make_repo(tmp_path / "r", files=files)
    _sessions(repo, ["a", "b", "c", "d", "see [[fifth]]", "see [[sixth]]"])
    block = build_context(load_config(repo))
    relevant = {p.label: p.why for p in block.parts if p.kind == "relevant"}
    assert "notes/fifth.md" in relevant and "handoff" in relevant["notes/fifth.md"]
    assert "notes/sixth.md" not in relevant  # the sixth newest session is too old to be read
    assert [s["id"] for s in block.sessions] == ["s0", "s1", "s2"]  # three shown


def test_a_handoff_is_cut_at_400_characters() -> None:
    exact, longer = "h" * 400, "k" * 401
    text = _session_part("main", None, [{"id": "a", "handoff": exact}, {"id": "b", "handoff": longer}]).text
    assert f"handoff: {exact}\n" in text
    assert f"handoff: {'k' * 399}…\n" in text


def test_lint_counts_are_computed_unless_only_cached_ones_are_asked_for(tmp_path: Path) -> None:
    from hippo_git.notes import notes_index
    from hippo_git.notes.context import _lint_counts

    cfg = load_config(make_repo(tmp_path / "r", files={"notes/index.md": "# Index\nSee [[gone]].\n"}))
    conn = notes_index.open_notes_index(cfg)
    try:
        assert notes_index.refresh(conn, cfg).complete
        assert _lint_counts(cfg, conn, cached_only=True) == {}  # nothing cached yet: nothing
        counts = _lint_counts(cfg, conn)  # by default a cold cache is linted, not skipped
        assert counts["notes"] == 1 and counts["broken_link"] == 1
        assert _lint_counts(cfg, conn, cached_only=True) == counts  # and that run cached them
    finally:
        conn.close()
