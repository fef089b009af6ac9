"""`git hippo demo`: the README's main job, as a user runs it."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from tests.conftest import git, run_cli


@pytest.fixture(autouse=True)
def no_claude(monkeypatch: pytest.MonkeyPatch) -> None:
    path = os.pathsep.join(
        d for d in os.environ["PATH"].split(os.pathsep) if not shutil.which("claude", path=d)
    )
    monkeypatch.setenv("PATH", path)


def test_demo_runs_the_main_job_end_to_end(tmp_path: Path) -> None:
    proc = run_cli(["demo", "--json", "d"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    demo = tmp_path / "d"
    assert data["ingest"]["sessions"] == 2 and data["ingest"]["files"]["failed"] == []
    totals = data["dream"]["totals"]
    assert totals["applied"] >= 1 and totals["invalid"] == 0
    assert {c["status"] for c in data["changes"]} == {"applied"}
    assert data["search"]["hits"], "the sample sessions are searchable"
    # Every applied change is a commit on main with a confirming receipt; the tree is clean.
    subjects = git(demo, "log", "--format=%s", "main").splitlines()
    assert sum(s.startswith("hippo: append notes/") for s in subjects) == totals["applied"]
    receipts = git(demo, "notes", "--ref=hippo/receipts", "list").splitlines()
    assert len(receipts) >= totals["applied"]
    assert git(demo, "status", "--porcelain") == ""
    assert "Correction:" in (demo / "notes/index.md").read_text()
    # The ids shown are commits `git log` lists; what was learnt is the notes' diff since the dream began.
    shown = git(demo, "log", "--format=%h", "--abbrev=12", "main").splitlines()
    assert all(c["commit"] in shown for c in data["changes"])
    diff = data["learnt"]["diff"]
    assert diff == git(demo, "diff", data["learnt"]["before"], "main", "--", "notes") + "\n"
    assert "+" in diff and "Correction:" in diff


def test_demo_text_output_and_refusal_of_a_used_folder(tmp_path: Path) -> None:
    proc = run_cli(["demo", "d"], cwd=tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "applied" in proc.stdout and "look around:" in proc.stdout
    shown = set(git(tmp_path / "d", "log", "--format=%h", "--abbrev=12", "main").splitlines())
    listed = [line.split()[1] for line in proc.stdout.splitlines() if line.startswith("  applied ")]
    assert listed and set(listed) <= shown
    learnt = proc.stdout.split("what was learnt (git diff ", 1)[1]
    assert "notes/index.md:" in learnt and "    + " in learnt and "Correction:" in learnt
    assert "indexed 2 sample sessions" in proc.stderr
    again = run_cli(["demo", "d"], cwd=tmp_path)
    assert again.returncode == 1 and "exists and is not empty" in again.stderr
