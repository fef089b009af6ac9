"""Quick memories: remember (work tree + staged, personal store), duplicates, recall ranking,
decay and strengthening, outcomes, stale tier."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.errors import HippoError
from hippo_git.memories import usage as usage_db
from hippo_git.memories.recall import recall, score_memory
from hippo_git.memories.record import make_memory, parse_memory, render
from hippo_git.memories.service import outcome_here, recall_here, remember_text
from tests.conftest import git

T0 = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def test_remember_writes_a_staged_note_and_prints_its_id(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    result = hippo(
        ["remember", "Use uv to install packages, never pip", "--tag", "build", "--verified"], cwd=repo
    )
    assert result.exit_code == 0, result.output
    memory_id = result.stdout.strip()
    path = repo / "notes" / "memories" / f"{memory_id}.md"
    memory = parse_memory(path.read_text(), f"notes/memories/{memory_id}.md")
    assert memory.text == "Use uv to install packages, never pip"
    assert memory.tags == ("build",)
    assert memory.confidence == "verified"
    assert memory.half_life == 7
    assert git(repo, "diff", "--cached", "--name-only") == f"notes/memories/{memory_id}.md"


def test_duplicates_and_near_duplicates_are_reported_not_written(repo: Path) -> None:
    cfg = load_config(repo)
    first = remember_text(cfg, "The integration tests need the docker daemon running first")
    assert first.status == "written"
    same = remember_text(cfg, "the integration tests NEED the docker daemon running first!")
    assert (same.status, same.duplicate_of) == ("duplicate", first.memory.id)
    near = remember_text(cfg, "The integration tests need the docker daemon running first always")
    assert (near.status, near.duplicate_of) == ("near-duplicate", first.memory.id)
    other = remember_text(cfg, "Release notes are written in CHANGES.md")
    assert other.status == "written"
    assert len(list((repo / "notes" / "memories").glob("*.md"))) == 2


def test_bad_input_gets_one_line_errors(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    result = hippo(["remember", "   "], cwd=repo)
    assert result.exit_code == 1
    assert "the memory text is empty" in result.output
    assert "Traceback" not in result.output
    result = hippo(["outcome", "--good", "m-0000000000"], cwd=repo)
    assert result.exit_code == 1 and "no memory with id 'm-0000000000'" in result.output
    result = hippo(["recall", " "], cwd=repo)
    assert result.exit_code == 1 and "recall query is empty" in result.output


def test_body_is_redacted(repo: Path) -> None:
    key = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"
    result = remember_text(load_config(repo), f"the CI token is {key} for the bot")
    text = (repo / result.path).read_text()
    assert key not in text
    assert "[redacted:" in text


def test_global_store_is_a_git_repo_recalled_in_every_workspace(tmp_path: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import make_repo

    a = make_repo(tmp_path / "a")
    b = make_repo(tmp_path / "b")
    result = hippo(["remember", "Prefer tabs over spaces in Makefiles", "--global"], cwd=a)
    assert result.exit_code == 0, result.output
    home = load_config(a).home
    assert git(home / "global", "log", "--format=%s") == f"hippo: remember {result.stdout.strip()}"
    assert not (a / "notes").exists()
    found = json.loads(hippo(["recall", "makefiles tabs", "--json"], cwd=b).stdout)
    assert [(f["id"], f["store"]) for f in found] == [(result.stdout.strip(), "global")]


def test_recall_ranks_memories_and_notes_and_records_usage(repo: Path) -> None:
    cfg = load_config(repo)
    (repo / "notes").mkdir()
    (repo / "notes" / "deploy.md").write_text("# Deploying\n\nDeploy with the release script to staging.\n")
    good = remember_text(cfg, "Deploy to staging before production, always", now=T0)
    git(repo, "commit", "-q", "-m", "memory")
    remember_text(cfg, "The cache folder is .cache/hippo", now=T0)
    items = recall(cfg, cfg.home, "deploy staging", now=T0 + timedelta(hours=1))
    assert {i.id for i in items} == {good.memory.id, "notes/deploy.md"}
    assert {i.kind for i in items} == {"memory", "note"}
    conn = usage_db.connect(cfg.home)
    use = usage_db.get_usage(conn, [good.memory.id])[good.memory.id]
    assert use.recalls == 1 and use.factor == usage_db.RECALL_FACTOR
    assert usage_db.last_recalled(conn) == [good.memory.id]
    conn.close()
    # Shared files never change on recall.
    assert good.path not in git(repo, "status", "--porcelain", "--", "notes/memories")


def test_strength_decays_with_half_life_errors_slower_pinned_never() -> None:
    plain = make_memory("a plain memory about builds", now=T0)
    error = make_memory("a failure memory about builds", error=True, now=T0)
    pinned = make_memory("a pinned memory about builds", pinned=True, now=T0)
    later = T0 + timedelta(days=7)
    fresh = usage_db.Usage()
    _, p, _ = score_memory(plain, 1.0, fresh, later)
    _, e, _ = score_memory(error, 1.0, fresh, later)
    _, n, _ = score_memory(pinned, 1.0, fresh, later)
    assert p["strength"] == pytest.approx(0.5)
    assert e["strength"] == pytest.approx(0.5**0.5)
    assert n["strength"] == 1.0
    # A recall extends the half-life; a good outcome more, a bad one shortens it.
    _, r, _ = score_memory(
        plain, 1.0, usage_db.Usage(factor=2.0, last_recalled="2026-01-02T03:04:05Z"), later
    )
    assert r["strength"] == pytest.approx(0.5**0.5)
    _, _, stale = score_memory(plain, 1.0, fresh, T0 + timedelta(days=31))
    assert stale
    _, _, stale = score_memory(pinned, 1.0, fresh, T0 + timedelta(days=31))
    assert not stale


def test_decayed_memory_ranks_below_a_fresh_one_and_shows_stale(repo: Path) -> None:
    cfg = load_config(repo)
    old = remember_text(cfg, "Run the linter with ruff check", now=T0 - timedelta(days=40))
    new = remember_text(cfg, "Run the formatter with ruff format", now=T0)
    items = recall(cfg, cfg.home, "ruff", now=T0, record=False)
    assert [i.id for i in items] == [new.memory.id, old.memory.id]
    assert [i.tier for i in items] == ["observed", "stale"]


def test_outcome_strengthens_or_weakens_the_last_recalled(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    m = remember_text(cfg, "Migrations live in db/migrations and are numbered").memory
    assert hippo(["outcome", "--good"], cwd=repo).exit_code == 1  # nothing recalled yet
    recall_here("migrations", cfg=cfg)
    result = hippo(["outcome", "--good", "--json"], cwd=repo)
    assert json.loads(result.stdout) == {"outcome": "good", "ids": [m.id]}
    conn = usage_db.connect(cfg.home)
    assert usage_db.get_usage(conn, [m.id])[m.id].factor == usage_db.RECALL_FACTOR * usage_db.GOOD_FACTOR
    outcome_here([m.id[:6]], good=False, cfg=cfg)
    use = usage_db.get_usage(conn, [m.id])[m.id]
    assert (use.good, use.bad) == (1, 1)
    assert use.factor == usage_db.RECALL_FACTOR * usage_db.GOOD_FACTOR * usage_db.BAD_FACTOR
    conn.close()


def test_recall_why_and_budget(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    for n in range(5):
        remember_text(cfg, f"Service {n} talks to the queue over port 50{n}, see docs {'x' * 200}")
    out = json.loads(hippo(["recall", "queue port", "--why", "--json"], cwd=repo).stdout)
    assert len(out) == 5
    assert set(out[0]["why"]) >= {"relevance", "strength", "recency", "confidence"}
    assert out[0]["tier"] == "observed"
    small = json.loads(hippo(["recall", "queue port", "--budget", "80", "--json"], cwd=repo).stdout)
    assert len(small) == 1
    text = hippo(["recall", "queue port", "--why"], cwd=repo).stdout
    assert "[observed]" in text and "why: relevance=" in text


def test_memory_note_round_trips() -> None:
    m = make_memory("Ship on Tuesdays", tags=["release", "Process"], pinned=True, now=T0)
    back = parse_memory(render(m), "notes/memories/x.md")
    assert (back.id, back.text, back.tags, back.pinned, back.created[:19]) == (
        m.id,
        m.text,
        ("release", "process"),
        True,
        "2026-01-02T03:04:05",
    )
    with pytest.raises(HippoError, match="not a usable tag"):
        make_memory("x y z", tags=["bad tag!"])


def test_a_remembered_note_passes_the_pre_commit_check(repo: Path) -> None:
    import subprocess

    from tests.conftest import run_cli

    assert run_cli(["init"], cwd=repo).returncode == 0
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "hippo init")
    memory_id = run_cli(["remember", "Database migrations run with make migrate"], cwd=repo).stdout.strip()
    proc = subprocess.run(["git", "commit", "-m", "remember"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert git(repo, "show", "--name-only", "--format=", "HEAD") == f"notes/memories/{memory_id}.md"
