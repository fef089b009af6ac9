"""`brief` shows the answer: a short matched turn whole, a long one as a wide snippet, and the
turn after it (the reply that often holds the answer)."""

from __future__ import annotations

from pathlib import Path

from hippo_git.notes.brief import WHOLE_CHARS, build_brief
from hippo_git.signals.refresh import ingest
from tests.conftest import make_repo
from tests.index_support import claude_lines, config, write_jsonl


def test_brief_shows_the_matched_turn_whole_and_its_reply(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", files={".hippo/hippo.toml": "", "notes/index.md": "# Index\n"})
    long_turn = (
        "The invoice export times out for big tenants. "
        + "We looked at many unrelated things first, like the queue and the workers and the cache. " * 12
        + "In the end the slow part was the tax lookup per line."
    )
    assert len(long_turn) > WHOLE_CHARS
    write_jsonl(
        tmp_path / "claude" / "s1.jsonl",
        claude_lines(
            "s1",
            str(repo),
            [
                ("user", "Why does the invoice export time out?"),
                ("assistant", "Because the export query has no index on created_at; adding one fixed it."),
            ],
        ),
    )
    write_jsonl(
        tmp_path / "claude" / "s2.jsonl",
        claude_lines(
            "s2",
            str(repo),
            [("user", long_turn), ("assistant", "Cache the tax rates per export run.")],
            start_minute=9,
        ),
    )
    cfg = config(repo, {"claude-code": [tmp_path / "claude"]})
    ingest(cfg)
    brief = build_brief(cfg, "invoice export time out")
    sessions = {s.id: s for s in brief.sessions}
    first = next(m for m in sessions["s1"].matches if m["seq"] == 0)
    assert first["whole"] and first["text"] == "Why does the invoice export time out?"
    assert "no index on created_at" in first["reply"]["text"] and first["reply"]["seq"] == 1
    long = next(m for m in sessions["s2"].matches if m["seq"] == 0)
    assert not long["whole"] and long["text"] != long_turn and "«" in long["text"]
    assert long["reply"]["text"] == "Cache the tax rates per export run."
    assert "then #1 (answer): Because the export query has no index on created_at" in brief.text
    assert "matched #0 (prompt): Why does the invoice export time out?" in brief.text
