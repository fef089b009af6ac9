"""Search and sessions: ranking, snippets, filters, id prefixes, garbage queries, and the CLI."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import Config
from hippo_git.errors import HippoError, UsageError
from hippo_git.index.db import IndexMissingError, connect
from hippo_git.index.search import search, word_queries
from hippo_git.index.sessions import get_session, get_turns, list_sessions, parse_since, resolve_session_id
from hippo_git.signals.refresh import ingest
from tests.conftest import make_repo
from tests.index_support import claude_lines, config, write_jsonl


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Config]:
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude"
    write_jsonl(
        folder / "a" / "abc111.jsonl",
        claude_lines(
            "abc111",
            str(repo),
            [
                ("user", "Why does the rebase of the proposals branch fail?"),
                (
                    "assistant",
                    "The rebase fails because the receipts ref moved; fetch receipts first, then rebase.",
                ),
            ],
            day="2026-01-05",
            title="Rebase trouble",
        ),
    )
    write_jsonl(
        folder / "b" / "abc222.jsonl",
        claude_lines(
            "abc222",
            "/elsewhere/project",
            [
                ("user", "Tune the tokenizer for the search index"),
                ("assistant", "Porter stemming helps: searching and searched both match search."),
                ("user", "mention rebase once"),
            ],
            day="2026-02-10",
        ),
    )
    write_jsonl(
        folder / "c" / "xyz999.jsonl",
        claude_lines(
            "xyz999",
            "/elsewhere/other",
            [
                ("user", "unrelated words about cooking pasta"),
            ],
            day="2026-02-11",
        ),
    )
    cfg = config(repo, {"claude-code": [folder]})
    ingest(cfg)
    return repo, cfg


def test_ranking_snippets_and_filters(indexed: tuple[Path, Config]) -> None:
    repo, cfg = indexed
    conn = connect(cfg.index_path, readonly=True)
    hits = search(conn, "rebase receipts")
    assert (hits[0].session_id, hits[0].seq) == ("abc111", 1)  # both words, and twice "rebase"
    assert "«rebase»" in hits[0].snippet and "«receipts»" in hits[0].snippet
    assert hits[0].harness == "claude-code" and hits[0].cwd == str(repo) and hits[0].title == "Rebase trouble"
    assert hits[0].score > 0
    # Turns with more of the words first; then any of them; then turns next to a match.
    keys = [(h.session_id, h.seq) for h in hits if not h.near]
    assert keys[0] == ("abc111", 1) and set(keys[1:]) == {("abc111", 0), ("abc222", 2)}
    near = [h for h in hits if h.near]
    assert {(h.session_id, h.seq) for h in near} == {("abc222", 0), ("abc222", 1)}
    assert hits[-len(near) :] == near and near[0].snippet.startswith("Porter stemming")
    assert near[0].seq == 1  # the nearer neighbour first

    assert [h.session_id for h in search(conn, "searched") if not h.near] == ["abc222", "abc222"]  # stemming
    assert {h.session_id for h in search(conn, "rebase", harness="codex")} == set()
    assert {h.session_id for h in search(conn, "rebase", since="2026-02-01")} == {"abc222"}
    assert {h.session_id for h in search(conn, "rebase", session="abc111")} == {"abc111"}
    assert {h.session_id for h in search(conn, "rebase", cwds=[str(repo)])} == {"abc111"}
    assert {h.session_id for h in search(conn, "rebase", cwds=[str(repo)], session_ids=["abc222"])} == {
        "abc111",
        "abc222",
    }
    assert len(search(conn, "rebase", limit=1)) == 1
    conn.close()


@pytest.mark.parametrize(
    "query", ['"foo', "AND OR (", "*", "NEAR(", "col:rebase", "^", "'", "-", "a AND", '"""']
)
def test_garbage_queries_never_crash(indexed: tuple[Path, Config], query: str) -> None:
    _, cfg = indexed
    conn = connect(cfg.index_path, readonly=True)
    assert isinstance(search(conn, query), list)
    conn.close()


