"""`git hippo sync` between two clones and a local bare remote."""

from __future__ import annotations

import json
import threading
from pathlib import Path

import pytest

from hippo_git.errors import UsageError
from hippo_git.team.setup import init_workspace
from hippo_git.team.sync import sync
from tests.conftest import git, make_repo, run_cli

REF = "refs/notes/hippo/receipts"


def _notes(repo: Path, commit: str = "HEAD") -> list[str]:
    out = git(repo, "notes", "--ref=hippo/receipts", "show", commit, check=False)
    return sorted(line for line in out.splitlines() if line.strip())


def _all_lines(repo: Path) -> set[str]:
    lines: set[str] = set()
    listing = git(repo, "notes", "--ref=hippo/receipts", "list", check=False)
    for row in listing.splitlines():
        _, commit = row.split()
        lines.update(_notes(repo, commit))
    return lines


def _receipt(repo: Path, text: str, commit: str = "HEAD") -> None:
    line = json.dumps({"kind": "review", "note": text})
    git(repo, "notes", "--ref=hippo/receipts", "append", "-m", line, commit)


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path, Path]:
    seed = make_repo(tmp_path / "seed")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    clones = []
    for name in ("alice", "bob"):
        clone = tmp_path / name
        git(tmp_path, "clone", "-q", str(remote), str(clone))
        init_workspace(clone, install_hooks=False)
        clones.append(clone)
    return remote, clones[0], clones[1]


def test_receipts_of_both_clones_meet_on_the_remote(team: tuple[Path, Path, Path]) -> None:
    remote, alice, bob = team
    _receipt(alice, "alice-1")
    first = sync(alice)
    assert first.pushed and not first.fetched
    _receipt(bob, "bob-1")  # the same commit: a notes conflict that cat_sort_uniq resolves
    second = sync(bob)
    assert second.fetched and second.merged and second.pushed
    sync(alice)
    for repo in (alice, bob):
        assert {json.loads(x)["note"] for x in _notes(repo)} == {"alice-1", "bob-1"}
    remote_lines = git(remote, "notes", "--ref=hippo/receipts", "show", "HEAD")
    assert "alice-1" in remote_lines and "bob-1" in remote_lines
    assert git(alice, "rev-parse", "refs/notes/hippo-remote/origin/receipts")


def test_concurrent_syncs_lose_nothing(team: tuple[Path, Path, Path]) -> None:
    remote, alice, bob = team
    errors: list[BaseException] = []

    def work(repo: Path, who: str) -> None:
        for i in range(4):
            _receipt(repo, f"{who}-{i}")
            try:
                sync(repo)
            except BaseException as exc:  # collected and checked in the main thread
                errors.append(exc)

    threads = [threading.Thread(target=work, args=(r, n)) for r, n in ((alice, "alice"), (bob, "bob"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # A sync that ran out of retries says so; a final sync in turn must converge.
    assert all("kept moving" in str(e) for e in errors), errors
    sync(alice)
    sync(bob)
    sync(alice)
    expected = {f"{who}-{i}" for who in ("alice", "bob") for i in range(4)}
    for repo in (alice, bob, remote):
        assert {json.loads(x)["note"] for x in _all_lines(repo)} == expected


def test_proposals_branch_is_pushed_and_fetched_never_forced(team: tuple[Path, Path, Path]) -> None:
    remote, alice, bob = team
    git(alice, "branch", "hippo/proposals/r1")
    result = sync(alice, proposals=("r1",))
    assert result.proposals[0].pushed
    assert git(remote, "rev-parse", "refs/heads/hippo/proposals/r1")
    got = sync(bob, proposals=("r1",))
    assert got.proposals[0].created_local
    assert git(bob, "rev-parse", "hippo/proposals/r1") == git(alice, "rev-parse", "hippo/proposals/r1")
    # Diverged: bob's branch moves elsewhere; sync refuses to force either side.
    (bob / "x.txt").write_text("x\n")
    git(bob, "add", "x.txt")
    git(bob, "commit", "-q", "-m", "x")
    (alice / "y.txt").write_text("y\n")
    git(alice, "add", "y.txt")
    git(alice, "commit", "-q", "-m", "y")
    git(alice, "branch", "-f", "hippo/proposals/r1", "HEAD")
    sync(alice, proposals=("r1",))
    git(bob, "branch", "-f", "hippo/proposals/r1", "HEAD")
    before = git(remote, "rev-parse", "refs/heads/hippo/proposals/r1")
    result = sync(bob, proposals=("r1",))
    assert "not forced" in result.proposals[0].problem
    assert git(remote, "rev-parse", "refs/heads/hippo/proposals/r1") == before
    proc = run_cli(["sync", "--proposals", "r1"], cwd=bob)
    assert proc.returncode == 1 and "not forced" in proc.stderr


def test_only_receipts_and_named_branches_are_pushed(team: tuple[Path, Path, Path]) -> None:
    remote, alice, _ = team
    git(alice, "branch", "private-work")
    git(alice, "notes", "--ref=other", "add", "-m", "mine", "HEAD")
    _receipt(alice, "a")
    sync(alice)
    refs = git(remote, "for-each-ref", "--format=%(refname)").splitlines()
    assert sorted(refs) == ["refs/heads/main", REF]


def test_unknown_remote_is_a_usage_error(team: tuple[Path, Path, Path]) -> None:
    _, alice, _ = team
    with pytest.raises(UsageError, match="no remote named 'upstream'"):
        sync(alice, "upstream")


def test_rebase_keeps_receipts(team: tuple[Path, Path, Path]) -> None:
    _, alice, _ = team
    git(alice, "checkout", "-q", "-b", "hippo/proposals/r2")
    (alice / "notes/a.md").write_text("# A\n")
    git(alice, "add", "notes/a.md")
    git(alice, "commit", "-q", "-m", "hippo: append notes/a.md")
    _receipt(alice, "for-a")
    git(alice, "checkout", "-q", "main")
    (alice / "other.txt").write_text("o\n")
    git(alice, "add", "other.txt")
    git(alice, "commit", "-q", "-m", "main moves", "--date=2026-01-03T00:00:00Z")
    git(alice, "checkout", "-q", "hippo/proposals/r2")
    old = git(alice, "rev-parse", "HEAD")
    git(alice, "-c", "core.hooksPath=/dev/null", "rebase", "-q", "main")
    new = git(alice, "rev-parse", "HEAD")
    assert new != old
    assert [json.loads(x)["note"] for x in _notes(alice, new)] == ["for-a"]
