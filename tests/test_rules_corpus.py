"""Every rollup rule on the real transcripts of ../shared/corpora/transcripts (ingested once).

What each rule finds there was read turn by turn (the hits are listed below); these tests pin it,
so a change to a rule that adds false positives or loses a real hit shows up here.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from hippo_git.config import Config
from hippo_git.index.ingest import ingest as index_ingest
from hippo_git.signals.refresh import ingest
from hippo_git.signals.rollup import update_rollup
from tests.conftest import corpus, make_repo

HARNESSES = (
    "aider",
    "claude-code",
    "codex",
    "cursor",
    "deepseek-harness",
    "gemini-cli",
    "muse-code",
    "opencode",
)


@pytest.fixture(scope="module")
def rollup(tmp_path_factory: pytest.TempPathFactory) -> Iterator[sqlite3.Connection]:
    root = corpus("transcripts")
    repo = make_repo(tmp_path_factory.mktemp("ws") / "repo")
    home = tmp_path_factory.mktemp("hippo-home")
    cfg = Config(root=repo, home=home, transcript_roots={h: (str(root / h),) for h in HARNESSES})
    summary = ingest(cfg, records=False)
    assert not summary.failed
    update_rollup(cfg)
    conn = sqlite3.connect(home / "rollup.sqlite")
    yield conn
    conn.close()


def _incidents(conn: sqlite3.Connection, kind: str) -> set[tuple[str, int, int | None]]:
    rows = conn.execute("SELECT session_id, seq, cause FROM incidents WHERE kind = ?", (kind,))
    return {(sid[:8], seq, cause) for sid, seq, cause in rows}


def test_corrections_in_the_corpus(rollup: sqlite3.Connection) -> None:
    # Each is a person steering the agent after its turn (`cause`):
    # "claude stop is not correct, …", "yes, but we don't need to commit", "let's not leave _all_ the tests
    # to the very end...", "the issue is still that this would not surface to the user, …",
    # "Sure, but the entire cli should handle that automatically for the user, not you adding that …".
    assert _incidents(rollup, "correction") == {
        ("062a8bdd", 28, 27),
        ("062a8bdd", 57, 56),
        ("062a8bdd", 92, 85),
        ("198393f2", 15, 14),
        ("acdd84ab", 16, 15),
    }


def test_blocked_steps_in_the_corpus(rollup: sqlite3.Connection) -> None:
    # Two rejected Claude Code tool uses, a policy-disabled bash (DeepSeek), a sandbox denial
    # (DeepSeek web), and an API refusal (the Claude Code fixture).
    found = _incidents(rollup, "blocked")
    assert {(sid, seq) for sid, seq, _ in found} == {
        ("130d7b7e", 101),
        ("ses_stag", 4),
        ("ff1c1e99", 3),
        ("web-appr", 2),
        ("ses_stag", 0),
    }
    assert ("130d7b7e", 101, 100) in found  # caused by the Edit the person rejected


def test_failed_steps_in_the_corpus(rollup: sqlite3.Connection) -> None:
    # The integration test run failing three times in a row while the agent fixed the GPG setup.
    assert _incidents(rollup, "failing_command") == {("a032db5a", 134, 123)}
    errors = Counter(r[0] for r in rollup.execute("SELECT rule FROM incidents WHERE kind = 'tool_error'"))
    assert errors == {
        "harness_error": 8,
        "tool_error": 1,
    }  # API errors of the fixtures; one Read of a missing file


def test_no_destructive_commands_and_no_cross_session_clashes_in_the_corpus(
    rollup: sqlite3.Connection,
) -> None:
    assert _incidents(rollup, "destructive") == set()
    assert _incidents(rollup, "overlap") == set() and _incidents(rollup, "redone") == set()


def test_claims_in_the_corpus_beside_their_evidence(rollup: sqlite3.Connection) -> None:
    rows = rollup.execute("SELECT session_id, seq, kind, status, ev_command, ev_exit FROM claims").fetchall()
    statuses = Counter((kind, status) for _, _, kind, status, _, _ in rows)
    assert statuses == {
        ("tests", "checked"): 12,
        ("tests", "unchecked"): 1,
        ("lint", "checked"): 2,
        ("fixed", "checked"): 3,
        ("build", "checked"): 1,
    }
    by_turn = {
        (sid[:8], seq, kind): (status, command, code) for sid, seq, kind, status, command, code in rows
    }
    assert by_turn[("062a8bdd", 180, "build")] == ("checked", "go build ./cmd/entire/...", 0)
    assert by_turn[("130d7b7e", 68, "lint")] == ("checked", "mise run fmt && mise run lint", 0)
    assert by_turn[("0198f0aa", 1, "tests")] == (
        "unchecked",
        None,
        None,
    )  # Muse: "All 21 fold tests pass." with no run shown


def test_facts_in_the_corpus(rollup: sqlite3.Connection) -> None:
    commands, unknown, failed = rollup.execute(
        "SELECT count(*), sum(exit IS NULL), sum(exit != 0) FROM commands"
    ).fetchone()
    assert (commands, failed) == (305, 8) and unknown <= 5
    edits = rollup.execute(
        "SELECT count(*), count(DISTINCT path), sum(added), sum(removed) FROM edits"
    ).fetchone()
    assert edits[0] == 54 and edits[1] >= 25 and edits[2] > edits[3] > 0
    assert rollup.execute("SELECT count(*) FROM prs").fetchone()[0] == 0
    work, wall = rollup.execute("SELECT sum(work_seconds), sum(wall_seconds) FROM sessions").fetchone()
    assert 0 < work < wall


def test_the_rollup_of_the_corpus_is_not_recomputed_when_nothing_changed(tmp_path: Path) -> None:
    root = corpus("transcripts", "claude-code")
    repo = make_repo(tmp_path / "repo")
    cfg = Config(root=repo, home=tmp_path / "home", transcript_roots={"claude-code": (str(root),)})
    index_ingest(cfg, records=False)
    first = update_rollup(cfg)
    again = update_rollup(cfg)
    assert first.rebuilt and first.recomputed == first.sessions > 0
    assert not again.rebuilt and again.recomputed == 0
