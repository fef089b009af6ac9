"""Lookups that must cost what they ask for and agree across clones: doctor's look at every run
(through the cached walk of the target), and `proposals ID` where `revert ID` works."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.dream.apply import apply_run
from hippo_git.dream.receipt_index import ReceiptIndex
from hippo_git.dream.revert import revert
from hippo_git.dream.views import proposal_branch_health, proposals_view
from hippo_git.errors import HippoError
from hippo_git.git.objects import GitStore
from hippo_git.team.setup import init_workspace
from hippo_git.team.sync import sync
from tests.conftest import git, run_cli
from tests.dream_git_support import notes_repo, prop, propose, review


def _health(root: Path) -> list[str]:
    cfg = load_config(root)
    cfg = replace(cfg, dream=replace(cfg.dream, apply="fast-forward"))
    return sorted(p.saw for p in proposal_branch_health(root, cfg))


def test_doctor_sees_every_run_through_one_cached_walk(tmp_path: Path) -> None:
    root = notes_repo(tmp_path / "repo")
    cfg = load_config(root)
    r1 = propose(root, "r1", [prop("notes/build.md", "- one", turn=1)])
    review(root, r1)
    apply_run(root, cfg, "r1")
    r2 = propose(root, "r2", [prop("notes/deploy.md", "- two", turn=2)])
    review(root, r2)
    r3 = propose(root, "r3", [prop("notes/build.md", "- three", turn=3), prop("notes/new.md", "x", turn=4)])
    review(root, r3[:1])
    before_r2 = git(root, "rev-parse", "main")
    assert _health(root) == [
        "hippo/proposals/r2: 1 confirmed proposal(s) never applied",
        "hippo/proposals/r3: 1 confirmed proposal(s) never applied",
        "hippo/proposals/r3: 1 proposal(s) have no receipt here",
    ]
    apply_run(root, cfg, "r2")  # main gains r2: the cached walk reads only that
    assert "hippo/proposals/r2: 1 confirmed proposal(s) never applied" not in _health(root)
    git(root, "update-ref", "refs/heads/main", before_r2)  # main rewound: walked again
    assert "hippo/proposals/r2: 1 confirmed proposal(s) never applied" in _health(root)
    assert ReceiptIndex(GitStore(root)).applied_ids("main") == {r1[0].proposal_id}
    propose(root, "r3", [prop("notes/deploy.md", "- five", turn=5)])  # the run's branch moved on
    assert "hippo/proposals/r3: 2 proposal(s) have no receipt here" in _health(root)


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, Path, list[str]]:
    seed = notes_repo(tmp_path / "seed")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    alice = tmp_path / "alice"
    git(tmp_path, "clone", "-q", str(remote), str(alice))
    init_workspace(alice, install_hooks=False)
    git(alice, "add", "-A")
    git(alice, "commit", "-q", "-m", "hippo set up")
    pcs = propose(
        alice, "r1", [prop("notes/build.md", "- one", turn=1), prop("notes/deploy.md", "- two", turn=2)]
    )
    review(alice, pcs)
    apply_run(alice, load_config(alice), "r1")
    # The second proposal lands by "rebase and merge": a different commit on main.
    git(alice, "checkout", "-q", "main")
    git(alice, "reset", "-q", "--hard", pcs[0].commit)
    (alice / "other.txt").write_text("o\n")
    git(alice, "add", "other.txt")
    git(alice, "commit", "-q", "-m", "other work")
    git(alice, "-c", "core.hooksPath=/dev/null", "cherry-pick", pcs[1].commit)
    git(alice, "push", "-q", "origin", "main")
    sync(alice)
    bob = tmp_path / "bob"
    git(tmp_path, "clone", "-q", str(remote), str(bob))
    sync(bob)
    return alice, bob, [pc.proposal_id for pc in pcs]


def test_a_second_clone_finds_what_revert_finds(team: tuple[Path, Path, list[str]]) -> None:
    _, bob, ids = team
    assert git(bob, "branch", "-a", "--list", "*proposals*") == ""  # the run branch never came here
    for pid in ids:
        [view] = proposals_view(bob, pid[:10])
        assert view.proposal == pid and view.status == "applied" and view.receipts
    landed = git(bob, "rev-parse", "main")
    assert [v.commit for v in proposals_view(bob, landed[:8])] == [landed]
    proc = run_cli(["proposals", ids[1][:12], "--json"], cwd=bob)
    assert proc.returncode == 0 and json.loads(proc.stdout)[0]["proposal"] == ids[1]
    assert revert(bob, ids[1][:12]).proposal == ids[1]
    # Once reverted, the same lookup says so.
    [view] = proposals_view(bob, ids[1][:12])
    assert view.status == "reverted"


def test_a_run_fetched_from_a_teammate_is_found_by_name(team: tuple[Path, Path, list[str]]) -> None:
    alice, bob, ids = team
    sync(alice, proposals=("r1",))
    git(bob, "fetch", "-q", "origin")
    assert [v.proposal for v in proposals_view(bob, "r1")] == ids


def test_a_selector_that_is_no_run_name_is_looked_up_as_an_id(tmp_path: Path) -> None:
    root = notes_repo(tmp_path / "repo")
    review(root, propose(root, "r1", [prop("notes/build.md", "- one", turn=1)]))
    for selector in ("no such run!", "zzzzzzzzz"):
        with pytest.raises(HippoError, match="no run or proposal matches"):
            proposals_view(root, selector)
