"""Imported memories keep their origin, place and time; `recall` ranks a memory with its
neighbours of the same origin and prefers memories from the time a query names."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.memories.imports import read_source
from hippo_git.memories.recall import recall
from hippo_git.memories.record import make_memory, parse_memory, parse_time
from hippo_git.memories.remember import write_memory
from hippo_git.memories.store import workspace_store
from tests.conftest import corpus

NOW = datetime(2024, 1, 10, tzinfo=UTC)
TURNS = [
    {
        "conversation": "chat-1",
        "speaker": "Ann",
        "text": "How was the weekend?",
        "time": "2023-05-08T13:56:00Z",
    },
    {
        "conversation": "chat-1",
        "speaker": "Bob",
        "text": "We went hiking at the lake.",
        "time": "2023-05-08T13:57:00Z",
    },
    {
        "conversation": "chat-2",
        "speaker": "Ann",
        "text": "The pottery class starts soon.",
        "time": 1684000000,
    },
]


def test_conversation_import_keeps_origin_seq_and_created(tmp_path: Path, repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    source = repo / "chat.jsonl"
    source.write_text("\n".join(json.dumps(t) for t in TURNS) + "\n")
    kind, items = read_source(source)
    assert kind == "conversation"
    assert [(i.text, i.origin, i.seq, i.created) for i in items] == [
        ("Ann: How was the weekend?", "chat-1", 1, "2023-05-08T13:56:00Z"),
        ("Bob: We went hiking at the lake.", "chat-1", 2, "2023-05-08T13:57:00Z"),
        ("Ann: The pottery class starts soon.", "chat-2", 1, "2023-05-13T17:46:40Z"),
    ]
    result = hippo(["import", "chat.jsonl", "--json"], cwd=repo)
    assert result.exit_code == 0, result.output
    done = json.loads(result.stdout)["memories"]
    assert all(m["applied"] for m in done), done
    kept = {
        m.seq: m
        for m in (parse_memory(p.read_text(), p.name) for p in (repo / "notes" / "memories").glob("m-*.md"))
        if m.origin == "chat-1"
    }
    assert kept[2].text == "Bob: We went hiking at the lake." and parse_time(kept[2].created) == datetime(
        2023, 5, 8, 13, 57, tzinfo=UTC
    )
    assert kept[2].source == "import:conversation" and set(kept) == {1, 2}


def test_markdown_and_json_imports_are_numbered_in_their_file(tmp_path: Path) -> None:
    (tmp_path / "notes.md").write_text("- first rule of the house\n- second rule of the house\n")
    _, items = read_source(tmp_path / "notes.md")
    assert [(i.origin, i.seq, i.created) for i in items] == [("notes.md", 1, ""), ("notes.md", 2, "")]
    (tmp_path / "bad.jsonl").write_text(json.dumps({"text": "a turn of talk", "time": "last tuesday"}))
    try:
        read_source(tmp_path / "bad.jsonl")
    except Exception as exc:  # noqa: BLE001 - the one-line error is what is checked
        assert "bad.jsonl: entry 1 has a time that is not ISO 8601" in str(exc)
    else:
        raise AssertionError("a bad time was accepted")


def _put(repo: Path, text: str, when: datetime, origin: str = "", seq: int = 0) -> str:
    memory = make_memory(text, now=when, origin=origin, seq=seq)
    write_memory(workspace_store(load_config(repo)), memory)
    return memory.id


def test_neighbour_smoothing_lifts_the_memory_next_to_the_match(repo: Path) -> None:
    when = datetime(2023, 6, 1, tzinfo=UTC)
    _put(repo, "Ann: did you ever adopt the puppy from the shelter?", when, "talk", 1)
    answer = _put(repo, "Bob: yes, we named her Biscuit last spring", when, "talk", 2)
    far = _put(repo, "Bob: she sleeps all day now", when, "talk", 3)
    _put(repo, "Cat: the shelter on Elm street closes early", when, "other", 7)
    items = recall(load_config(repo), repo, "adopt puppy shelter", limit=10, record=False, now=NOW)
    ids = [i.id for i in items]
    # Neither holds a word of the query: they rank for their matching neighbour, the nearer first.
    assert answer in ids and far in ids and ids.index(answer) < ids.index(far)
    assert items[ids.index(answer)].parts["own_relevance"] == 0.0


def test_a_time_word_prefers_memories_from_that_time(repo: Path) -> None:
    may = _put(repo, "we planted tomatoes in the garden", datetime(2023, 5, 20, tzinfo=UTC))
    august = _put(repo, "we planted roses in the garden", datetime(2023, 8, 20, tzinfo=UTC))
    cfg = load_config(repo)
    plain = [i.id for i in recall(cfg, repo, "what did we plant in the garden", record=False, now=NOW)]
    assert plain[0] == august  # newer first when nothing names a time
    timed = recall(cfg, repo, "what did we plant in the garden in May 2023", record=False, now=NOW)
    assert [i.id for i in timed][:2] == [may, august] and timed[0].parts["time"] == 2.0


def test_bench_reports_met_or_missed_for_recall_quality() -> None:
    corpus("retrieval", "locomo-dev.json")
    bench = Path(__file__).resolve().parent.parent / "bench" / "memories.py"
    out = subprocess.run(
        [sys.executable, str(bench), "--skip-speed", "--conversations", "1"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    quality = [line.split() for line in out.splitlines() if line.startswith("quality ")]
    assert quality and quality[0][-1] in ("met", "missed"), out
    assert "memories_recall" in out and "search_recall" in out


def test_neighbours_are_looked_up_by_the_origin_seq_index(repo: Path) -> None:
    from hippo_git.memories.store import neighbour_sql, neighbours, open_index

    store = workspace_store(load_config(repo))
    when = datetime(2023, 6, 1, tzinfo=UTC)
    wanted = _put(repo, "the second line of the file", when, "file.md", 2)
    _put(repo, "the fifth line of the file", when, "file.md", 5)
    conn = open_index(store)
    try:
        assert [m.id for m, _ in neighbours(conn, store, {("file.md", 2), ("file.md", 3)})] == [wanted]
        plan = conn.execute(
            "EXPLAIN QUERY PLAN " + neighbour_sql(2), ("file.md", 2, "file.md", 3, "notes/", "notes0")
        ).fetchall()
    finally:
        conn.close()
    assert "SEARCH n USING INDEX notes_origin_seq" in str(plan), plan
