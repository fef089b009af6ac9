"""Benchmark: dreaming with an instant model, propose → applied, against a bare pygit2 loop.

Headline (issue 5): the real `hippo_git.dream.run.dream` orchestration with an in-process instant
model, over a workspace set up for it (500 generated notes committed, Claude Code transcripts
ingested into a real index, the shipped core pack): every chunk (one day, one session that reads
30 notes and tags each with one of the three `append` passes) runs every pass; the model proposes
one `append` per tagged note citing the tagging turn as evidence, and confirms every review. So
1,000 proposals go propose → validate → commit → review → receipt → apply (one apply per chunk).
The baseline, measured in the same run on an identical repository, is a bare pygit2 loop writing
one commit (advancing a branch) and one git note per proposal. Target: hippo's rate ≥ 0.3 of it.

Secondary lines: the git side alone (`ProposalBranch.commit` + `write_receipt` per proposal, then
one `apply_run`), the time of that one apply of 1,000 confirmed proposals as a plain
fast-forward, and the same apply when the target moved on meanwhile (every proposal replayed).

Rounds (`--repeat`, default 3) alternate the baseline and the dream, each on fresh repositories after
flushing the disk; the medians are compared (the disk of a shared machine is noisy).

Run:  /tmp/venv/bin/python bench/dream.py [--proposals 1000] [--notes 500] [--repeat 3] [--skip-git-only]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pygit2

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hippo_git.config import Config, load_config  # noqa: E402
from hippo_git.dream.apply import apply_run  # noqa: E402
from hippo_git.dream.prompt import parse_request  # noqa: E402
from hippo_git.dream.proposals import ProposalBranch  # noqa: E402
from hippo_git.dream.receipts import write_receipt  # noqa: E402
from hippo_git.dream.records import Proposal, Reviewer  # noqa: E402
from hippo_git.dream.run import DreamOptions, dream  # noqa: E402
from hippo_git.dream.runner import InProcessModel  # noqa: E402
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


# --- the real dream, with an instant in-process model ------------------------------------------------

APPEND_PASSES = ("core/facts", "core/decisions", "core/fixes")  # core/stale may only replace
PER_PASS = 10  # max_proposals of each core pass: one chunk yields 30 proposals
FIRST_DAY = datetime(2026, 1, 1, tzinfo=UTC)
_TAGGED = re.compile(r"^\[(?P<pass>[a-z]+/[a-z]+)\] (?P<note>n\d+):")


def touches(count: int, notes: int) -> list[list[tuple[str, int]]]:
    """Per day: (pass, note number) for each proposal the model will make that day."""
    per_day = PER_PASS * len(APPEND_PASSES)
    days: list[list[tuple[str, int]]] = []
    for t in range(count):
        if t % per_day == 0:
            days.append([])
        days[-1].append((APPEND_PASSES[(t % per_day) // PER_PASS], t % notes))
    return days


def dream_workspace(base: Path, count: int, notes: int) -> tuple[Config, datetime]:
    """A committed workspace with `notes` notes and one ingested session per day; returns (cfg, now)."""
    root = make_repo(base / "dream", notes)
    (root / ".hippo").mkdir()
    (root / ".hippo" / "hippo.toml").write_text(
        'notes_dir = "notes"\ntarget_branch = "main"\nmodel_command = ["instant"]\n'
        "[dream]\nmax_model_calls = 1000000\nmax_bytes = 2000000000\n"
    )
    (root / ".hippo" / ".gitignore").write_text(GITIGNORE)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hippo")
    cfg = load_config(root, env=dict(os.environ))
    project = base / "transcripts" / "project"
    project.mkdir(parents=True)
    days = touches(count, notes)
    for d, day in enumerate(days):
        turns: list[tuple[object, ...]] = []
        for pass_name, k in day:
            turns.append(("user", f"[{pass_name}] n{k:04d}: run `make target-{k}-{d}` before pushing."))
            turns.append(("read", f"notes/n{k:04d}.md"))
        turns.append(("assistant", "Noted."))
        when = (FIRST_DAY + timedelta(days=d)).strftime("%Y-%m-%d")
        (project / f"s{d:04d}.jsonl").write_text(claude_transcript(f"s{d:04d}", root, when, turns))
    ingest(cfg, root=base / "transcripts", harness="claude-code")
    return cfg, FIRST_DAY + timedelta(days=len(days))


def instant_answer(prompt: str) -> str:
    """Propose one `append` per turn tagged with the asking pass; confirm every review."""
    task = json.loads(prompt.split("\n", 1)[0].removeprefix("HIPPO-REQUEST ")).get("task")
    if task == "review":
        return '{"verdict": "confirm", "reason": "the cited turn says so"}'
    if task != "propose":
        return '{"lessons": []}'
    req = parse_request(prompt)
    shown = {b.meta["path"] for b in req.of_type("note")}
    found = []
    for turn in req.of_type("turn"):
        m = _TAGGED.match(turn.text)
        path = f"notes/{m['note']}.md" if m else ""
        if m and m["pass"] == req.header["pass"] and path in shown:
            found.append(
                {
                    "op": "append",
                    "path": path,
                    "new": f"- {turn.text.split(': ', 1)[1]} ({turn.meta['id']})",
                    "evidence": [turn.meta["id"]],
                    "rationale": "the session says so",
                }
            )
    return json.dumps({"proposals": found})


def dream_flow(cfg: Config, now: datetime, count: int) -> tuple[float, float]:
    """(seconds of the whole dream() call, seconds until its last chunk was applied)."""
    chunks_done: list[float] = []

    def on_chunk(done: int, total: int) -> None:
        if done == total:
            chunks_done.append(time.perf_counter())

    model = InProcessModel(("instant",), instant_answer)
    started = time.perf_counter()
    report = dream(
        cfg,
        DreamOptions(until=now),
        env=dict(os.environ),
        now=now,
        model=model,
        run_id="bench",
        on_chunk=on_chunk,
    )
    took = time.perf_counter() - started
    items = [i for c in report.chunks for p in c.passes for i in p.proposals]
    applied = sum(len(c.applied) for c in report.chunks)
    assert report.status == "complete", (report.status, report.stopped)
    assert len(items) == count and all(i.valid and i.verdict == "confirm" for i in items), (
        len(items),
        [i for i in items if not i.valid][:2],
    )
    assert applied == count, (applied, count)
    assert git(cfg.root, "status", "--porcelain") == ""
    return took, chunks_done[0] - started


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
    bare: list[float] = []
    dreams: list[tuple[float, float]] = []
    with tempfile.TemporaryDirectory(prefix="hippo-bench-dream-") as tmp:
        for r in range(max(1, args.repeat)):  # alternating, so a slow spell of the disk hits both
            base = Path(tmp) / f"round{r}"
            os.environ["HIPPO_HOME"] = str(base / "hippo-home")  # the index and model runs stay in here
            cfg, now = dream_workspace(base, n, args.notes)
            repo = make_repo(base / "bare", args.notes)
            settled()
            bare.append(bare_loop(repo, items))
            settled()
            dreams.append(dream_flow(cfg, now, n))
        if not args.skip_git_only:
            settled()
            flow_s, apply_s = hippo_flow(make_repo(Path(tmp) / "hippo", args.notes), items)
            settled()
            replay_s = moved_apply(make_repo(Path(tmp) / "moved", args.notes), items)
    bare_s = statistics.median(bare)
    dream_s = statistics.median(d for d, _ in dreams)
    tail_s = statistics.median(d - c for d, c in dreams)
    bare_rate = n / bare_s
    dream_rate = n / dream_s
    days = len(touches(n, args.notes))
    rounds = f"median of {len(bare)} rounds" if len(bare) > 1 else "one round"
    print(f"proposals: {n} over {args.notes} notes ({days} chunks × 4 core passes, instant model; {rounds})")
    print(
        f"bare pygit2 loop (commit + note each): {bare_s:.2f} s → {bare_rate:.0f} proposals/s   {_each(bare)}"
    )
    print(
        f"dream() propose → validate → commit → review → receipt → apply: {dream_s:.2f} s → "
        f"{dream_rate:.0f} proposals/s   {_each([d for d, _ in dreams])}"
    )
    print(f"  of which after the last chunk was applied (state, report, lessons scan): {tail_s:.2f} s")
    print(f"ratio dream / bare: {dream_rate / bare_rate:.2f}  (target ≥ 0.30)")
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
