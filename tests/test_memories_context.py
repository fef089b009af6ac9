"""Memories in the context block (framed by confidence, within the budget) and next to prompts
(once per session), on the light agent-hook path."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.memories.service import remember_text
from tests.conftest import make_repo, run_cli
from tests.test_agent_hooks import hook


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "ws")
    assert run_cli(["init", "--no-hooks"], cwd=root).returncode == 0
    cfg = load_config(root)
    remember_text(cfg, "Release builds need the signing key from the vault", confidence="verified")
    remember_text(cfg, "The release checklist lives in docs/release.md")
    remember_text(cfg, "Lunch is at noon on Fridays")
    return root


def test_context_frames_relevant_memories(ws: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    out = hippo(["context", "--task", "prepare the release builds"], cwd=ws).stdout
    assert "## Memories relevant to the task" in out
    assert "Previously observed (" in out and "verified): Release builds need the signing key" in out
    assert "Lunch is at noon" not in out
    assert '<note path="notes/memories/' not in out  # memories come framed, not as raw notes
    suggest = hippo(["context", "--task", "release builds", "--framing", "suggest"], cwd=ws).stdout
    assert "- Consider (verified, " in suggest
    plain = hippo(["context", "--task", "release builds", "--framing", "assert"], cwd=ws).stdout
    assert "- Release builds need the signing key from the vault [verified; m-" in plain
    data = json.loads(hippo(["context", "--task", "release builds", "--format", "json"], cwd=ws).stdout)
    assert any(p["kind"] == "memory" for p in data["parts"])


def test_memories_leave_the_context_whole_when_the_budget_is_small(ws: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    full = json.loads(hippo(["context", "--task", "release builds", "--format", "json"], cwd=ws).stdout)
    required = full["required_bytes"]
    small = json.loads(
        hippo(
            ["context", "--task", "release builds", "--format", "json", "--budget", str(required + 150)],
            cwd=ws,
        ).stdout
    )
    assert not any(p["kind"] == "memory" for p in small["parts"])
    assert any(p["kind"] == "memory" for p in small["left_out"])


def test_prompt_hook_adds_unseen_memories_once(ws: Path) -> None:
    payload = {"session_id": "s-9", "cwd": str(ws), "hook_event_name": "UserPromptSubmit"}
    first = hook(ws, "prompt", {**payload, "prompt": "what do release builds need for signing?"})
    assert (first.returncode, first.stderr) == (0, "")
    text = json.loads(first.stdout)["hookSpecificOutput"]["additionalContext"]
    assert "Memories from this repository's hippo_git" in text
    assert "Release builds need the signing key from the vault" in text
    again = hook(ws, "prompt", {**payload, "prompt": "release builds signing again"})
    assert "signing key" not in again.stdout
    unrelated = hook(ws, "prompt", {**payload, "prompt": "rename the variable x"})
    assert unrelated.stdout == ""


def test_context_with_memories_stays_light(ws: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hippo_git", "context", "--task", "release builds"],
        cwd=ws,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "Release builds need" in proc.stdout
    imported = {line.rsplit("|", 1)[1].strip() for line in proc.stderr.splitlines() if "|" in line}
    assert "hippo_git.memories.framing" in imported
    assert not {m for m in imported if m.split(".")[0] in ("pygit2", "git", "pydantic")}
