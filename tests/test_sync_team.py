"""`git hippo sync` as a team uses it: bursts of syncs that all succeed, clear messages about remotes,
set-up of a remote added after `init`, and pushes judged from git's structured results."""

from __future__ import annotations

import json
import random
import stat
import threading
from pathlib import Path

import pytest

from hippo_git.errors import GitError, UsageError
from hippo_git.team.doctor import run_doctor
from hippo_git.team.setup import init_workspace
from hippo_git.team.sync import FIRST_WAIT, MAX_WAIT, sync, sync_receipts
from tests.conftest import git, make_repo, run_cli

REF = "refs/notes/hippo/receipts"


def _receipt(repo: Path, text: str, commit: str = "HEAD") -> None:
    git(repo, "notes", "--ref=hippo/receipts", "append", "-m", json.dumps({"note": text}), commit)


class _Highest(random.Random):
    """Always the top of the range: the longest wait the policy allows."""

    def uniform(self, a: float, b: float) -> float:
        return b


def _remote_lines(remote: Path) -> set[str]:
    lines: set[str] = set()
    for row in git(remote, "notes", "--ref=hippo/receipts", "list", check=False).splitlines():
        lines.update(git(remote, "cat-file", "-p", row.split()[0]).splitlines())
    return {json.loads(line)["note"] for line in lines if line.strip()}


@pytest.fixture
def remote(tmp_path: Path) -> Path:
    seed = make_repo(tmp_path / "seed")
    for i in range(3):
        (seed / f"f{i}.txt").write_text(f"{i}\n")
        git(seed, "add", "-A")
        git(seed, "commit", "-q", "-m", f"c{i}")
    bare = tmp_path / "remote.git"
    git(tmp_path, "clone", "-q", "--bare", str(seed), str(bare))
    return bare


def _clone(remote: Path, path: Path) -> Path:
    git(remote.parent, "clone", "-q", str(remote), str(path))
    init_workspace(path, install_hooks=False)
    return path


def test_a_burst_of_syncs_all_succeed_and_lose_nothing(remote: Path, tmp_path: Path) -> None:
    clones = [_clone(remote, tmp_path / f"mate{i}") for i in range(5)]
    failures: list[BaseException] = []
    expected: set[str] = set()
    for round_no in range(2):
        barrier = threading.Barrier(len(clones))

        def work(repo: Path, barrier: threading.Barrier = barrier) -> None:
            barrier.wait()
            try:
                sync(repo)
            except BaseException as exc:  # checked in the main thread
                failures.append(exc)

        threads = []
        for i, clone in enumerate(clones):
            # each teammate reviews a proposal on a different commit, and some on the same one
            _receipt(clone, f"mate{i}-round{round_no}", commit=f"HEAD~{i % 3}")
            expected.add(f"mate{i}-round{round_no}")
            threads.append(threading.Thread(target=work, args=(clone,)))
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    assert failures == []
    assert _remote_lines(remote) == expected


def test_a_push_that_loses_a_race_waits_and_retries(remote: Path, tmp_path: Path) -> None:
    alice = _clone(remote, tmp_path / "alice")
    bob = _clone(remote, tmp_path / "bob")
    _receipt(bob, "bob-1")
    sync(bob)
    _receipt(bob, "bob-2")  # bob's next notes commit waits on the remote, not yet on its ref
    git(bob, "push", "-q", str(remote), f"{REF}:refs/hidden/next")
    # The remote's hook lets bob's commit win the race against alice's first push only.
    hook = remote / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\nif [ ! -e won ]; then touch won; "
        "env -u GIT_QUARANTINE_PATH git update-ref refs/notes/hippo/receipts refs/hidden/next; fi\n"
    )
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    _receipt(alice, "alice-1", commit="HEAD~1")
    waits: list[float] = []
    result = sync_receipts(alice, "origin", sleep=waits.append, rng=_Highest())
    assert result.pushed and result.attempts == 2
    # one wait, as long as the first step allows: at least FIRST_WAIT (or what the attempt took)
    assert len(waits) == 1 and FIRST_WAIT <= waits[0] <= MAX_WAIT and result.waited == waits[0]
    assert _remote_lines(remote) == {"bob-1", "bob-2", "alice-1"}


def test_a_push_the_remote_refuses_is_not_retried(remote: Path, tmp_path: Path) -> None:
    alice = _clone(remote, tmp_path / "alice")
    hook = remote / "hooks" / "pre-receive"
    hook.write_text("#!/bin/sh\necho 'receipts are frozen' >&2\nexit 1\n")
    hook.chmod(hook.stat().st_mode | stat.S_IEXEC)
    _receipt(alice, "alice-1")
    waits: list[float] = []
    with pytest.raises(GitError, match="pre-receive hook declined"):
        sync_receipts(alice, "origin", sleep=waits.append)
    assert waits == []


def test_an_unreachable_remote_says_why(remote: Path, tmp_path: Path) -> None:
    alice = _clone(remote, tmp_path / "alice")
    missing = tmp_path / "gone.git"
    git(alice, "remote", "add", "broken", str(missing))
    proc = run_cli(["sync", "broken"], cwd=alice)
    assert proc.returncode == 1
    first = proc.stderr.splitlines()[0]
    assert first == (
        f"error: cannot reach remote 'broken' ({missing}): '{missing}' does not appear to be a git repository"
    )


def test_no_remote_at_all_says_so(tmp_path: Path) -> None:
    alone = make_repo(tmp_path / "alone")
    with pytest.raises(UsageError, match="^this repository has no remote to sync with$"):
        sync(alone)
    git(alone, "remote", "add", "a", str(tmp_path / "x.git"))
    git(alone, "remote", "add", "b", str(tmp_path / "y.git"))
    with pytest.raises(UsageError, match=r"several remotes \(a, b\) and none is named origin"):
        sync(alone)


def test_sync_sets_up_a_remote_added_after_init(remote: Path, tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "late")
    init_workspace(repo, install_hooks=False)
    git(repo, "remote", "add", "team", str(remote))

    def refspec_check() -> tuple[str, str]:
        [check] = [c for c in run_doctor(repo, probe=False).checks if c.name == "receipts fetched from team"]
        return check.status, check.fix

    status, fix = refspec_check()
    assert status == "red" and fix.startswith("git hippo sync team")
    _receipt(repo, "late-1")
    result = sync(repo)
    assert result.pushed and result.configured == [
        f"remote.team.fetch += +{REF}:refs/notes/hippo-remote/team/receipts"
    ]
    assert refspec_check()[0] == "green"
    assert sync(repo).configured == []
    # a plain `git fetch` now brings the team's receipts too
    git(repo, "fetch", "-q", "team")
    assert git(repo, "rev-parse", "refs/notes/hippo-remote/team/receipts") == git(repo, "rev-parse", REF)
