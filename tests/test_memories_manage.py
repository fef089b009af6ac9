"""forget, inspect, conflicts and resolve: the rejected value never comes back."""

from __future__ import annotations

import json
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.memories.conflicts import contradiction
from hippo_git.memories.service import recall_here, remember_text
from tests.conftest import git


def test_contradictions_by_words() -> None:
    assert contradiction("The API listens on port 8080", "The API listens on port 9090") == (
        "changed value",
        "8080 → 9090",
    )
    kind, _ = contradiction("Never deploy on Fridays", "Deploy on Fridays") or ("", "")
    assert kind == "negation"
    assert contradiction("Use uv for packages", "Release notes go in CHANGES.md") is None
    assert contradiction("The API listens on port 8080", "the api listens on port 8080!") is None


def test_negated_text_is_a_conflict_not_a_near_duplicate(repo: Path) -> None:
    cfg = load_config(repo)
    assert remember_text(cfg, "Never deploy on Fridays to production").status == "written"
    assert remember_text(cfg, "Deploy on Fridays to production").status == "written"


def test_conflicts_listed_and_resolved_through_a_commit(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    old = remember_text(cfg, "The API server listens on port 8080").memory
    new = remember_text(cfg, "The API server listens on port 9090").memory
    remember_text(cfg, "Release notes go in CHANGES.md")
    found = json.loads(hippo(["conflicts", "--json"], cwd=repo).stdout)
    assert len(found) == 1
    assert {m["id"] for m in found[0]["memories"]} == {old.id, new.id}
    cid = found[0]["id"]
    result = hippo(["resolve", cid, "--keep", new.id, "--forget", "--json"], cwd=repo)
    assert result.exit_code == 0, result.output
    done = json.loads(result.stdout)
    assert (done["kept"], done["rejected"], done["forgotten"]) == (new.id, old.id, True)
    assert git(repo, "log", "-1", "--format=%s") == f"hippo: resolve {cid}: keep {new.id}, reject {old.id}"
    assert not (repo / old.path).exists()
    assert "rejected.jsonl" in git(repo, "show", "--stat", "HEAD")
    assert json.loads(hippo(["conflicts", "--json"], cwd=repo).stdout) == []
    # The rejected value cannot come back, even reworded slightly.
    again = remember_text(cfg, "the API server listens on port 8080")
    assert (again.status, again.duplicate_of) == ("rejected", old.id)
    assert [r.id for r in recall_here("API port", cfg=cfg, notes=False)] == [new.id]


def test_resolve_without_forget_keeps_the_file_but_not_the_value(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    old = remember_text(cfg, "Builds use node 18").memory
    new = remember_text(cfg, "Builds use node 20").memory
    assert hippo(["resolve", old.id, "--keep", new.id], cwd=repo).exit_code == 0
    assert (repo / old.path).exists()
    assert [r.id for r in recall_here("builds node", cfg=cfg, notes=False)] == [new.id]
    bad = hippo(["resolve", "c-00000000", "--keep", new.id], cwd=repo)
    assert bad.exit_code == 1 and "no conflict 'c-00000000'" in bad.output


def test_forget_removes_and_stages(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    m = remember_text(cfg, "The staging database is read-only on weekends").memory
    git(repo, "commit", "-q", "-m", "memory")
    result = hippo(["forget", m.id[:7]], cwd=repo)
    assert result.exit_code == 0, result.output
    assert result.stdout.strip() == m.id
    assert git(repo, "status", "--porcelain") == f"D  {m.path}"
    bad = hippo(["forget", "m-ffff"], cwd=repo)
    assert bad.exit_code == 1 and "no memory with id 'm-ffff'" in bad.output


def test_forget_in_the_personal_store_commits_there(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    m = remember_text(None, "Personal: my editor is helix", home=cfg.home).memory
    assert hippo(["forget", m.id], cwd=repo).exit_code == 0
    assert git(cfg.home / "global", "log", "-1", "--format=%s") == f"hippo: forget {m.id}"


def test_inspect_shows_text_history_usage_conflicts(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    a = remember_text(cfg, "CI runs on ubuntu 22.04").memory
    remember_text(cfg, "CI runs on ubuntu 24.04")
    git(repo, "commit", "-q", "-m", "two memories")
    recall_here("ubuntu", cfg=cfg)
    found = json.loads(hippo(["inspect", a.id, "--json"], cwd=repo).stdout)
    assert found["memory"]["text"] == "CI runs on ubuntu 22.04"
    assert [h["subject"] for h in found["history"]] == ["two memories"]
    assert found["usage"]["recalls"] == 1
    assert found["conflicts"][0]["kind"] == "changed value"
    text = hippo(["inspect", a.id], cwd=repo).stdout
    assert "CI runs on ubuntu 22.04" in text and "conflict c-" in text


def test_lint_does_not_call_memories_orphans(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    remember_text(load_config(repo), "Memories stand alone without links")
    (repo / "notes" / "lonely.md").write_text("# Lonely\n\nNo links here.\n")
    out = hippo(["notes", "lint", "--json"], cwd=repo).stdout
    orphans = [i["path"] for i in json.loads(out)["issues"] if i["kind"] == "orphan"]
    assert orphans == ["notes/lonely.md"]


def test_a_memory_contradicting_a_note_is_listed_and_settled_for_the_note(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    (repo / "notes").mkdir()
    (repo / "notes" / "ci.md").write_text("# CI\n\n- The CI runners use python 3.12 for every job.\n")
    git(repo, "add", "notes/ci.md")
    git(repo, "commit", "-q", "-m", "ci note")
    m = remember_text(cfg, "The CI runners use python 3.11 for every job").memory
    [found] = json.loads(hippo(["conflicts", "--json"], cwd=repo).stdout)
    assert [x["id"] for x in found["memories"]] == [m.id, "notes/ci.md"]
    assert found["kind"] == "changed value"
    done = json.loads(
        hippo(["resolve", found["id"], "--keep", "notes/ci.md", "--forget", "--json"], cwd=repo).stdout
    )
    assert (done["kept"], done["rejected"], done["forgotten"], done["edited"]) == (
        "notes/ci.md",
        m.id,
        True,
        None,
    )
    assert not (repo / m.path).exists()
    assert "3.12" in (repo / "notes" / "ci.md").read_text()
    assert remember_text(cfg, "The CI runners use python 3.11 for every job").status == "rejected"
    assert json.loads(hippo(["conflicts", "--json"], cwd=repo).stdout) == []


def test_keeping_a_memory_over_a_note_takes_the_statement_out_through_a_commit(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    (repo / "notes").mkdir()
    note = "# CI\n\n- The CI runners use python 3.12 for every job.\n- Caches live in S3.\n"
    (repo / "notes" / "ci.md").write_text(note)
    git(repo, "add", "notes/ci.md")
    git(repo, "commit", "-q", "-m", "ci note")
    m = remember_text(cfg, "The CI runners use python 3.13 for every job").memory
    git(repo, "commit", "-q", "-m", "memory")
    [found] = json.loads(hippo(["conflicts", "--json"], cwd=repo).stdout)
    (repo / "notes" / "ci.md").write_text(note + "- draft\n")
    dirty = hippo(["resolve", found["id"], "--keep", m.id], cwd=repo)
    assert dirty.exit_code == 1 and "notes/ci.md has uncommitted changes" in dirty.output
    (repo / "notes" / "ci.md").write_text(note)
    result = hippo(["resolve", found["id"], "--keep", m.id, "--json"], cwd=repo)
    assert result.exit_code == 0, result.output
    done = json.loads(result.stdout)
    assert (done["kept"], done["rejected"], done["edited"]) == (m.id, "notes/ci.md", "notes/ci.md")
    # one commit: the note without its statement, and the statement recorded as rejected
    assert git(repo, "show", "--format=%s", "--name-only", "HEAD").split() == [
        "hippo:",
        "resolve",
        f"{found['id']}:",
        "keep",
        m.id + ",",
        "reject",
        "notes/ci.md",
        "notes/ci.md",
        "notes/memories/rejected.jsonl",
    ]
    assert git(repo, "show", "HEAD:notes/ci.md") == "# CI\n\n- Caches live in S3."
    assert git(repo, "status", "--porcelain") == ""
    assert json.loads(hippo(["conflicts", "--json"], cwd=repo).stdout) == []
    assert (repo / m.path).exists()
    # the note's value is rejected for good: neither a memory nor a dream brings it back
    assert remember_text(cfg, "The CI runners use python 3.12 for every job").status == "rejected"
    from hippo_git.memories.remember import rejected_in

    assert rejected_in(repo, "notes", "- The CI runners use python 3.12 for every job.") is not None


def test_a_dream_cannot_bring_back_a_rejected_value(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    from hippo_git.dream.evidence import NoteText, PassInput, TurnRef
    from hippo_git.dream.records import Proposal
    from hippo_git.dream.validate import check

    cfg = load_config(repo)
    old = remember_text(cfg, "The API server listens on port 8080").memory
    new = remember_text(cfg, "The API server listens on port 9090").memory
    assert hippo(["resolve", old.id, "--keep", new.id, "--forget"], cwd=repo).exit_code == 0
    (repo / "notes" / "api.md").write_text("# API\n")
    shown = PassInput(
        notes=(NoteText("notes/api.md", "# API\n", "0" * 40),),
        turns=(TurnRef("s1", 1, "prompt", "the api server listens on port 8080"),),
    )
    proposal = Proposal(
        op="append", path="notes/api.md", new="- The API server listens on port 8080.\n", evidence=("s1#1",)
    )
    reasons = check(proposal, shown, root=repo, notes_dir="notes")
    assert any("a resolved conflict rejected" in r for r in reasons)
    fine = proposal.model_copy(update={"new": "- The API server listens on port 9090.\n"})
    assert check(fine, shown, root=repo, notes_dir="notes") == []


def test_one_memorys_conflicts_are_what_the_full_scan_finds_for_it(repo: Path) -> None:
    """`inspect` looks only from the one memory (the full scan costs a search per memory), and
    must still find each of its conflicts, from either side, among unrelated memories."""
    from hippo_git.memories.conflicts import conflicts_of, find_conflicts
    from hippo_git.memories.store import open_index, workspace_store

    cfg = load_config(repo)
    for n in range(12):
        remember_text(cfg, f"The worker pool for queue {n} runs batch jobs nightly")
    old = remember_text(cfg, "The staging API listens on port 8080").memory
    new = remember_text(cfg, "The staging API listens on port 9090").memory
    never = remember_text(cfg, "Never deploy the staging API on Fridays").memory
    remember_text(cfg, "Deploy the staging API on Fridays")
    git(repo, "commit", "-q", "-m", "memories")
    store = workspace_store(cfg)
    conn = open_index(store)
    try:
        everything = find_conflicts(conn, store)
        for memory in (old, new, never):
            mine = [c.id for c in everything if memory.id in (c.a.id, c.b.id)]
            assert mine, memory.text
            assert [c.id for c in conflicts_of(conn, store, memory.id)] == mine
    finally:
        conn.close()


def test_the_conflict_prefilter_never_drops_a_contradiction() -> None:
    """`find_conflicts` compares only pairs `_may_contradict` lets through: every pair that
    `contradiction` calls a conflict must pass it (random texts over a small vocabulary, so
    negations, changed values and near-duplicates all occur)."""
    import random

    from hippo_git.memories.conflicts import _core, _may_contradict

    rng = random.Random(5)
    vocab = ["deploy", "api", "port", "8080", "9090", "staging", "ci", "ubuntu", "22.04", "24.04", "runs"]
    extra = ["never", "not", "the", "on", "use", "cache", "friday"]
    texts = [" ".join(rng.choices(vocab + extra, k=rng.randint(2, 9))) for _ in range(400)]
    checked = 0
    for a in texts[:200]:
        for b in texts[200:]:
            if contradiction(a, b) is not None:
                checked += 1
                ca, cb = _core(a), _core(b)
                assert _may_contradict(len(ca), len(cb), len(ca & cb)), (a, b)
                assert (len(ca) + 1) // 2 <= len(cb) <= max(2 * len(ca), len(ca) + 2), (
                    a,
                    b,
                )  # the size buckets
    assert checked > 20  # the sample holds enough contradictions to mean something
