"""`git hippo ci install github` writes a valid workflow; the project ships the same example."""

from __future__ import annotations

from pathlib import Path

import pytest
import yaml

from hippo_git.errors import HippoError
from hippo_git.team.ci import install_github, workflow_text
from hippo_git.team.setup import init_workspace
from tests.conftest import REPO_ROOT, run_cli


def test_workflow_is_valid_and_has_the_steps(repo: Path) -> None:
    init_workspace(repo, install_hooks=False)
    proc = run_cli(["ci", "install", "github"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    doc = yaml.safe_load((repo / ".github/workflows/hippo-review.yml").read_text())
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers == {"pull_request": {"branches": ["main"]}}
    job = doc["jobs"]["verify"]
    assert job["if"] == "startsWith(github.head_ref, 'hippo/proposals/')"
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert "pip install hippo-git==" in runs
    assert "+refs/notes/hippo/receipts:refs/notes/hippo/receipts" in runs
    assert "git hippo verify" in runs and "--format github" in runs
    assert "gh pr comment" in runs
    assert job["steps"][0]["with"]["fetch-depth"] == 0
    recall = doc["jobs"]["eval"]["steps"]
    assert recall[-1]["run"].startswith("git hippo eval --min-recall 0.8")
    assert recall[-1]["if"] == "hashFiles('.hippo/eval.json', '.hippo/eval.toml') != ''"
    assert run_cli(["ci", "install", "github"], cwd=repo).stderr.startswith("unchanged")


def test_a_foreign_workflow_is_not_overwritten(repo: Path) -> None:
    init_workspace(repo, install_hooks=False)
    path = repo / ".github/workflows/hippo-review.yml"
    path.parent.mkdir(parents=True)
    path.write_text("name: mine\n")
    with pytest.raises(HippoError, match="was not written by hippo"):
        install_github(repo)
    assert path.read_text() == "name: mine\n"


def test_the_project_example_is_current() -> None:
    example = REPO_ROOT / ".github/examples/hippo-review.yml"
    assert example.read_text() == workflow_text("main")


def test_pre_commit_framework_manifest() -> None:
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hooks[0]["id"] == "hippo-lint"
    assert hooks[0]["entry"] == "git-hippo hook pre-commit"
