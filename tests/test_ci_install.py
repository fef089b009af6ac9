"""`git hippo ci install github` writes a valid workflow that installs a hippo_git CI can resolve;
the project ships the same example."""

from __future__ import annotations

import shlex
from pathlib import Path
from urllib.parse import unquote, urlparse

import pytest
import yaml

from hippo_git import __version__
from hippo_git.errors import HippoError
from hippo_git.team.ci import EXAMPLE_SOURCE, install_github, workflow_text
from hippo_git.team.ci_source import running_direct_url, source_from_direct_url
from hippo_git.team.setup import init_workspace
from tests.conftest import REPO_ROOT, git, make_repo, run_cli


def _install_line(repo: Path) -> str:
    doc = yaml.safe_load((repo / ".github/workflows/hippo-review.yml").read_text())
    step = next(s for s in doc["jobs"]["verify"]["steps"] if s.get("name") == "Install hippo_git")
    return str(step["run"])


def test_workflow_is_valid_and_has_the_steps(repo: Path) -> None:
    init_workspace(repo, install_hooks=False)
    proc = run_cli(["ci", "install", "github", "--install", "hippo-git @ ./dist/x.whl"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    doc = yaml.safe_load((repo / ".github/workflows/hippo-review.yml").read_text())
    triggers = doc.get("on", doc.get(True))  # YAML 1.1 reads a bare `on` as true
    assert triggers == {"pull_request": {"branches": ["main"]}}
    job = doc["jobs"]["verify"]
    assert job["if"] == "startsWith(github.head_ref, 'hippo/proposals/')"
    runs = "\n".join(step.get("run", "") for step in job["steps"])
    assert shlex.split(_install_line(repo))[-1] == "hippo-git @ ./dist/x.whl"
    assert "+refs/notes/hippo/receipts:refs/notes/hippo/receipts" in runs
    assert "git hippo verify" in runs and "--format github" in runs
    assert "gh pr comment" in runs
    assert job["steps"][0]["with"]["fetch-depth"] == 0
    recall = doc["jobs"]["eval"]["steps"]
    assert recall[-1]["run"].startswith("git hippo eval --min-recall 0.8")
    assert recall[-1]["if"] == "hashFiles('.hippo/eval.json', '.hippo/eval.toml') != ''"
    text = (repo / ".github/workflows/hippo-review.yml").read_text()
    assert "# To change it: git hippo config set ci.install SPEC" in text
    again = run_cli(["ci", "install", "github", "--install", "hippo-git @ ./dist/x.whl"], cwd=repo)
    assert again.stderr.startswith("unchanged")


def test_the_install_spec_from_config(repo: Path) -> None:
    init_workspace(repo, install_hooks=False)
    toml = repo / ".hippo/hippo.toml"
    toml.write_text(toml.read_text().replace('install = ""', 'install = "hippo-git==9.9"'))
    install_github(repo)
    assert shlex.split(_install_line(repo))[-1] == "hippo-git==9.9"


def _published_checkout(tmp_path: Path, url: str) -> tuple[Path, str]:
    checkout = make_repo(tmp_path / "src")
    git(checkout, "remote", "add", "origin", url)
    git(checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
    return checkout, git(checkout, "rev-parse", "HEAD")


@pytest.mark.parametrize(
    ("url", "vcs"),
    [
        ("https://github.com/acme/hippo_git.git", "git+https://github.com/acme/hippo_git.git"),
        ("git@github.com:acme/hippo_git.git", "git+ssh://git@github.com/acme/hippo_git.git"),
    ],
)
def test_an_editable_checkout_installs_its_exact_commit(tmp_path: Path, url: str, vcs: str) -> None:
    checkout, commit = _published_checkout(tmp_path, url)
    direct = {"url": checkout.as_uri(), "dir_info": {"editable": True}}
    source = source_from_direct_url(direct, tmp_path / "team")
    assert source.spec == f"hippo-git @ {vcs}@{commit}"


def test_a_checkout_ci_cannot_fetch_is_refused_with_a_hint(tmp_path: Path) -> None:
    checkout = make_repo(tmp_path / "src")
    direct = {"url": checkout.as_uri(), "dir_info": {"editable": True}}
    with pytest.raises(HippoError, match="it has no remote") as err:
        source_from_direct_url(direct, tmp_path)
    assert "--install" in (err.value.hint or "")
    git(checkout, "remote", "add", "origin", "https://github.com/acme/hippo_git.git")
    with pytest.raises(HippoError, match="on no remote branch"):
        source_from_direct_url(direct, tmp_path)  # HEAD was never pushed
    git(checkout, "remote", "set-url", "origin", str(tmp_path / "elsewhere"))
    git(checkout, "update-ref", "refs/remotes/origin/main", "HEAD")
    with pytest.raises(HippoError, match="CI cannot fetch it"):
        source_from_direct_url(direct, tmp_path)


def test_vcs_wheel_and_index_installs(tmp_path: Path) -> None:
    vcs = {"url": "https://github.com/acme/hippo_git", "vcs_info": {"vcs": "git", "commit_id": "abc123"}}
    assert (
        source_from_direct_url(vcs, tmp_path).spec
        == "hippo-git @ git+https://github.com/acme/hippo_git@abc123"
    )
    wheel = tmp_path / "vendor" / "hippo_git-0.1.0-py3-none-any.whl"
    inside = {"url": wheel.as_uri(), "archive_info": {}}
    assert source_from_direct_url(inside, tmp_path).spec == "./vendor/hippo_git-0.1.0-py3-none-any.whl"
    with pytest.raises(HippoError, match="outside this repository"):
        source_from_direct_url(inside, tmp_path / "other")
    assert source_from_direct_url(None, tmp_path).spec == f"hippo-git=={__version__}"


def test_this_install_is_read_from_its_metadata() -> None:
    direct = running_direct_url()
    # The test suite runs from this source tree (editable install, or not installed), never from an index;
    # the source tree's own egg-info beside the package must not pass for an index install.
    assert direct is not None and "dir_info" in direct
    assert Path(unquote(urlparse(direct["url"]).path)).resolve() == REPO_ROOT


def test_a_foreign_workflow_is_not_overwritten(repo: Path) -> None:
    init_workspace(repo, install_hooks=False)
    path = repo / ".github/workflows/hippo-review.yml"
    path.parent.mkdir(parents=True)
    path.write_text("name: mine\n")
    with pytest.raises(HippoError, match="was not written by hippo"):
        install_github(repo, install="hippo-git==1")
    assert path.read_text() == "name: mine\n"


def test_the_project_example_is_current() -> None:
    example = REPO_ROOT / ".github/examples/hippo-review.yml"
    assert example.read_text() == workflow_text("main", EXAMPLE_SOURCE)


def test_pre_commit_framework_manifest() -> None:
    hooks = yaml.safe_load((REPO_ROOT / ".pre-commit-hooks.yaml").read_text())
    assert hooks[0]["id"] == "hippo-lint"
    assert hooks[0]["entry"] == "git-hippo hook pre-commit"
