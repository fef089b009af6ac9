"""The [semantic] extra: the real model loaded from the package that ships it, vectors reused by
content hash, reciprocal-rank fusion, and search that works (and says so) without embeddings.

Without the extra these tests skip with a reason; `.ci/run` installs it and sets
HIPPO_REQUIRE_SEMANTIC=1, which turns that skip into a failure.
"""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import Config
from hippo_git.errors import HippoError
from hippo_git.index.db import connect, migrate
from hippo_git.index.embed import embed_index, ranking_for, refresh_after_ingest
from hippo_git.index.embed_model import DEFAULT_MODEL, Encoder, available, load_encoder, model_folder
from hippo_git.index.embed_store import (
    MIGRATIONS,
    PAIR_CHARS,
    content_hash,
    embed_pending,
    open_store,
    store_path,
    views,
)
from hippo_git.index.fusion import HEAD, blend, fuse, load_vectors, reranker
from hippo_git.index.search import search
from hippo_git.signals.refresh import ingest
from tests.conftest import make_repo
from tests.index_support import claude_lines, config, write_jsonl

# Read at import: the autouse fixture clears HIPPO_* from each test's environment.
REQUIRE = os.environ.get("HIPPO_REQUIRE_SEMANTIC", "") == "1"


@pytest.fixture(scope="session")
def encoder(tmp_path_factory: pytest.TempPathFactory) -> Encoder:
    """The shipped all-MiniLM-L6-v2, loaded once for the session by the real loading code."""
    if not available():
        why = "needs the [semantic] extra (pip install 'hippo-git[semantic]')"
        if REQUIRE:
            pytest.fail(f"{why}; HIPPO_REQUIRE_SEMANTIC=1", pytrace=False)
        pytest.skip(why)
    return load_encoder(DEFAULT_MODEL, tmp_path_factory.mktemp("home"))


def test_the_shipped_model_gives_real_sentence_embeddings(encoder: Encoder) -> None:
    import numpy as np

    texts = [
        "How do I bake a loaf of bread?",
        "Mix flour, water and yeast, knead the dough, then bake it in the oven.",
        "The rebase failed because the receipts ref moved.",
    ]
    vectors = encoder.encode(texts)
    assert vectors.shape == (3, 384) and vectors.dtype == np.float32
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert vectors[0] @ vectors[1] > vectors[0] @ vectors[2] + 0.2  # meaning, not shared words
    # Order and batch size do not change a text's vector (batches are sorted by length, padded).
    again = encoder.encode(texts[::-1], batch=2)[::-1]
    assert np.allclose(vectors, again, atol=1e-5)


def test_the_forward_pass_matches_sentence_transformers(encoder: Encoder) -> None:
    """Our own BERT forward against the reference library's output for the same shipped model."""
    import numpy as np

    st = pytest.importorskip("sentence_transformers")
    reference = st.SentenceTransformer(str(model_folder(DEFAULT_MODEL, Path("/nonexistent"))), device="cpu")
    texts = ["short", "A longer turn: the flaky billing test fails on Mondays because of the time zone."]
    expected = reference.encode(texts, normalize_embeddings=True)
    assert np.allclose(encoder.encode(texts), expected, atol=1e-4)


def test_model_errors_are_one_line_hippo_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    if not available():
        pytest.skip("needs the [semantic] extra")
    with pytest.raises(HippoError, match="could not be loaded or downloaded"):
        load_encoder("no-such-model-here", tmp_path)
    folder = tmp_path / "gpt"
    folder.mkdir()
    (folder / "config.json").write_text(json.dumps({"model_type": "gpt2"}))
    with pytest.raises(HippoError, match="only BERT models"):
        load_encoder(str(folder), tmp_path)
    with pytest.raises(HippoError, match='"off"'):
        embed_index(tmp_path / "index.sqlite", tmp_path, "off")


def test_fusion_is_weighted_reciprocal_rank() -> None:
    # k = 60: 3 is in both lists (1/63 + 0.5/61) and passes 1 (1/61), which passes 2 (1/62);
    # 4, only second in the vector list, comes last (0.5/62).
    assert [t for t, _ in fuse([1, 2, 3], [3, 4], weight=0.5, k=60)] == [3, 1, 2, 4]
    # At weight 0 the vector list cannot reorder the lexical one.
    assert [t for t, _ in fuse([1, 2, 3], [3, 4], weight=0.0, k=60)][:3] == [1, 2, 3]
    # A large weight lets the vector list lead.
    assert [t for t, _ in fuse([1, 2], [2, 1], weight=3.0, k=60)] == [2, 1]


