"""A dream killed between any two steps resumes: nothing duplicated or half-written, `git fsck` clean."""

from __future__ import annotations

import os
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from hippo_git.dream.proposals import run_commits
from hippo_git.dream.receipts import list_receipts
from hippo_git.dream.run import STEPS
from hippo_git.dream.state import load_state
from hippo_git.git.objects import GitStore
from tests.conftest import git
from tests.test_dream_run import default_steps, run, workspace

CRASH = """
import os, sys
from datetime import datetime, UTC
from pathlib import Path
from hippo_git.config import load_config
from hippo_git.dream.run import DreamOptions, dream

step, nth, root = sys.argv[1], int(sys.argv[2]), Path(sys.argv[3])
seen = []

def checkpoint(name):
    if name == step:
        seen.append(name)
        if len(seen) == nth:
            os._exit(9)  # killed: no cleanup, no finally

until = datetime(2026, 1, 8, tzinfo=UTC)
dream(load_config(root), DreamOptions(until=until), env=dict(os.environ), now=until, checkpoint=checkpoint, run_id="run-k")
sys.exit(3)  # the step never came
"""


def outcome(root: Path) -> dict[str, object]:
    store = GitStore(root)
    commits = run_commits(store, "run-k") if store.ref_target("refs/heads/hippo/proposals/run-k") else []
    receipts = [e.receipt for e in list_receipts(root)]
    return {
        "note": (root / "notes" / "build.md").read_text(),
        "proposals": sorted(pc.proposal_id for pc in commits),
        "receipts": Counter((r.proposal, r.kind, r.verdict) for r in receipts),
        "main_is_branch": git(root, "rev-parse", "main") == git(root, "rev-parse", "hippo/proposals/run-k"),
        "window": load_state(root / ".hippo").windows,
        "current": load_state(root / ".hippo").current,
    }


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory) -> dict[str, object]:
    """What an uninterrupted run leaves (in its own workspace)."""
    tmp = tmp_path_factory.mktemp("reference")
    cfg, _ = workspace(tmp, default_steps())
    assert run(cfg, run_id="run-k").status == "complete"
    return outcome(cfg.root)


@pytest.mark.parametrize(
    ("step", "nth"), [(s, 1) for s in STEPS] + [("commit", 2), ("receipt", 2), ("state", 2)]
)
def test_a_killed_run_resumes_without_duplicates(
    tmp_path: Path, reference: dict[str, object], step: str, nth: int
) -> None:
    cfg, _ = workspace(tmp_path, default_steps())
    killed = subprocess.run(
        [sys.executable, "-c", CRASH, step, str(nth), str(cfg.root)],
        capture_output=True,
        text=True,
        env=dict(os.environ),
    )
    assert killed.returncode == 9, killed.stderr
    again = run(cfg)  # no run id given: the state names the run to resume
    assert again.run == "run-k" and again.status == "complete"
    got = outcome(cfg.root)
    assert got == reference
    assert all(n == 1 for n in got["receipts"].values())  # type: ignore[attr-defined]
    fsck = subprocess.run(["git", "fsck", "--no-progress"], cwd=cfg.root, capture_output=True, text=True)
    assert fsck.returncode == 0 and "error" not in fsck.stderr and "missing" not in fsck.stdout, (
        fsck.stdout + fsck.stderr
    )
    assert git(cfg.root, "status", "--porcelain") == ""
    leftovers = [p.name for p in (cfg.root / ".hippo").rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []
    assert not (Path(os.environ["HIPPO_HOME"]) / "model-runs" / "run-k").exists()