def test_word_queries_cut_words_as_the_index_does() -> None:
    assert word_queries("*") == []
    assert word_queries('say "hi') == ['"say" OR "hi"']
    assert word_queries("the rebase") == ['"rebase"']  # stopwords dropped when others remain
    assert word_queries("the") == ['"the"']
    assert word_queries("the doctor's note") == ['"doctor" OR "note"']  # not the phrase "doctor s"
    assert word_queries("high-impact snake_case") == ['"high" OR "impact" OR "snake" OR "case"']
    assert word_queries("so what is SO saying") == ['"so" OR "saying"']  # SO is a name, so is not
    assert word_queries("Rebase rebase REBASE") == ['"rebase"']
    assert word_queries("naïve café") == ['"naïve" OR "café"']


def test_query_words_match_what_the_index_holds(indexed: tuple[Path, Config]) -> None:
    _, cfg = indexed
    conn = connect(cfg.index_path, readonly=True)
    # "receipts" and "ref" hold the answer; punctuation around them must not make a phrase.
    assert (search(conn, "receipts'-ref?")[0].session_id, search(conn, "receipts'-ref?")[0].seq) == (
        "abc111",
        1,
    )
    conn.close()


def test_raw_fts_syntax_errors_become_hippo_errors(indexed: tuple[Path, Config]) -> None:
    _, cfg = indexed
    conn = connect(cfg.index_path, readonly=True)
    assert {h.session_id for h in search(conn, "rebas*", fts=True)} == {"abc111", "abc222"}
    assert search(conn, "rebase NOT receipts", fts=True)[0].session_id == "abc222"
    for bad in ('"foo', "AND OR (", "nosuchcol: x"):
        with pytest.raises(HippoError) as err:
            search(conn, bad, fts=True)
        assert err.value.hint
    conn.close()


def test_sessions_prefixes_and_turns(indexed: tuple[Path, Config]) -> None:
    repo, cfg = indexed
    conn = connect(cfg.index_path, readonly=True)
    assert [s.id for s in list_sessions(conn)] == ["xyz999", "abc222", "abc111"]
    assert [s.id for s in list_sessions(conn, workspace_cwds=[str(repo)])] == ["abc111"]
    assert [s.id for s in list_sessions(conn, limit=1)] == ["xyz999"]
    assert resolve_session_id(conn, "xy") == "xyz999"
    assert resolve_session_id(conn, "abc111") == "abc111"
    with pytest.raises(HippoError, match="ambiguous: abc111, abc222"):
        resolve_session_id(conn, "abc")
    with pytest.raises(HippoError, match="no indexed session"):
        resolve_session_id(conn, "nope")
    with pytest.raises(UsageError):
        resolve_session_id(conn, " ")
    info = get_session(conn, "abc222")
    assert info is not None and info.turns == 3 and info.cwd == "/elsewhere/project"
    turns = get_turns(conn, "abc222")
    assert [(t.seq, t.kind) for t in turns] == [(0, "prompt"), (1, "answer"), (2, "prompt")]
    assert [t.seq for t in get_turns(conn, "abc222", seqs=[2, 0])] == [0, 2]
    conn.close()


def test_parse_since() -> None:
    from datetime import UTC, datetime

    now = datetime(2026, 3, 10, 12, 0, tzinfo=UTC)
    assert parse_since("7d", now) == "2026-03-03T12:00:00"
    assert parse_since("12h", now) == "2026-03-10T00:00:00"
    assert parse_since("2w", now) == "2026-02-24T12:00:00"
    assert parse_since("2026-01-31") == "2026-01-31T00:00:00"
    assert parse_since("2026-01-31T10:00:00+02:00") == "2026-01-31T08:00:00"
    with pytest.raises(UsageError):
        parse_since("last tuesday")


