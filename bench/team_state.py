"""Generates a large team's year of hippo memory for bench/team.py, with the project's own record code.

Proposals are `records.Proposal` values rendered by `proposals.render_change`, their commit messages
are `records.commit_message`, their patch-ids `GitStore.patch_id`, and every receipt is a
`records.Receipt` line, so what `verify` reads here is exactly what `git hippo dream` writes. Git
objects are written with `git fast-import` (two streams: the proposal commits, then the notes),
which is what makes 100,000 receipts a matter of seconds. Seeded: the same arguments give the same
repository.

Shape: `runs` dream runs of about `proposals / runs` one-note proposals each, every run branching
from `main` as it was; nine runs in ten are applied (main fast-forwards to the run), the tenth
stays confirmed but unapplied. A last run, `pr-<N>`, holds the `pr` proposals a pull request
would carry. Each proposal has `receipts / proposals` review receipts (a panel of reviewers), all
written in one notes commit per run, or in one notes commit per receipt with `single=True`.
"""

from __future__ import annotations

import hashlib
import random
import subprocess
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.dream.proposals import render_change
from hippo_git.dream.records import RECEIPTS_REF, Proposal, Receipt, Reviewer, commit_message
from hippo_git.git.objects import GitStore

T0 = 1_767_225_600  # 2026-01-01T00:00:00Z
AUTHORS = 50
REVIEWERS = [
    Reviewer(persona=f"core/reviewer-{j}", persona_sha256=f"{j:064x}", argv=("bench-model",))
    for j in range(100)
]


def blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


@dataclass
class Made:
    mark: int
    run: str
    proposal: Proposal
    before: str
    after: str
    sha: str = ""
    patch_id: str = ""


@dataclass
class TeamState:
    root: Path
    runs: list[str] = field(default_factory=list)
    pr_run: str = ""
    made: list[Made] = field(default_factory=list)
    receipts: int = 0
    notes_commits: int = 0


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env)
    return done.stdout.strip()


def _data(text: bytes) -> bytes:
    return b"data %d\n" % len(text) + text + b"\n"


def _who(i: int, ts: int) -> bytes:
    return f"Teammate {i % AUTHORS} <mate{i % AUTHORS}@example.com> {ts} +0000".encode()


def _proposal_stream(
    state: TeamState,
    notes: dict[str, bytes],
    base: str,
    runs: int,
    per_run: float,
    pr: int,
    rng: random.Random,
) -> Iterator[bytes]:
    paths = sorted(notes)
    main = base
    mark = 0
    done = 0.0
    for r in range(runs + 1):
        last = r == runs
        run_id = f"pr-{pr}" if last else f"2026-r{r:04d}"
        count = pr if last else int(done + per_run) - int(done)
        done += 0 if last else per_run
        overlay: dict[str, bytes] = {}
        parent = main
        for k in range(count):
            path = paths[rng.randrange(len(paths))]
            before = overlay.get(path, notes[path])
            proposal = Proposal(
                op="append",
                path=path,
                new=f"- Run {run_id} learnt fact {k}: use `make target-{rng.randrange(10_000)}` before pushing.",
                evidence=(f"sess-{r}-{k % 5}#{k + 1}",),
                rationale=f"turn {k + 1} of session sess-{r}-{k % 5} shows it",
                pass_name="core/facts",
            )
            after = render_change(before.decode(), proposal).encode()
            overlay[path] = after
            mark += 1
            state.made.append(Made(mark, run_id, proposal, blob_id(before), blob_id(after)))
            ts = T0 + r * 3600 + k
            message = commit_message(proposal, blob_id(before), run_id).encode()
            yield b"commit refs/heads/hippo/proposals/" + run_id.encode() + b"\n"
            yield b"mark :%d\nauthor %s\ncommitter %s\n" % (mark, _who(r, ts), _who(r, ts))
            yield _data(message)
            yield b"from " + parent.encode() + b"\n"
            yield b"M 100644 inline " + path.encode() + b"\n" + _data(after)
            parent = f":{mark}"
        state.runs.append(run_id)
        if not last and r % 10 != 9 and count:
            main = parent
            notes.update(overlay)
    state.pr_run = f"pr-{pr}"
    yield b"reset refs/heads/main\nfrom " + main.encode() + b"\n\n"


