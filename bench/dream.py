"""Benchmark: the git side of dreaming, commit → receipt → applied, against a bare pygit2 loop.

With an instant scripted flow (no model): 1,000 `append` proposals over 500 generated notes go
through `ProposalBranch.commit` (one commit each on the proposals branch, by compare-and-swap),
`write_receipt` (one confirming receipt line each, in refs/notes/hippo/receipts) and one
`apply_run` (the typed gate + fast-forward of the checked-out target). The baseline, measured in
the same run on an identical repository, is a bare pygit2 loop writing one commit (advancing a
branch) and one git note per proposal. Target: hippo's rate ≥ 0.3 of the baseline's.

Also timed: one apply of the 1,000 confirmed proposals, on its own, as a plain fast-forward and
when the target moved on meanwhile (every proposal replayed).

Run:  /tmp/venv/bin/python bench/dream.py [--proposals 1000] [--notes 500]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hippo_git.config import load_config  # noqa: E402
from hippo_git.dream.apply import apply_run  # noqa: E402
from hippo_git.dream.proposals import ProposalBranch  # noqa: E402
from hippo_git.dream.receipts import write_receipt  # noqa: E402
from hippo_git.dream.records import Proposal, Reviewer  # noqa: E402
from hippo_git.git.objects import GitStore  # noqa: E402

REVIEWER = Reviewer(persona="core/skeptic", persona_sha256="0" * 64, argv=("scripted",))


def git(cwd: Path, *args: str) -> str:
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True).stdout.strip()


def make_repo(path: Path, notes: int) -> Path:
    (path / "notes").mkdir(parents=True)
    for i in range(notes):
        (path / "notes" / f"n{i:04d}.md").write_text(f"# Note {i}\n\nSome fact number {i}.\n")
    git(path, "init", "-q", "-b", "main")
    git(path, "add", "-A")
    git(path, "commit", "-q", "-m", "notes")
    return path


def proposals(count: int, notes: int) -> list[Proposal]:
    return [
        Proposal(
            op="append",
            path=f"notes/n{i % notes:04d}.md",
            new=f"- learned thing {i}: run `make target-{i}` before pushing.",
            evidence=(f"session-{i // 10}#{i % 10 + 1}",),
            rationale=f"turn {i % 10 + 1} of session {i // 10} shows it",
            pass_name="core/facts",
        )
        for i in range(count)
    ]


def hippo_flow(root: Path, items: list[Proposal]) -> tuple[float, float]:
    """(seconds for commit+receipt of every proposal, seconds for the one apply)."""
    started = time.perf_counter()
    store = GitStore(root)
    branch = ProposalBranch(root, "bench", base=store.ref_target("refs/heads/main"), store=store)
    for p in items:
        pc = branch.commit(p)
        write_receipt(root, pc.receipt("confirm", REVIEWER, reason="scripted"), store=store)
    committed = time.perf_counter()
    result = apply_run(root, load_config(root), "bench", store=store)
    done = time.perf_counter()
    assert len(result.applied) == len(items), (len(result.applied), result.refused[:3], result.stale[:3])
    assert git(root, "status", "--porcelain") == ""
    return committed - started, done - committed


def bare_loop(root: Path, items: list[Proposal]) -> float:
    """One commit (advancing a branch) and one note per proposal, with nothing else."""
    started = time.perf_counter()
    repo = pygit2.Repository(str(root))
    sig = pygit2.Signature("bench", "bench@example.com")
    parent = repo.head.target
    ref = "refs/heads/bare"
    repo.references.create(ref, parent)
    for p in items:
        commit = repo[parent]
        notes_tree = repo[commit.tree["notes"].id]
        old = notes_tree[p.path.split("/")[1]]
        text = repo[old.id].data + p.new.encode() + b"\n"
        inner = repo.TreeBuilder(notes_tree)
        inner.insert(p.path.split("/")[1], repo.create_blob(text), pygit2.enums.FileMode.BLOB)
        outer = repo.TreeBuilder(commit.tree)
        outer.insert("notes", inner.write(), pygit2.enums.FileMode.TREE)
        parent = repo.create_commit(ref, sig, sig, f"append {p.path}", outer.write(), [parent])
        repo.create_note('{"verdict":"confirm"}', sig, sig, str(parent), "refs/notes/bare")
    return time.perf_counter() - started


def moved_apply(root: Path, items: list[Proposal]) -> float:
    """Seconds for one apply when the target moved on after the proposals were made (all replayed)."""
    store = GitStore(root)
    branch = ProposalBranch(root, "moved", base=store.ref_target("refs/heads/main"), store=store)
    for p in items:
        write_receipt(root, branch.commit(p).receipt("confirm", REVIEWER), store=store)
    (root / "unrelated.txt").write_text("a teammate's commit\n")
    git(root, "add", "unrelated.txt")
    git(root, "commit", "-q", "-m", "teammate")
    started = time.perf_counter()
    result = apply_run(root, load_config(root), "moved", store=store)
    took = time.perf_counter() - started
    assert len(result.applied) == len(items) and all(a.replayed_from for a in result.applied)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--proposals", type=int, default=1000)
    parser.add_argument("--notes", type=int, default=500)
    args = parser.parse_args()
    os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.com")
    os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.com")
    items = proposals(args.proposals, args.notes)
    with tempfile.TemporaryDirectory(prefix="hippo-bench-dream-") as tmp:
        base = Path(tmp)
        bare_s = bare_loop(make_repo(base / "bare", args.notes), items)
        flow_s, apply_s = hippo_flow(make_repo(base / "hippo", args.notes), items)
        replay_s = moved_apply(make_repo(base / "moved", args.notes), items)
    n = len(items)
    hippo_rate = n / (flow_s + apply_s)
    bare_rate = n / bare_s
    print(f"proposals: {n} over {args.notes} notes")
    print(f"bare pygit2 loop (commit + note each): {bare_s:.2f} s  → {bare_rate:.0f} proposals/s")
    print(f"hippo commit → receipt:                {flow_s:.2f} s")
    print(f"hippo apply of {n} confirmed (fast-forward, checked out): {apply_s:.2f} s")
    print(f"hippo commit → receipt → applied:      {flow_s + apply_s:.2f} s  → {hippo_rate:.0f} proposals/s")
    print(f"ratio hippo / bare: {hippo_rate / bare_rate:.2f}  (target ≥ 0.30)")
    print(f"apply of {n} confirmed when the target moved on (all replayed): {replay_s:.2f} s")


if __name__ == "__main__":
    main()