def test_cli_search_sessions_and_show(indexed: tuple[Path, Config], hippo: Any) -> None:
    repo, _ = indexed
    run = hippo
    res = run(["search", "rebase", "receipts", "--all", "--json"], cwd=repo)
    assert res.exit_code == 0
    data = json.loads(res.stdout)
    assert data[0]["session_id"] == "abc111" and "«" in data[0]["snippet"]
    everywhere = {
        h["session_id"] for h in json.loads(run(["search", "rebase", "--all", "--json"], cwd=repo).stdout)
    }
    assert everywhere > {"abc111"}

    # Like MCP's search tool: inside a repository, its own sessions by default.
    res = run(["search", "rebase", "--json"], cwd=repo)
    assert {h["session_id"] for h in json.loads(res.stdout)} == {"abc111"}
    res = run(["search", "rebase", "--workspace", "--json"], cwd=repo)  # the old flag still works
    assert {h["session_id"] for h in json.loads(res.stdout)} == {"abc111"}
    res = run(["search", "rebase", "--json"], cwd=repo.parent)  # outside a repository: the machine
    assert {h["session_id"] for h in json.loads(res.stdout)} == everywhere
    res = run(["search", "rebase", "--session", "abc2", "--since", "30d"], cwd=repo)
    assert res.exit_code == 0
    res = run(["search", "--fts", '"foo'], cwd=repo)
    assert res.exit_code == 1 and "not valid FTS5" in res.stderr and "hint:" in res.stderr
    res = run(["search", "x", "--session", "abc"], cwd=repo)
    assert res.exit_code == 1 and "ambiguous" in res.stderr

    res = run(["sessions", "--json", "--limit", "2"], cwd=repo)
    assert [s["id"] for s in json.loads(res.stdout)] == ["xyz999", "abc222"]
    res = run(["sessions", "--workspace"], cwd=repo)
    assert "abc111" in res.stdout and "xyz999" not in res.stdout
    res = run(["sessions", "show", "abc1"], cwd=repo)
    assert res.exit_code == 0 and "[1] answer" in res.stdout and "receipts ref moved" in res.stdout
    res = run(["sessions", "show", "abc1", "--json"], cwd=repo)
    shown = json.loads(res.stdout)
    assert shown["session"]["id"] == "abc111" and len(shown["turns"]) == 2


def test_readers_without_an_index_get_a_hint(tmp_path: Path, hippo: Any) -> None:
    with pytest.raises(IndexMissingError):
        connect(tmp_path / "none.sqlite", readonly=True)
    assert not (tmp_path / "none.sqlite").exists()
    repo = make_repo(tmp_path / "repo")
    res = hippo(["sessions"], cwd=repo)
    assert res.exit_code == 1 and "git hippo ingest" in res.stderr


def test_every_match_is_ranked_not_only_recent_ones(
    tmp_path: Path, indexed: tuple[Path, Config], monkeypatch: pytest.MonkeyPatch
) -> None:
    import hippo_git.index.search as search_module

    _, cfg = indexed
    folder = tmp_path / "claude"
    # Newer sessions that mention rebase once in long turns: weaker matches, indexed after abc111.
    for n in range(30):
        filler = "rebase " + " ".join(f"word{n}x{i}" for i in range(60))
        write_jsonl(
            folder / "d" / f"new{n:03d}.jsonl",
            claude_lines(f"new{n:03d}", "/x", [("user", filler)], day="2026-03-01"),
        )
    ingest(cfg)
    monkeypatch.setattr(search_module, "CANDIDATES", 3)
    conn = connect(cfg.index_path, readonly=True)
    best = search(conn, "rebase receipts", limit=1)
    assert (best[0].session_id, best[0].seq) == ("abc111", 1)  # the oldest turn, still first
    assert {(h.session_id, h.seq) for h in search(conn, "rebase", session="abc111")} == {
        ("abc111", 0),
        ("abc111", 1),
    }
    assert {h.session_id for h in search(conn, "rebase", since="2026-02-20", limit=50)} == {
        f"new{n:03d}" for n in range(30)
    }
    conn.close()


def test_common_words_still_count_when_rare_words_pick_the_candidates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import hippo_git.index.search_plan as plan_module

    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude"
    turns = [("user", f"the deploy of service {n} went fine") for n in range(40)]
    turns += [("user", "the rollback script ran"), ("user", "the deploy rollback script ran twice")]
    write_jsonl(folder / "s.jsonl", claude_lines("s", str(repo), turns))
    cfg = config(repo, {"claude-code": [folder]})
    ingest(cfg)
    conn = connect(cfg.index_path, readonly=True)
    monkeypatch.setattr(plan_module, "MATCH_BUDGET", 10)
    rare, common = plan_module.split_common(conn, ["deploy", "rollback"])
    assert rare == ["rollback"] and [w for w, _ in common] == ["deploy"] and common[0][1] > 0
    hits = [h for h in search(conn, "deploy rollback") if not h.near]
    # Only the rare word was matched by FTS5, yet the turn with both words comes first.
    assert [h.seq for h in hits] == [41, 40]
    monkeypatch.setattr(plan_module, "MATCH_BUDGET", 1000)
    assert plan_module.split_common(conn, ["deploy", "rollback"]) == (["deploy", "rollback"], [])
    conn.close()


