"""Time words in a search query: read as a span, taken out of the words, used as a boost."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import pytest

from hippo_git.index.db import connect
from hippo_git.index.search import search
from hippo_git.index.timewords import find_time
from hippo_git.signals.refresh import ingest
from tests.conftest import make_repo
from tests.index_support import claude_lines, config, write_jsonl

NOW = datetime(2026, 3, 11, 15, 30, tzinfo=UTC)  # a Wednesday


@pytest.mark.parametrize(
    ("query", "start", "end", "rest"),
    [
        ("what broke yesterday", "2026-03-10T00:00:00", "2026-03-11T00:00:00", "what broke"),
        ("deploy today", "2026-03-11T00:00:00", "2026-03-12T00:00:00", "deploy"),
        ("flaky test last week", "2026-02-25T00:00:00", "2026-03-11T15:30:01", "flaky test"),
        ("in May 2023 the trip", "2023-05-01T00:00:00", "2023-06-01T00:00:00", "the trip"),
        ("December, 2023 party", "2023-12-01T00:00:00", "2024-01-01T00:00:00", "party"),
        ("painting on October 13, 2023?", "2023-10-13T00:00:00", "2023-10-14T00:00:00", "painting ?"),
        ("on 8 May, 2023 she", "2023-05-08T00:00:00", "2023-05-09T00:00:00", "she"),
        ("the 2023-05-08 outage", "2023-05-08T00:00:00", "2023-05-09T00:00:00", "the outage"),
        ("bug 3 days ago", "2026-03-07T00:00:00", "2026-03-10T00:00:00", "bug"),
        ("race in 2022", "2022-01-01T00:00:00", "2023-01-01T00:00:00", "race"),
        ("last weekend hike", "2026-03-07T00:00:00", "2026-03-09T00:00:00", "hike"),
    ],
)
def test_time_words_become_a_span(query: str, start: str, end: str, rest: str) -> None:
    span, left = find_time(query, NOW)
    assert span is not None and (span.start, span.end) == (start, end)
    assert " ".join(left.split()) == rest


@pytest.mark.parametrize("query", ["may I rebase", "port 2023 open", "February 30, 2023 x", "weekly sync"])
def test_no_time_words_no_span(query: str) -> None:
    span, left = find_time(query, NOW)
    assert span is None and left == query


def test_a_named_day_boosts_that_days_turns(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude"
    for sid, day in (("old1", "2026-02-01"), ("yday", "2026-03-10"), ("new1", "2026-03-11")):
        write_jsonl(
            folder / f"{sid}.jsonl",
            claude_lines(sid, str(repo), [("user", f"the deploy script failed on {sid}")], day=day),
        )
    cfg = config(repo, {"claude-code": [folder]})
    ingest(cfg)
    conn = connect(cfg.index_path, readonly=True)
    assert search(conn, "deploy script failed yesterday", now=NOW)[0].session_id == "yday"
    assert search(conn, "deploy script failed on 2026-02-01", now=NOW)[0].session_id == "old1"
    # The time words are not searched as words: "May" the month does not match "may" the verb.
    assert search(conn, "deploy in May 2023", now=NOW)[0].snippet.count("«") == 1
    conn.close()
