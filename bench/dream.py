"""Benchmark: `git hippo dream` as a user runs it, with the built-in offline model, against a bare pygit2 loop.

Headline (issue 13): one `git hippo dream --json` process (the console script, as a user types
it, no `model_command` configured and no `claude` on PATH, so the built-in offline model answers)
over a workspace set up for it: 500 generated notes committed, one Claude Code session per day
ingested into a real index, the shipped core pack. Each day's session reads 20 notes and says, per
note, a rule ("Always use …") or a correction ("No, use …") naming it; the built-in model turns each
into one `append` quoting it, and its review confirms it. So 1,000 proposals go propose → validate
→ commit → review → receipt → apply, and the same process then runs the lessons scan, as a user's
dream does. The baseline, measured in the same run on an identical repository, is a bare pygit2
loop writing one commit (advancing a branch) and one git note per proposal. Target: hippo's rate
≥ 0.3 of it; the script prints met or missed.

Secondary lines: the git side alone (`ProposalBranch.commit` + `write_receipt` per proposal, then
one `apply_run`), the time of that one apply of 1,000 confirmed proposals as a plain
fast-forward, and the same apply when the target moved on meanwhile (every proposal replayed).

Rounds (`--repeat`, default 3) alternate the baseline and the dream, each on fresh repositories after
flushing the disk; the medians are compared (the disk of a shared machine is noisy).

Run:  python bench/dream.py [--proposals 1000] [--notes 500] [--repeat 3] [--skip-git-only]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hippo_git.config import load_config  # noqa: E402
from hippo_git.dream.apply import apply_run  # noqa: E402
from hippo_git.dream.proposals import ProposalBranch  # noqa: E402
from hippo_git.dream.receipts import write_receipt  # noqa: E402
from hippo_git.dream.records import Proposal, Reviewer  # noqa: E402
from hippo_git.git.objects import GitStore  # noqa: E402
from hippo_git.signals.refresh import ingest  # noqa: E402
from tests.scripted_model import GITIGNORE, claude_transcript  # noqa: E402

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
        commit = repo[parent].peel(pygit2.Commit)
        notes_tree = repo[commit.tree["notes"].id].peel(pygit2.Tree)
        old = notes_tree[p.path.split("/")[1]]
        text = repo[old.id].peel(pygit2.Blob).data + p.new.encode() + b"\n"
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


# --- the real dream, as a user runs it: `git hippo dream` with the built-in offline model --------

RULES_PER_DAY = 10  # "Always use …" prompts: core/decisions (max_proposals 10)
CORRECTIONS_PER_DAY = 10  # "No, use …" prompts: core/facts (max_proposals 10)
PER_DAY = RULES_PER_DAY + CORRECTIONS_PER_DAY


def day_items(count: int, notes: int) -> list[list[tuple[str, int]]]:
    """Per day: ("rule" | "correction", note number) for each proposal the built-in model will make."""
    days: list[list[tuple[str, int]]] = []
    for t in range(count):
        if t % PER_DAY == 0:
            days.append([])
        days[-1].append(("rule" if t % PER_DAY < RULES_PER_DAY else "correction", t % notes))
    return days


def say_item(kind: str, k: int, d: int) -> str:
    """A prompt the built-in model turns into one append to note n<k>: the note's stem is its only
    word that other notes do not share, so the model picks that note."""
    if kind == "rule":
        return f"Always use `tk{k}x{d}` in n{k:04d}."
    return f"No, use `tk{k}y{d}` in n{k:04d}."


def dream_workspace(base: Path, count: int, notes: int, now: datetime) -> Path:
    """A committed workspace with `notes` notes and one ingested session per day up to `now`,
    set up as `git hippo init` leaves it (no model_command: the built-in model answers)."""
    root = make_repo(base / "dream", notes)
    (root / ".hippo").mkdir()
    (root / ".hippo" / "hippo.toml").write_text('notes_dir = "notes"\ntarget_branch = "main"\n')
    (root / ".hippo" / ".gitignore").write_text(GITIGNORE)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hippo")
    cfg = load_config(root, env=dict(os.environ))
    project = base / "transcripts" / "project"
    project.mkdir(parents=True)
    days = day_items(count, notes)
    first = (now - timedelta(days=len(days))).replace(hour=0, minute=0, second=0, microsecond=0)
    for d, day in enumerate(days):
        turns: list[tuple[object, ...]] = [("read", f"notes/n{k:04d}.md") for _, k in day]
        turns += [("user", say_item(kind, k, d)) for kind, k in day]
        turns.append(("assistant", "Noted."))
        when = (first + timedelta(days=d)).strftime("%Y-%m-%d")
        (project / f"s{d:04d}.jsonl").write_text(claude_transcript(f"s{d:04d}", root, when, turns))
    ingest(cfg, root=base / "transcripts", harness="claude-code")
    return root


def user_env() -> dict[str, str]:
    """The caller's environment with the venv's `git-hippo` first on PATH and no `claude` on it, and
    without PYTHONDONTWRITEBYTECODE (a user's Python caches bytecode)."""
    bin_dir = str(Path(sys.executable).parent)
    dirs = [
        d for d in os.environ.get("PATH", "").split(os.pathsep) if d and not shutil.which("claude", path=d)
    ]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    return {**env, "PATH": os.pathsep.join([bin_dir, *dirs])}


def dream_flow(root: Path, count: int) -> float:
    """Seconds of one `git hippo dream --json` process, checked: every proposal applied."""
    started = time.perf_counter()
    proc = subprocess.run(
        ["git", "hippo", "dream", "--json"], cwd=root, env=user_env(), capture_output=True, text=True
    )
    took = time.perf_counter() - started
    assert proc.returncode == 0, proc.stderr[-2000:]
    report = json.loads(proc.stdout)
    t = report["totals"]
    assert report["heuristic"] and report["status"] == "complete", (report["status"], report["stopped"])
    assert (t["proposals"], t["confirmed"], t["applied"]) == (count, count, count), t
    assert git(root, "status", "--porcelain") == ""
    return took


def settled() -> None:
    """Flush what setup wrote, so its writeback does not land inside the next timed section."""
    os.sync()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--proposals", type=int, default=1000)
    parser.add_argument("--notes", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=3, help="rounds of dream + baseline; medians are shown")
    parser.add_argument("--skip-git-only", action="store_true", help="only the dream and the baseline")
    args = parser.parse_args()
    os.environ.setdefault("GIT_AUTHOR_NAME", "bench")
    os.environ.setdefault("GIT_AUTHOR_EMAIL", "bench@example.com")
    os.environ.setdefault("GIT_COMMITTER_NAME", "bench")
    os.environ.setdefault("GIT_COMMITTER_EMAIL", "bench@example.com")
    items = proposals(args.proposals, args.notes)
    n = len(items)
    now = datetime.now(UTC)
    bare: list[float] = []
    dreams: list[float] = []
    with tempfile.TemporaryDirectory(prefix="hippo-bench-dream-") as tmp:
        for r in range(max(1, args.repeat)):  # alternating, so a slow spell of the disk hits both
            base = Path(tmp) / f"round{r}"
            os.environ["HIPPO_HOME"] = str(base / "hippo-home")  # the index and model runs stay in here
            root = dream_workspace(base, n, args.notes, now)
            repo = make_repo(base / "bare", args.notes)
            settled()
            bare.append(bare_loop(repo, items))
            settled()
            dreams.append(dream_flow(root, n))
        if not args.skip_git_only:
            settled()
            flow_s, apply_s = hippo_flow(make_repo(Path(tmp) / "hippo", args.notes), items)
            settled()
            replay_s = moved_apply(make_repo(Path(tmp) / "moved", args.notes), items)
    bare_s = statistics.median(bare)
    dream_s = statistics.median(dreams)
    bare_rate = n / bare_s
    dream_rate = n / dream_s
    ratio = dream_rate / bare_rate
    days = len(day_items(n, args.notes))
    rounds = f"median of {len(bare)} rounds" if len(bare) > 1 else "one round"
    print(f"proposals: {n} over {args.notes} notes ({days} daily sessions, built-in offline model; {rounds})")
    print(
        f"bare pygit2 loop (commit + note each): {bare_s:.2f} s → {bare_rate:.0f} proposals/s   {_each(bare)}"
    )
    print(
        f"`git hippo dream` process (propose → validate → commit → review → receipt → apply, then the "
        f"lessons scan): {dream_s:.2f} s → {dream_rate:.0f} proposals/s   {_each(dreams)}"
    )
    print(f"ratio dream / bare: {ratio:.2f}  (target ≥ 0.30: {'met' if ratio >= 0.3 else 'missed'})")
    if args.skip_git_only:
        return
    git_rate = n / (flow_s + apply_s)
    print("secondary, the git side alone (one round):")
    print(f"  commit → receipt:                       {flow_s:.2f} s")
    print(f"  apply of {n} confirmed (fast-forward, checked out): {apply_s:.2f} s")
    print(f"  commit → receipt → applied:             {flow_s + apply_s:.2f} s → {git_rate:.0f} proposals/s")
    print(f"  ratio git side / bare: {git_rate / bare_rate:.2f}")
    print(f"  apply of {n} confirmed when the target moved on (all replayed): {replay_s:.2f} s")


def _each(values: list[float]) -> str:
    return "(" + ", ".join(f"{v:.2f}" for v in values) + ")" if len(values) > 1 else ""


if __name__ == "__main__":
    main()