def test_the_head_is_score_fused_and_the_rest_rank_fused() -> None:
    """A lexical top hit far ahead of the others keeps the lead that rank fusion gives to a turn
    both rankings hold; below the head, the order is rank fusion's, and scores never rise."""
    lexical = [(1, 20.0), (2, 5.0), (3, 4.9), (4, 4.8), (5, 4.7), (6, 4.6), (7, 4.5)]
    semantic = [2, 3, 4, 8, 1]
    similarity = {2: 1.0, 3: 0.9, 4: 0.8, 8: 0.7, 1: 0.5}
    by_rank = [t for t, _ in fuse([t for t, _ in lexical], semantic, weight=0.6)]
    assert by_rank[0] == 2  # 1/7 + 0.6/6 against 1/6 + 0.6/10
    # z-scores (with a 0 for the turns without the words): turn 1 is 2.5 deviations above the
    # lexical mean, 2 just below it.
    blended = blend(lexical, semantic, similarity, weight=0.6, head=1)
    assert [t for t, _ in blended] == [1, *(t for t in by_rank if t != 1)]
    scores = [score for _, score in blended]
    assert scores == sorted(scores, reverse=True)
    # No head: rank fusion alone; a head as deep as the list: score fusion alone, where a turn
    # only the vectors found (8) counts as the lowest lexical candidate.
    assert blend(lexical, semantic, similarity, head=0) == fuse([t for t, _ in lexical], semantic)
    whole = [t for t, _ in blend(lexical, semantic, similarity, weight=0.6, head=100)]
    assert whole[:2] == [1, 2] and whole.index(8) > whole.index(4)
    assert len(whole) == len(by_rank) and HEAD >= 1
    # A single lexical candidate still counts: it stands above the 0 of the turns without the words.
    assert [t for t, _ in blend([(5, 2.0)], [6], {6: 1.5, 5: -0.5}, head=5)] == [5, 6]
    # Equal scores: rank fusion's order stands.
    assert [t for t, _ in blend([(9, 1.0), (3, 1.0)], [], {}, head=2)] == [9, 3]


def _index(path: Path, sessions: dict[str, list[str]]) -> sqlite3.Connection:
    conn = connect(path)
    conn.execute("BEGIN IMMEDIATE")
    for sid, texts in sessions.items():
        conn.execute("INSERT INTO sessions(id, harness, cwd) VALUES (?, 'claude-code', '/w')", (sid,))
        conn.executemany(
            "INSERT INTO turns(session_id, seq, kind, text) VALUES (?, ?, 'prompt', ?)",
            [(sid, seq, text) for seq, text in enumerate(texts)],
        )
    conn.execute("INSERT INTO turns_fts(rowid, text) SELECT id, text FROM turns")
    conn.execute("COMMIT")
    return conn


def test_vectors_are_reused_by_content_hash(encoder: Encoder, tmp_path: Path) -> None:
    index = tmp_path / "index.sqlite"
    # Sessions of one turn: each of its views is its text alone.
    conn = _index(index, {"s1": ["alpha turn"], "s2": ["beta turn"], "s3": ["alpha turn"]})
    store = open_store(store_path(index))
    first = embed_pending(conn, store, encoder)
    assert (first.turns, first.embedded, first.reused, first.texts) == (3, 3, 0, 2)  # the same text once
    again = embed_pending(conn, store, encoder)
    assert (again.embedded, again.reused, again.texts) == (0, 3, 0)

    conn.execute("UPDATE turns SET text = 'gamma turn' WHERE session_id = 's2'")
    changed = embed_pending(conn, store, encoder)
    assert (changed.embedded, changed.texts) == (1, 1)

    # A rebuilt index numbers its turns anew: the unchanged texts keep their vectors.
    conn.execute("DELETE FROM turns")
    conn.executemany(
        "INSERT INTO turns(id, session_id, seq, kind, text) VALUES (?, ?, 0, 'prompt', ?)",
        [(100, "s1", "gamma turn"), (101, "s2", "alpha turn")],
    )
    rebuilt = embed_pending(conn, store, encoder)
    assert (rebuilt.turns, rebuilt.embedded, rebuilt.texts) == (2, 0, 0)
    vectors = load_vectors(store_path(index), encoder.name)
    assert vectors is not None and sorted(vectors.ids.tolist()) == [100, 101]
    assert store.execute("SELECT count(*) FROM vectors").fetchone()[0] == 3  # alpha, beta, gamma
    store.close()
    conn.close()


