"""`git hippo init` and `git hippo hooks uninstall` in every kind of repository."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from hippo_git.errors import HippoError, NotARepoError
from hippo_git.team.setup import init_workspace
from tests.conftest import git, make_repo, run_cli


def _tree(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if ".git" not in p.parts and p.is_file())


def test_init_creates_the_workspace_and_commits_nothing(repo: Path) -> None:
    head = git(repo, "rev-parse", "HEAD")
    proc = run_cli(["init"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    assert _tree(repo) == [".hippo/.gitignore", ".hippo/hippo.toml", "README.md", "notes/index.md"]
    assert git(repo, "rev-parse", "HEAD") == head
    assert "git add .hippo/hippo.toml .hippo/.gitignore notes/index.md" in proc.stdout
    toml = (repo / ".hippo/hippo.toml").read_text()
    assert 'target_branch = "main"' in toml and "# folder of Markdown notes" in toml
    ignore = (repo / ".hippo/.gitignore").read_text().split()
    for rule in ("sessions/", "reports/", "inbox/", "dream-state.json", "model-runs/"):
        assert rule in ignore
    assert git(repo, "config", "--get", "notes.hippo/receipts.mergeStrategy") == "cat_sort_uniq"
    assert git(repo, "config", "--get-all", "notes.rewriteRef") == "refs/notes/hippo/receipts"
    for hook in ("pre-commit", "post-merge"):
        assert os.access(repo / ".git/hooks" / hook, os.X_OK)


def test_init_is_idempotent_and_json(repo: Path) -> None:
    run_cli(["init"], cwd=repo)
    before = {p: (repo / p).read_bytes() for p in _tree(repo)}
    hooks_before = (repo / ".git/hooks/pre-commit").read_bytes()
    proc = run_cli(["init", "--json"], cwd=repo)
    data = json.loads(proc.stdout)
    assert data["created"] == [] and data["config"] == []
    assert {h["action"] for h in data["hooks"]} == {"unchanged"}
    assert {p: (repo / p).read_bytes() for p in _tree(repo)} == before
    assert (repo / ".git/hooks/pre-commit").read_bytes() == hooks_before
    assert git(repo, "config", "--get-all", "notes.rewriteRef") == "refs/notes/hippo/receipts"


def test_init_asks_to_commit_only_what_is_not_committed(repo: Path) -> None:
    run_cli(["init"], cwd=repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "Set up hippo_git")
    again = run_cli(["init"], cwd=repo)
    assert again.returncode == 0 and "git add" not in again.stdout
    assert "committed already" in again.stderr
    (repo / "notes/index.md").write_text("# Index\n\nchanged\n")
    changed = run_cli(["init", "--json"], cwd=repo)
    assert json.loads(changed.stdout)["to_commit"] == ["notes/index.md"]


def test_init_adds_receipt_refspecs_to_every_remote(repo: Path, tmp_path: Path) -> None:
    for name in ("origin", "backup"):
        git(tmp_path, "init", "-q", "--bare", str(tmp_path / f"{name}.git"))
        git(repo, "remote", "add", name, str(tmp_path / f"{name}.git"))
    init_workspace(repo)
    init_workspace(repo)
    for name in ("origin", "backup"):
        specs = git(repo, "config", "--get-all", f"remote.{name}.fetch").splitlines()
        assert specs.count(f"+refs/notes/hippo/receipts:refs/notes/hippo-remote/{name}/receipts") == 1


def test_init_in_a_repo_with_no_commits(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "empty", commit=False)
    result = init_workspace(root)
    assert "notes/index.md" in result.created
    assert 'target_branch = "main"' in (root / ".hippo/hippo.toml").read_text()


def test_init_from_a_subfolder_uses_the_repo_root(repo: Path) -> None:
    (repo / "src" / "deep").mkdir(parents=True)
    result = init_workspace(repo / "src" / "deep")
    assert result.workdir == repo
    assert (repo / ".hippo/hippo.toml").exists()


def test_init_in_a_linked_worktree(repo: Path, tmp_path: Path) -> None:
    wt = tmp_path / "wt"
    git(repo, "worktree", "add", "-q", "-b", "feature", str(wt))
    init_workspace(wt)
    assert 'target_branch = "feature"' in (wt / ".hippo/hippo.toml").read_text()
    # Hooks live in the common git dir, shared by every worktree.
    assert (repo / ".git/hooks/pre-commit").exists()


def test_init_honours_core_hooks_path(repo: Path) -> None:
    git(repo, "config", "core.hooksPath", ".githooks")
    init_workspace(repo)
    assert (repo / ".githooks/pre-commit").exists()
    assert not (repo / ".git/hooks/pre-commit").exists()


def test_init_refuses_a_bare_repository(tmp_path: Path) -> None:
    bare = tmp_path / "bare.git"
    git(tmp_path, "init", "-q", "--bare", str(bare))
    with pytest.raises(NotARepoError, match="bare repository"):
        init_workspace(bare)
    proc = run_cli(["init"], cwd=bare)
    assert proc.returncode == 1
    assert proc.stderr.startswith("error: ") and "bare repository" in proc.stderr
    assert "Traceback" not in proc.stderr


def test_init_outside_a_repository(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    proc = run_cli(["init"], cwd=tmp_path / "plain")
    assert proc.returncode == 1 and "not a git repository" in proc.stderr


def test_no_hooks_skips_hooks(repo: Path) -> None:
    run_cli(["init", "--no-hooks"], cwd=repo)
    assert not (repo / ".git/hooks/pre-commit").exists()
    assert (repo / ".hippo/hippo.toml").exists()


def test_foreign_hook_is_chained_and_restored(repo: Path) -> None:
    hook = repo / ".git/hooks/pre-commit"
    hook.parent.mkdir(exist_ok=True)
    hook.write_text("#!/bin/sh\necho foreign\n")
    hook.chmod(0o755)
    init_workspace(repo)
    assert (repo / ".git/hooks/pre-commit.legacy").read_text() == "#!/bin/sh\necho foreign\n"
    assert "hippo-git managed hook" in hook.read_text()
    init_workspace(repo)  # re-running must not chain our own shim as legacy
    assert (repo / ".git/hooks/pre-commit.legacy").read_text() == "#!/bin/sh\necho foreign\n"
    proc = run_cli(["hooks", "uninstall", "--json"], cwd=repo)
    actions = {c["hook"]: c["action"] for c in json.loads(proc.stdout)}
    assert actions == {"pre-commit": "restored-legacy", "post-merge": "removed"}
    assert hook.read_text() == "#!/bin/sh\necho foreign\n"
    assert not (repo / ".git/hooks/pre-commit.legacy").exists()
    assert not (repo / ".git/hooks/post-merge").exists()


def test_foreign_hook_with_an_existing_legacy_is_refused(repo: Path) -> None:
    hooks = repo / ".git/hooks"
    hooks.mkdir(exist_ok=True)
    (hooks / "pre-commit").write_text("#!/bin/sh\necho new\n")
    (hooks / "pre-commit.legacy").write_text("#!/bin/sh\necho old\n")
    with pytest.raises(HippoError, match="already exists"):
        init_workspace(repo)
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\necho new\n"
    assert (hooks / "pre-commit.legacy").read_text() == "#!/bin/sh\necho old\n"


def test_init_keeps_an_existing_notes_dir_setting(repo: Path) -> None:
    (repo / ".hippo").mkdir()
    (repo / ".hippo/hippo.toml").write_text('notes_dir = "docs/memory"\n')
    result = init_workspace(repo)
    assert "docs/memory/index.md" in result.created
    assert (repo / ".hippo/hippo.toml").read_text() == 'notes_dir = "docs/memory"\n'


def test_console_script_is_a_git_subcommand(repo: Path) -> None:
    exe = Path(os.environ.get("VIRTUAL_ENV", "")) / "bin" / "git-hippo"
    import shutil
    import sys

    found = shutil.which("git-hippo") or (str(Path(sys.executable).parent / "git-hippo"))
    if not Path(found).exists():
        pytest.skip(f"git-hippo console script not installed ({exe})")
    env = dict(os.environ, PATH=f"{Path(found).parent}{os.pathsep}{os.environ['PATH']}")
    proc = subprocess.run(["git", "hippo", "--version"], cwd=repo, capture_output=True, text=True, env=env)
    assert proc.returncode == 0 and proc.stdout.startswith("git hippo ")


def test_init_registers_the_workspace_for_watch_and_schedule(repo: Path, tmp_path: Path) -> None:
    from hippo_git.capture.plan import build_plan
    from hippo_git.capture.workspaces import registered
    from hippo_git.config import hippo_home

    home = hippo_home()
    assert registered(home) == []
    first = run_cli(["init"], cwd=repo)
    assert first.returncode == 0, first.stderr
    assert f"registered {repo}" in first.stderr
    again = run_cli(["init", "--json"], cwd=repo)
    assert json.loads(again.stdout)["registered"] is False  # idempotent: once in the registry
    other = make_repo(tmp_path / "other")
    assert init_workspace(other).registered is True
    assert registered(home) == [repo, other]
    plan = build_plan(registered(home))  # what `watch` watches and `schedule` runs over
    assert {str(repo / "notes"), str(other / "notes")} <= {p.path for p in plan.places}
