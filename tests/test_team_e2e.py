"""Two teammates dream and sync through a local bare remote, in turn and at the same time."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hippo_git.dream.samples import install_samples
from tests.conftest import git, make_repo


def _env(home: Path) -> dict[str, str]:
    path = os.pathsep.join(
        d for d in os.environ["PATH"].split(os.pathsep) if not shutil.which("claude", path=d)
    )
    return dict(os.environ, HIPPO_HOME=str(home), PATH=path)


def hippo(repo: Path, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    proc = subprocess.run(
        [sys.executable, "-m", "hippo_git", *args], cwd=repo, env=_env(home), capture_output=True, text=True
    )
    return proc


def receipt_lines(repo: Path) -> set[str]:
    lines: set[str] = set()
    for row in git(repo, "notes", "--ref=hippo/receipts", "list", check=False).splitlines():
        note = git(repo, "cat-file", "-p", row.split()[0])
        lines.update(line for line in note.splitlines() if line.strip())
    return lines


@pytest.fixture
def team(tmp_path: Path) -> tuple[Path, list[tuple[Path, Path]]]:
    seed = make_repo(tmp_path / "seed")
    subprocess.run(
        [sys.executable, "-m", "hippo_git", "init", "--no-hooks"], cwd=seed, check=True, capture_output=True
    )
    git(seed, "add", "-A")
    git(seed, "commit", "-q", "-m", "Set up hippo_git")
    remote = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(remote))
    people = []
    for name in ("alice", "bob"):
        clone = tmp_path / name
        git(tmp_path, "clone", "-q", str(remote), str(clone))
        home = tmp_path / f"{name}-home"
        assert hippo(clone, home, "init").returncode == 0
        samples = tmp_path / f"{name}-transcripts"
        install_samples(clone, samples, datetime.now(UTC))
        assert (
            hippo(clone, home, "ingest", "--root", str(samples), "--harness", "claude-code").returncode == 0
        )
        people.append((clone, home))
    return remote, people


def _dream_and_sync(clone: Path, home: Path) -> None:
    dream = hippo(clone, home, "dream")
    assert dream.returncode == 0, dream.stderr
    sync = hippo(clone, home, "sync")
    assert sync.returncode == 0, sync.stderr


def test_dreams_synced_in_turn_reach_everyone(team: tuple[Path, list[tuple[Path, Path]]]) -> None:
    remote, [(alice, a_home), (bob, b_home)] = team
    _dream_and_sync(alice, a_home)
    _dream_and_sync(bob, b_home)
    assert hippo(alice, a_home, "sync").returncode == 0
    mine, theirs = receipt_lines(alice), receipt_lines(bob)
    assert mine == theirs == receipt_lines(remote)
    runs = {line.split('"run":"')[1].split('"')[0] for line in mine}
    assert len(runs) == 2  # one dream each, both kept
    assert all('"verdict":"confirm"' in line for line in mine)


def test_dreams_synced_at_the_same_time_lose_nothing(team: tuple[Path, list[tuple[Path, Path]]]) -> None:
    remote, people = team
    for clone, home in people:
        assert hippo(clone, home, "dream").returncode == 0
    before = {clone: receipt_lines(clone) for clone, _ in people}
    results: list[subprocess.CompletedProcess[str]] = []
    threads = [
        threading.Thread(target=lambda c=c, h=h: results.append(hippo(c, h, "sync"))) for c, h in people
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    # A sync that lost every retry says so and exits 1; a second round in turn converges.
    assert all(r.returncode == 0 or "kept moving" in r.stderr for r in results), [r.stderr for r in results]
    for clone, home in (*people, people[0]):
        assert hippo(clone, home, "sync").returncode == 0
    everything = set().union(*before.values())
    for repo in (*(c for c, _ in people), remote):
        assert receipt_lines(repo) == everything