def test_a_turn_is_embedded_with_its_neighbours(encoder: Encoder, tmp_path: Path) -> None:
    """A reply is found by what its question asked: its vector is the mean of its text alone,
    with the turn before and with the turn after (`embed_store.VIEWS`)."""
    import numpy as np

    index = tmp_path / "index.sqlite"
    question = "Which city did you move to for the new job?"
    reply = "Lisbon, last spring. The light there is wonderful."
    conn = _index(index, {"s1": [question, reply]})
    store = open_store(store_path(index))
    summary = embed_pending(conn, store, encoder)
    # Views: the question alone (also its view with no turn before), question + reply (the
    # question's view with the turn after and the reply's with the turn before), the reply alone.
    assert (summary.embedded, summary.texts) == (2, 3)
    assert views(reply, question, None) == (reply, f"{question}\n{reply}", reply)
    vectors = load_vectors(store_path(index), encoder.name)
    assert vectors is not None
    alone, joined = encoder.encode([reply, f"{question}\n{reply}"])
    row = vectors.matrix[vectors.ids.tolist().index(2)]
    assert np.allclose(row, (2 * alone + joined) / 3, atol=1e-2)  # float16 in the store
    # The reply's own text does not say it was a move for a job; with its question it does.
    query = encoder.encode(["relocating to another city for work"])[0]
    assert row @ query > alone @ query

    # A session that grows: two new texts, the reply with the new turn (the reply's view with the
    # turn after, and the new turn's with the turn before) and the new turn alone.
    conn.execute(
        "INSERT INTO turns(session_id, seq, kind, text) VALUES ('s1', 2, 'prompt', 'Do you miss home?')"
    )
    grown = embed_pending(conn, store, encoder)
    assert (grown.embedded, grown.reused, grown.texts) == (2, 1, 2)
    # Each turn of a pair is cut to PAIR_CHARS: a long tool output leaves room for the turn.
    long = "x" * 5000
    assert views("short turn", long, long)[1] == "x" * PAIR_CHARS + "\nshort turn"
    # A turn's view with the turn after is the next turn's view with the turn before.
    assert views(long, None, "short turn")[2] == views("short turn", long, None)[1]
    store.close()
    conn.close()


def test_a_store_of_the_first_design_keeps_its_text_vectors(encoder: Encoder, tmp_path: Path) -> None:
    """Migration 0002 turns the old one-hash-a-turn table into view 0 of each turn."""
    index = tmp_path / "index.sqlite"
    conn = _index(index, {"s1": ["alpha turn"]})
    path = store_path(index)
    old = sqlite3.connect(path, isolation_level=None)
    migrate(old, MIGRATIONS[:1])
    vec = encoder.encode(["alpha turn"])[0].astype("float16").tobytes()
    old.execute("INSERT INTO vectors VALUES (?, ?, ?)", (encoder.name, content_hash("alpha turn"), vec))
    old.execute("INSERT INTO turn_hashes VALUES (1, ?)", (content_hash("alpha turn"),))
    old.close()
    # Read-only search before the migration: lexical only, not a crash.
    assert load_vectors(path, encoder.name) is None
    store = open_store(path)
    assert (embed_pending(conn, store, encoder).texts) == 0
    store.close()
    conn.close()


@pytest.fixture
def recipes(tmp_path: Path) -> tuple[Path, Config, Path]:
    """One turn holds the query's word in another sense; another means it without the word."""
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude"
    sessions = {
        "crumbs01": "There are bread crumbs stuck in my keyboard again",
        "dough001": "Mix flour, water, yeast and salt, knead the dough, then bake the loaf for forty minutes",
        "deploy01": "The deploy script pushes the container image to the registry",
    }
    for n, (sid, text) in enumerate(sessions.items()):
        write_jsonl(
            folder / f"{sid}.jsonl", claude_lines(sid, str(repo), [("user", text)], day=f"2026-01-0{n + 1}")
        )
    cfg = config(repo, {"claude-code": [folder]})
    ingest(cfg)
    return repo, cfg, folder


