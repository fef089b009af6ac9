"""Agents' memories are proposal commits, reviewed and receipted like dream changes, and
recallable (marked unreviewed) from the proposals branch until they are applied."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.dream.memory_proposals import propose_memories
from hippo_git.dream.runner import InProcessModel
from hippo_git.memories.record import make_memory
from hippo_git.memories.service import recall_here
from tests.conftest import git

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)


def _model(verdict: str) -> InProcessModel:
    reply = json.dumps({"verdict": verdict, "reason": f"test says {verdict}"})
    return InProcessModel(argv=("test-reviewer",), answer=lambda prompt: reply)


def test_unreviewed_memory_is_recallable_from_the_proposals_branch(repo: Path) -> None:
    cfg = load_config(repo)
    memory = make_memory("The flaky test is test_sync_retry; rerun it once", source="agent:mcp")
    [done] = propose_memories(cfg, [memory], review_now=False, now=NOW)
    assert (done.status, done.verdict, done.applied) == ("proposed", None, False)
    assert git(repo, "log", "-1", "--format=%s", "hippo/proposals/memories-20260102") == (
        f"hippo: append notes/memories/{memory.id}.md (core/memories)"
    )
    assert not (repo / "notes").exists()
    [item] = recall_here("flaky test rerun", cfg=cfg)
    assert (item.id, item.store, item.reviewed) == (memory.id, "proposals", False)
    # Proposing the same memory again is reported as a duplicate of the waiting proposal.
    [again] = propose_memories(cfg, [memory], review_now=False, now=NOW)
    assert (again.status, again.duplicate_of) == ("duplicate", memory.id)


def test_confirmed_memory_is_receipted_and_applied(repo: Path) -> None:
    cfg = load_config(repo)
    memory = make_memory("Run make bootstrap before the first build", source="agent:mcp")
    [done] = propose_memories(cfg, [memory], model=_model("confirm"), now=NOW)
    assert (done.verdict, done.applied) == ("confirm", True)
    assert (repo / f"notes/memories/{memory.id}.md").exists()
    assert f"notes/memories/{memory.id}.md" in git(repo, "show", "--stat", "main")
    receipt = json.loads(git(repo, "notes", "--ref=refs/notes/hippo/receipts", "show", done.commit or ""))
    assert (receipt["verdict"], receipt["proposal"] != "") == ("confirm", True)
    [item] = recall_here("bootstrap build", cfg=cfg, notes=False)
    assert (item.store, item.reviewed) == ("workspace", True)


def test_rejected_memory_is_not_recalled(repo: Path) -> None:
    cfg = load_config(repo)
    memory = make_memory("Delete the lock file whenever a build hangs", source="agent:mcp")
    [done] = propose_memories(cfg, [memory], model=_model("reject"), now=NOW)
    assert (done.verdict, done.applied) == ("reject", False)
    assert recall_here("lock file build hangs", cfg=cfg) == []


def test_kept_memories_are_not_proposed_twice(repo: Path) -> None:
    from hippo_git.memories.service import remember_text

    cfg = load_config(repo)
    kept = remember_text(cfg, "Docs are built with mkdocs").memory
    [done] = propose_memories(cfg, [make_memory("docs are built with mkdocs", source="import:text")], now=NOW)
    assert (done.status, done.duplicate_of) == ("duplicate", kept.id)


def test_mcp_memory_tools(repo: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import subprocess
    import sys

    from hippo_git.agents.mcp_memories import MemoryTools
    from hippo_git.errors import HippoError

    tools = MemoryTools(repo)
    said = tools.remember("The nightly job needs REDIS_URL set", tags=["ops"])
    # The built-in model reviews it by its fixed checks; fast-forward applies it to main.
    assert "(confirmed and applied)" in said
    memory_id = said.split()[2]
    assert f"notes/memories/{memory_id}.md" in git(repo, "show", "--stat", "--format=", "main")
    [receipt] = [
        json.loads(line)
        for line in git(repo, "notes", "--ref=refs/notes/hippo/receipts", "list").splitlines()
        for line in [git(repo, "notes", "--ref=refs/notes/hippo/receipts", "show", line.split()[1])]
    ]
    assert (receipt["verdict"], receipt["reviewer"]["heuristic"]) == ("confirm", True)
    assert receipt["reviewer"]["persona"] == "core/memory-reviewer"
    out = tools.recall("nightly job redis")
    assert memory_id in out and "unreviewed" not in out
    assert "Strengthened 1 memories" in tools.outcome(True)
    assert tools.remember("the nightly job needs REDIS_URL set").startswith("Not remembered")
    # forget is a reviewed proposal too: the memory becomes a tombstone on main
    assert "(confirmed and applied)" in tools.forget(memory_id)
    assert "forgotten: true" in git(repo, "show", f"main:notes/memories/{memory_id}.md")
    assert "Nothing recalled" in tools.recall("nightly job redis")
    import pytest

    with pytest.raises(HippoError):
        tools.forget("m-0000000000")
    script = (
        "import sys; from pathlib import Path; from hippo_git.agents.mcp_memories import MemoryTools\n"
        f"t = MemoryTools(Path({str(repo)!r})); t.recall('nightly'); t.remember('Builds need 8 GB of RAM')\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] == 'git'))\n"
    )
    proc = subprocess.run(
        [sys.executable, "-c", script], cwd=repo, capture_output=True, text=True, timeout=60
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "[]"


def test_agent_forget_is_a_reviewed_proposal(repo: Path) -> None:
    from hippo_git.dream.memory_proposals import propose_forget
    from hippo_git.memories.service import remember_text

    cfg = load_config(repo)
    kept = remember_text(cfg, "Use the staging bucket for uploads").memory
    git(repo, "commit", "-q", "-m", "memory")
    done = propose_forget(cfg, kept.id, model=_model("confirm"), now=NOW)
    assert (done.verdict, done.applied) == ("confirm", True)
    assert "forgotten: true" in (repo / kept.path).read_text()
    assert recall_here("staging bucket uploads", cfg=cfg) == []


def test_inspect_an_unreviewed_memory(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    memory = make_memory("Staging deploys need the VPN", source="agent:mcp")
    propose_memories(cfg, [memory], review_now=False, now=NOW)
    found = json.loads(hippo(["inspect", memory.id[:6], "--json"], cwd=repo).stdout)
    assert found["store"] == "proposals"
    assert found["memory"]["text"] == "Staging deploys need the VPN"
    assert found["history"][0]["subject"] == f"hippo: append notes/memories/{memory.id}.md (core/memories)"


def test_outcome_names_an_unreviewed_memory(repo: Path) -> None:
    from hippo_git.memories.service import outcome_here

    cfg = load_config(repo)
    memory = make_memory("The release bot needs a fresh token monthly", source="agent:mcp")
    propose_memories(cfg, [memory], review_now=False, now=NOW)
    assert outcome_here([memory.id[:5]], good=True, cfg=cfg) == [memory.id]