def test_queries_of_only_common_words_rank_a_bounded_set(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every word over the budget: the turns holding all of them when they fit it, else the most
    recent turns holding any (BM25 over millions of matches would take seconds)."""
    import hippo_git.index.search_plan as plan_module

    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude"
    turns = [("user", f"deploy step {n}") for n in range(20)]
    turns += [("user", f"rollback step {n}") for n in range(20)]
    turns += [("user", "deploy then rollback"), ("user", "deploy, rollback, deploy again")]
    write_jsonl(folder / "s.jsonl", claude_lines("s", str(repo), turns))
    cfg = config(repo, {"claude-code": [folder]})
    ingest(cfg)
    conn = connect(cfg.index_path, readonly=True)
    monkeypatch.setattr(plan_module, "MATCH_BUDGET", 10)
    monkeypatch.setattr(plan_module, "RECENT", 10)
    plan = plan_module.plan_words(conn, ["deploy", "rollback"])
    assert plan.expression == '"deploy" AND "rollback"' and plan.rowids is None and not plan.common
    hits = [h for h in search(conn, "deploy rollback") if not h.near]
    assert [h.seq for h in hits] == [41, 40]
    # One word in 22 turns: only the 10 most recent of them are ranked (and their neighbours
    # 10 and 11 enter through them); the older ones are not.
    plan = plan_module.plan_words(conn, ["deploy"])
    assert plan.rowids is not None and plan.rowids[0] == 13  # turn ids start at 1
    seqs = {h.seq for h in search(conn, "deploy", limit=50) if not h.near}
    assert seqs == {*range(10, 20), 40, 41}
    monkeypatch.setattr(plan_module, "MATCH_BUDGET", 1000)
    assert plan_module.plan_words(conn, ["deploy"]).rowids is None
    assert len([h for h in search(conn, "deploy", limit=50) if not h.near]) == 22
    conn.close()


def test_a_folder_filter_counts_words_in_its_own_turns(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A word common on the machine but rare in this repository's sessions is ranked in full there:
    the filter's band of turn ids bounds the counting and the ranking."""
    import hippo_git.index.search_plan as plan_module

    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude"
    mine = [("user", "deploy the canary"), ("assistant", "deploy done"), ("user", "deploy rollback")]
    write_jsonl(folder / "a" / "mine.jsonl", claude_lines("mine", str(repo), mine))
    cfg = config(repo, {"claude-code": [folder]})
    ingest(cfg)
    others = [("user", f"deploy service {n}") for n in range(30)]
    write_jsonl(folder / "b" / "other.jsonl", claude_lines("other", "/elsewhere", others, day="2026-03-01"))
    ingest(cfg)
    monkeypatch.setattr(plan_module, "MATCH_BUDGET", 10)
    monkeypatch.setattr(plan_module, "RECENT", 10)
    conn = connect(cfg.index_path, readonly=True)
    band = plan_module.filter_band(conn, None, [str(repo)], None)
    assert band == (1, 3)
    assert plan_module.plan_words(conn, ["deploy"], band).rowids == band  # 3 matches there: no window
    assert {h.seq for h in search(conn, "deploy", cwds=[str(repo)]) if not h.near} == {0, 1, 2}
    # The whole machine: 33 matches, over the budget, so only the 10 most recent are ranked.
    assert {h.session_id for h in search(conn, "deploy", limit=50)} == {"other"}
    monkeypatch.setattr(plan_module, "BAND_TURNS", 2)  # a filter keeping more turns goes without
    assert plan_module.filter_band(conn, None, [str(repo)], None) is None
    conn.close()
