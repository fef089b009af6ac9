"""The README's main job end to end: init, sample transcripts, ingest, dream with the offline model."""

from __future__ import annotations

import json
import os
import shutil
from datetime import UTC, datetime
from pathlib import Path

from hippo_git.dream.samples import install_samples
from tests.conftest import git, make_repo, run_cli


def _path_without_claude() -> str:
    return os.pathsep.join(
        d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not shutil.which("claude", path=d)
    )


def test_main_job_with_the_heuristic_model_on_sample_transcripts(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv("PATH", _path_without_claude())
    repo = make_repo(tmp_path / "demo")
    init = run_cli(["init", "--no-hooks"], cwd=repo)
    assert init.returncode == 0, init.stderr
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Set up hippo_git")
    samples = install_samples(repo, tmp_path / "samples", datetime.now(UTC))
    assert len(samples) == 2 and all(str(repo.resolve()) in p.read_text() for p in samples)
    ingest = run_cli(["ingest", "--root", str(tmp_path / "samples"), "--harness", "claude-code"], cwd=repo)
    assert ingest.returncode == 0, ingest.stderr
    dream = run_cli(["dream", "--json"], cwd=repo)
    assert dream.returncode == 0, dream.stderr
    report = json.loads(dream.stdout)
    assert report["heuristic"] and report["model"][-2:] == ["model", "heuristic"]
    assert report["totals"]["applied"] >= 1 and report["totals"]["invalid"] == 0
    note = (repo / "notes" / "index.md").read_text()
    assert (
        '- Correction: "No, don\'t use pip in this repo. We use uv for everything: uv sync, then uv run pytest."'
        in note
    )
    assert '"ModuleNotFoundError: No module named \'demo\'" was fixed by "uv sync"' in note
    assert git(repo, "status", "--porcelain") == ""
    receipts = json.loads(run_cli(["receipts", "--json"], cwd=repo).stdout)
    assert receipts and all(r["verdict"] == "confirm" for r in receipts)
    proposals = json.loads(run_cli(["proposals", "--json"], cwd=repo).stdout)
    assert {p["status"] for p in proposals} == {"applied"}
    again = json.loads(run_cli(["dream", "--json"], cwd=repo).stdout)  # nothing new: no model call
    assert again["totals"]["model_calls"] == 0 and again["totals"]["proposals"] == 0
    assert (repo / ".hippo" / "reports" / f"{report['run']}.md").exists()
    assert not git(repo, "ls-files", ".hippo/reports", ".hippo/sessions", ".hippo/dream-state.json")
