"""Sleep: three or more near-duplicates merged into one, decayed never-recalled memories retired,
all through reviewed, receipted proposals."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.dream.memory_sleep import plan_sleep, sleep
from hippo_git.dream.runner import InProcessModel
from hippo_git.memories.service import recall_here, remember_text
from tests.conftest import git

NOW = datetime(2026, 3, 1, tzinfo=UTC)


def _confirm() -> InProcessModel:
    reply = json.dumps({"verdict": "confirm", "reason": "ok"})
    return InProcessModel(argv=("test-reviewer",), answer=lambda prompt: reply)


def _seed(repo: Path, now: datetime = NOW) -> dict[str, str]:
    cfg = load_config(repo)
    fresh = now - timedelta(days=1)
    ids = {
        "a": remember_text(
            cfg, "Run the unit tests with pytest -q before pushing", tags=["tests"], now=fresh
        ).memory.id,
        "b": remember_text(
            cfg, "Run the unit tests with pytest -q before every push", now=fresh + timedelta(hours=1)
        ).memory.id,
        "c": remember_text(
            cfg,
            "Run all unit tests with pytest -q before pushing to origin",
            tags=["ci"],
            now=fresh + timedelta(hours=2),
        ).memory.id,
        "old": remember_text(
            cfg, "The old VPN config lives in ops/vpn.conf", now=now - timedelta(days=60)
        ).memory.id,
        "pinned": remember_text(
            cfg, "Security contact is the platform team", pin=True, now=now - timedelta(days=60)
        ).memory.id,
        "used": remember_text(
            cfg, "Grafana dashboards are in ops/dashboards", now=now - timedelta(days=60)
        ).memory.id,
    }
    recall_here("grafana dashboards", cfg=cfg, notes=False)
    git(repo, "commit", "-q", "-m", "memories")
    return ids


def test_plan_merges_near_duplicates_and_retires_decayed(repo: Path) -> None:
    ids = _seed(repo)
    plan = plan_sleep(load_config(repo), NOW)
    [(keeper, others, merged)] = plan.merges
    assert keeper.id == ids["a"] and {o.id for o in others} == {ids["b"], ids["c"]}
    assert merged.text == "Run all unit tests with pytest -q before pushing to origin"
    assert set(merged.tags) == {"tests", "ci"}
    assert [m.id for m in plan.retire] == [ids["old"]]  # not the pinned one, nor the recalled one


def test_sleep_proposes_reviews_and_applies(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    ids = _seed(repo)
    dry = json.loads(hippo(["sleep", "--dry-run", "--json"], cwd=repo).stdout)
    assert dry["proposals"] == [] and len(dry["merges"]) == 1
    plan, done = sleep(load_config(repo), model=_confirm(), now=NOW)
    assert len(done) == 4 and all(d.verdict == "confirm" and d.applied for d in done)
    for key in ("b", "c", "old"):
        assert "forgotten: true" in (repo / f"notes/memories/{ids[key]}.md").read_text()
    kept = (repo / f"notes/memories/{ids['a']}.md").read_text()
    assert "before pushing to origin" in kept and "tags: [tests, ci]" in kept
    subjects = git(repo, "log", "--format=%s", "-4", "main").splitlines()
    assert all(
        s.startswith("hippo: replace notes/memories/") and s.endswith("(core/memories)") for s in subjects
    )
    receipts = git(repo, "notes", "--ref=refs/notes/hippo/receipts", "list").splitlines()
    assert len(receipts) == 4
    assert [r.id for r in recall_here("unit tests pytest", cfg=load_config(repo), notes=False)] == [ids["a"]]


def test_dream_runs_sleep_with_the_built_in_reviewer(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    """The normal flow: `git hippo dream` runs the core pack's sleep pass; with no model configured
    the built-in reviewer judges each change, receipts it, and fast-forward applies it."""
    assert hippo(["init", "--no-hooks"], cwd=repo).exit_code == 0
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "set up hippo")
    ids = _seed(repo, datetime.now(UTC))  # a dream runs at the real time
    result = hippo(["dream", "--json"], cwd=repo)
    assert result.exit_code == 0, result.output
    slept = json.loads(result.stdout)["sleep"]
    assert sorted(d["id"] for d in slept) == sorted(ids[k] for k in ("a", "b", "c", "old"))
    assert all(d["verdict"] == "confirm" and d["applied"] for d in slept)
    for key in ("b", "c", "old"):
        assert "forgotten: true" in git(repo, "show", f"main:notes/memories/{ids[key]}.md")
    for key in ("pinned", "used"):
        assert "forgotten" not in git(repo, "show", f"main:notes/memories/{ids[key]}.md")
    receipts = [
        json.loads(git(repo, "notes", "--ref=refs/notes/hippo/receipts", "show", d["commit"])) for d in slept
    ]
    assert {(r["verdict"], r["reviewer"]["heuristic"]) for r in receipts} == {("confirm", True)}
    # nothing left to tidy, and nothing was deleted: git keeps every memory's history
    assert json.loads(hippo(["dream", "--json"], cwd=repo).stdout)["sleep"] == []
    assert git(repo, "log", "--format=%s", "main", "--", f"notes/memories/{ids['old']}.md").count("\n") == 1


def test_sleep_does_not_propose_a_waiting_change_again(repo: Path) -> None:
    """In pull-request mode a confirmed change waits for `git hippo apply`: the next sleep leaves
    those memories alone instead of proposing the same change every night."""
    ids = _seed(repo)
    (repo / ".hippo").mkdir(exist_ok=True)
    (repo / ".hippo" / "hippo.toml").write_text('[dream]\napply = "pull-request"\n')
    git(repo, "add", ".hippo/hippo.toml")
    git(repo, "commit", "-q", "-m", "pull requests")
    cfg = load_config(repo)
    plan, done = sleep(cfg, now=NOW)
    assert len(done) == 4 and all(d.verdict == "confirm" and not d.applied for d in done)
    again = plan_sleep(cfg, NOW)
    assert (again.merges, again.retire) == ([], [])
    assert "forgotten" not in (repo / f"notes/memories/{ids['old']}.md").read_text()