def test_search_is_lexical_without_embeddings_and_fuses_with_them(
    encoder: Encoder, recipes: tuple[Path, Config, Path]
) -> None:
    _, cfg, _ = recipes
    conn = connect(cfg.index_path, readonly=True)
    query = "bread recipe"
    lexical = ranking_for(conn, cfg.index_path, cfg.home, DEFAULT_MODEL, query)
    assert lexical.rerank is None and "lexical only" in lexical.note and "git hippo embed" in lexical.note
    off = ranking_for(conn, cfg.index_path, cfg.home, "off", query)
    assert off.rerank is None and '"off"' in off.note
    plain = [h.session_id for h in search(conn, query)]
    assert plain == ["crumbs01"]  # the only turn with the word

    assert refresh_after_ingest(cfg.index_path, cfg.home, DEFAULT_MODEL) is None  # not opted in
    summary = embed_index(cfg.index_path, cfg.home, DEFAULT_MODEL)
    assert summary.embedded == 3 and store_path(cfg.index_path).exists()
    hybrid = ranking_for(conn, cfg.index_path, cfg.home, DEFAULT_MODEL, query)
    assert hybrid.mode == "hybrid" and hybrid.rerank is not None
    fused = [h.session_id for h in search(conn, query, rerank=hybrid.rerank)]
    # The word's turn is first in both rankings; the recipe, found by meaning alone, comes next,
    # above the deploy script.
    assert fused[:2] == ["crumbs01", "dough001"]
    # Filters hold for the vector side too: a session filter keeps it to that session.
    vectors = load_vectors(store_path(cfg.index_path), DEFAULT_MODEL)
    assert vectors is not None
    only = reranker(conn, query, encoder, vectors)
    assert {h.session_id for h in search(conn, query, session="deploy01", rerank=only)} == {"deploy01"}
    conn.close()


def test_cli_embed_then_search_reports_its_ranking(
    encoder: Encoder, recipes: tuple[Path, Config, Path], hippo: Any
) -> None:
    repo, _, folder = recipes
    res = hippo(["search", "bread", "recipe", "--json"], cwd=repo)
    assert res.exit_code == 0 and "lexical only" in res.stderr
    assert {h["ranking"] for h in json.loads(res.stdout)} == {"lexical"}

    res = hippo(["embed", "--json"], cwd=repo)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["embedded"] == 3
    res = hippo(["search", "bread", "recipe", "--json"], cwd=repo)
    hits = json.loads(res.stdout)
    assert "lexical only" not in res.stderr and {h["ranking"] for h in hits} == {"hybrid"}
    assert [h["session_id"] for h in hits][:2] == ["crumbs01", "dough001"]

    # Opted in: the next ingest embeds the new turns itself.
    write_jsonl(
        folder / "later001.jsonl",
        claude_lines("later001", str(repo), [("user", "sourdough starter notes")], day="2026-01-09"),
    )
    res = hippo(["ingest", "--json"], cwd=repo)
    assert res.exit_code == 0 and json.loads(res.stdout)["embedding"]["embedded"] == 1


def test_the_vector_ranking_takes_the_time_boost(encoder: Encoder, tmp_path: Path) -> None:
    """A query that names a time lifts the turns of that time in the vector ranking too."""
    from hippo_git.index.timewords import find_time

    index = tmp_path / "index.sqlite"
    texts = {
        "jan": ("2026-01-05T10:00:00", "We adopted a puppy from the animal shelter"),
        "mar": ("2026-03-12T10:00:00", "We brought home a small kitten from a friend"),
        "ops": ("2026-03-13T10:00:00", "The deploy script pushes the container image to the registry"),
        "tax": ("2026-03-14T10:00:00", "Filed the quarterly tax forms and paid the invoice"),
        "git": ("2026-01-06T10:00:00", "Rebased the branch onto main and fixed the merge conflict"),
    }
    conn = connect(index)
    conn.execute("BEGIN IMMEDIATE")
    for sid, (when, text) in texts.items():
        conn.execute(
            "INSERT INTO sessions(id, harness, cwd, started) VALUES (?, 'claude-code', '/w', ?)", (sid, when)
        )
        conn.execute(
            "INSERT INTO turns(session_id, seq, kind, text, ts) VALUES (?, 0, 'prompt', ?, ?)",
            (sid, text, when),
        )
    conn.execute("COMMIT")
    store = open_store(store_path(index))
    embed_pending(conn, store, encoder)
    store.close()
    vectors = load_vectors(store_path(index), encoder.name)
    assert vectors is not None
    sid_of = dict(conn.execute("SELECT id, session_id FROM turns").fetchall())
    rerank = reranker(conn, "our new pet", encoder, vectors)
    plain = [sid_of[t] for t, _ in rerank([], [], [], None)]
    assert plain[0] == "jan"
    span, _ = find_time("in March 2026")
    assert span is not None
    timed = [sid_of[t] for t, _ in rerank([], [], [], span)]
    assert timed[0] == "mar" and set(timed) == set(texts)
    conn.close()
