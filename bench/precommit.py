"""Benchmark: what the pre-commit hook adds to `git commit` (issue 13: ≤ 50 ms with one staged note),
and the check on 100 staged notes in a 5,000-note repository (issue 6: < 300 ms).

Builds a repository of 5,000 linked notes (each links to two others; a few link to a title, a
folder path or a note that does not exist), commits it, sets it up with the real `git hippo init`
(which installs the git hooks), then modifies 100 notes (a new line with a [[link]] each; one of
them broken) and stages them. Every 50th note, so every staged one, also links to an unchanged note
by its title, which the check resolves with one extra `git grep` of title lines; `--no-title-links`
leaves those links out. Timed, each as a fresh process, median of `--runs` runs:

- `python -c pass`: the interpreter's own start, the floor of any Python hook;
- `python -m hippo_git hook pre-commit`: the check itself, as the installed hook runs it;
- `git commit --no-verify` and `git commit` (through the installed hook), each undone with
  `git reset --soft HEAD~1` so every run commits the same 100 staged notes;
- the same two commits with one staged note, run in turn (the headline: what the hook adds,
  target ≤ 50 ms, in wall time and in CPU time).

The one broken link planted among the staged notes must be reported by the check, or the script
stops: a fast check that finds nothing would be no result. The environment drops
PYTHONDONTWRITEBYTECODE, so Python caches bytecode as it does on a user's machine.

Run:  /tmp/venv/bin/python bench/precommit.py [--notes 5000] [--staged 100] [--runs 15] [--no-title-links]
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

LIMIT_MS = 300.0
ADDED_LIMIT_MS = 50.0  # what the hook may add to a commit of one staged note


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env)
    return done.stdout.strip()


def note_text(i: int, notes: int, title_links: bool) -> str:
    links = f"[[n{(i + 1) % notes:05d}]] and [[n{(i * 7 + 3) % notes:05d}]]"
    if title_links and i % 50 == 0:
        links += f", also [[Note {(i + 11) % notes}]] and [[topics/t{i % 10}]]"  # by title, by path
    front = f"---\ntitle: Note {i}\ntags: [bench, t{i % 10}]\n---\n" if i % 3 == 0 else ""
    body = "\n".join(f"Line {k} of note {i}: run `make target-{k}` before pushing." for k in range(8))
    return f"{front}# Note {i}\n\nSee {links}.\n\n{body}\n"


def make_repo(root: Path, notes: int, env: dict[str, str], title_links: bool) -> None:
    (root / "notes" / "topics").mkdir(parents=True)
    for i in range(notes):
        (root / "notes" / f"n{i:05d}.md").write_text(note_text(i, notes, title_links))
    for t in range(10):
        (root / "notes" / "topics" / f"t{t}.md").write_text(f"# Topic {t}\n\nBack to [[n{t:05d}]].\n")
    git(root, "init", "-q", "-b", "main", env=env)
    git(root, "add", "-A", env=env)
    git(root, "commit", "-q", "-m", "notes", env=env)
    done = subprocess.run(
        [sys.executable, "-m", "hippo_git", "init"], cwd=root, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"git hippo init failed: {done.stderr.strip()}")
    git(root, "add", "-A", env=env)
    git(root, "commit", "-q", "--no-verify", "-m", "hippo init", env=env)


def stage_one(root: Path, env: dict[str, str]) -> None:
    """Only one note staged: the others unstaged (kept in the work tree), one new line in n00001."""
    git(root, "reset", "-q", env=env)
    path = root / "notes" / "n00001.md"
    path.write_text(path.read_text() + "\nOne more thing: see [[n00002]].\n")
    git(root, "add", "--", "notes/n00001.md", env=env)


def stage_changes(root: Path, notes: int, staged: int, env: dict[str, str]) -> None:
    step = max(1, notes // staged)
    paths = []
    for n in range(staged):
        i = (n * step) % notes
        path = root / "notes" / f"n{i:05d}.md"
        target = "n99999-missing" if n == 0 else f"n{(i + 5) % notes:05d}"
        path.write_text(path.read_text() + f"\nLearned on day {n}: see [[{target}]].\n")
        paths.append(str(path.relative_to(root)))
    git(root, "add", "--", *paths, env=env)


def timed(
    argv: list[str], cwd: Path, env: dict[str, str], runs: int, after: list[str] | None = None
) -> list[float]:
    """Milliseconds of each run of `argv` (as a fresh process); `after` (a git command) undoes a run.
    The CPU milliseconds of the runs (theirs and their children's, which a busy machine inflates
    less than wall time) go to CPU_MS under the same argv."""
    out = []
    cpu = 0.0
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
        out.append((time.perf_counter() - started) * 1000)
        used = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu += (used.ru_utime - before.ru_utime + used.ru_stime - before.ru_stime) * 1000
        if done.returncode != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({done.returncode}): {done.stderr.strip()[-500:]}")
        if after:
            git(cwd, *after, env=env)
    CPU_MS[" ".join(argv)] = cpu / runs
    return out


CPU_MS: dict[str, float] = {}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--notes", type=int, default=5000)
    parser.add_argument("--staged", type=int, default=100)
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument(
        "--title-links",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="staged notes link to unchanged notes by title (the check then also greps title lines)",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="hippo-bench-precommit-") as tmp:
        base = Path(tmp)
        env = {
            k: v for k, v in os.environ.items() if not k.startswith("GIT_") and k != "PYTHONDONTWRITEBYTECODE"
        }
        env |= {
            "HOME": str(base / "home"),
            "HIPPO_HOME": str(base / "hippo-home"),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": "bench",
            "GIT_AUTHOR_EMAIL": "bench@example.com",
            "GIT_COMMITTER_NAME": "bench",
            "GIT_COMMITTER_EMAIL": "bench@example.com",
        }
        (base / "home").mkdir()
        root = base / "repo"
        root.mkdir()
        make_repo(root, args.notes, env, args.title_links)
        stage_changes(root, args.notes, args.staged, env)
        check = subprocess.run(
            [sys.executable, "-m", "hippo_git", "hook", "pre-commit"],
            cwd=root,
            env=env,
            capture_output=True,
            text=True,
        )
        warned = [line for line in check.stderr.splitlines() if "warning" in line]
        if not any("broken link [[n99999-missing]]" in line for line in warned):
            raise SystemExit(f"the planted broken link was not reported: {check.stderr.strip()[-500:]}")
        py = sys.executable
        undo = ["reset", "-q", "--soft", "HEAD~1"]
        rows = [
            ("python -c pass", timed([py, "-c", "pass"], root, env, args.runs)),
            (
                "python -m hippo_git hook pre-commit",
                timed([py, "-m", "hippo_git", "hook", "pre-commit"], root, env, args.runs),
            ),
            (
                "git commit --no-verify",
                timed(["git", "commit", "-q", "--no-verify", "-m", "b"], root, env, args.runs, undo),
            ),
            (
                "git commit (through the hook)",
                timed(["git", "commit", "-q", "-m", "b"], root, env, args.runs, undo),
            ),
        ]
        stage_one(root, env)
        # One run of each in turn, so a load that comes and goes weighs on both alike.
        plain: list[float] = []
        hooked: list[float] = []
        plain_cpu = hooked_cpu = 0.0
        for _ in range(args.runs):
            plain += timed(["git", "commit", "-q", "--no-verify", "-m", "b"], root, env, 1, undo)
            plain_cpu += CPU_MS["git commit -q --no-verify -m b"] / args.runs
            hooked += timed(["git", "commit", "-q", "-m", "b"], root, env, 1, undo)
            hooked_cpu += CPU_MS["git commit -q -m b"] / args.runs
        CPU_MS["git commit -q --no-verify -m b"], CPU_MS["git commit -q -m b"] = plain_cpu, hooked_cpu
        rows += [
            ("one note: git commit --no-verify", plain),
            ("one note: git commit (through the hook)", hooked),
        ]
    med = {name: statistics.median(values) for name, values in rows}
    links = "each linking to an unchanged note by title" if args.title_links else "linking by name only"
    print(f"{args.staged} staged notes ({links}) in a {args.notes}-note repository")
    print(f"median of {args.runs} runs (min–max):")
    for name, values in rows:
        print(f"  {name:40s} {med[name]:7.1f} ms  ({min(values):.0f}–{max(values):.0f})")
    hook = med["python -m hippo_git hook pre-commit"]
    over = med["git commit (through the hook)"] - med["git commit --no-verify"]
    print(f"the check beyond the interpreter's start: {hook - med['python -c pass']:.1f} ms")
    print(f"what the hook adds to git commit:        {over:.1f} ms")
    verdict = "under" if hook < LIMIT_MS else "OVER"
    print(f"pre-commit check: {hook:.1f} ms, {verdict} the {LIMIT_MS:.0f} ms target")
    print(
        f"(the check exited {check.returncode} with {len(warned)} warning line(s), the planted broken link among them)"
    )
    added = med["one note: git commit (through the hook)"] - med["one note: git commit --no-verify"]
    added_cpu = CPU_MS["git commit -q -m b"] - CPU_MS["git commit -q --no-verify -m b"]
    verdict = "met" if added_cpu <= ADDED_LIMIT_MS else "missed"
    print(
        f"one staged note: the hook adds {added_cpu:.1f} ms of CPU time to git commit (mean; "
        f"target ≤ {ADDED_LIMIT_MS:.0f} ms: {verdict}; a busy machine inflates wall time more than CPU time)"
    )
    verdict = "met" if added <= ADDED_LIMIT_MS else "missed"
    print(
        f"one staged note: the hook adds {added:.1f} ms to git commit (target ≤ {ADDED_LIMIT_MS:.0f} ms: {verdict})"
    )


if __name__ == "__main__":
    main()