def _receipt_lines(state: TeamState, per: int) -> Iterator[tuple[str, str, str]]:
    """(run, proposal commit, receipt line) of every receipt, run by run."""
    for m in state.made:
        for j in range(per):
            yield (
                m.run,
                m.sha,
                Receipt(
                    kind="review",
                    proposal=m.proposal.id,
                    commit=m.sha,
                    verdict="confirm",
                    path=m.proposal.path,
                    before=m.before,
                    after=m.after,
                    patch_id=m.patch_id,
                    reviewer=REVIEWERS[j % len(REVIEWERS)],
                    time=f"2026-01-01T00:00:{j % 60:02d}Z",
                    reason="supported by the evidence",
                    run=m.run,
                ).line(),
            )


def _notes_stream(state: TeamState, per: int, single: bool) -> Iterator[bytes]:
    texts: dict[str, list[str]] = {}
    pending: dict[str, None] = {}
    current_run = ""
    commits = 0

    def flush(ts: int) -> Iterator[bytes]:
        nonlocal commits
        commits += 1
        yield b"commit " + RECEIPTS_REF.encode() + b"\ncommitter %s\n" % _who(commits, ts)
        yield _data(b"hippo: receipts")
        for sha in pending:
            yield b"N inline " + sha.encode() + b"\n" + _data(("\n".join(texts[sha]) + "\n").encode())
        yield b"\n"
        pending.clear()

    for i, (run, sha, line) in enumerate(_receipt_lines(state, per)):
        if pending and not single and run != current_run:
            yield from flush(T0 + i)
        current_run = run
        texts.setdefault(sha, []).append(line)
        pending[sha] = None
        state.receipts += 1
        if single:
            yield from flush(T0 + i)
    if pending:
        yield from flush(T0 + state.receipts)
    state.notes_commits = commits


def _fast_import(root: Path, chunks: Iterator[bytes], marks: Path | None = None) -> None:
    args = ["git", "fast-import", "--quiet", "--done"]
    if marks is not None:
        args.append(f"--export-marks={marks}")
    proc = subprocess.Popen(args, cwd=root, stdin=subprocess.PIPE)
    assert proc.stdin is not None
    buffer: list[bytes] = []
    size = 0
    for chunk in chunks:
        buffer.append(chunk)
        size += len(chunk)
        if size > 1 << 20:
            proc.stdin.write(b"".join(buffer))
            buffer, size = [], 0
    proc.stdin.write(b"".join(buffer) + b"done\n")
    proc.stdin.close()
    if proc.wait() != 0:
        raise SystemExit("git fast-import failed")


def generate(
    root: Path,
    *,
    proposals: int,
    runs: int,
    receipts: int,
    pr: int = 200,
    notes: int = 200,
    single: bool = False,
    seed: int = 20,
) -> TeamState:
    """A repository at `root` holding the generated year (see the module docstring)."""
    from hippo_git.team.setup import init_workspace

    rng = random.Random(seed)
    root.mkdir(parents=True)
    git(root, "init", "-q", "-b", "main")
    texts = {
        f"notes/topic-{i:03d}.md": f"# Topic {i}\n\nWhat we know about topic {i}.\n".encode()
        for i in range(notes)
    }
    for path, data in texts.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    init_workspace(root, install_hooks=False)
    texts["notes/index.md"] = (root / "notes/index.md").read_bytes()
    git(root, "add", "-A")
    git(root, "-c", "user.name=Seed", "-c", "user.email=seed@example.com", "commit", "-q", "-m", "notes")
    state = TeamState(root)
    base = git(root, "rev-parse", "HEAD")
    marks = root / ".git" / "bench-marks"
    per_run = (proposals - pr) / runs
    _fast_import(root, _proposal_stream(state, texts, base, runs, per_run, pr, rng), marks)
    by_mark = dict(line.split() for line in marks.read_text().splitlines())
    store = GitStore(root)
    for m in state.made:
        m.sha = by_mark[f":{m.mark}"]
        m.patch_id = store.patch_id(m.sha)
    per = max(1, receipts // max(1, len(state.made)))
    _fast_import(root, _notes_stream(state, per, single))
    git(root, "checkout", "-q", "-f", "main")
    return state
