"""Benchmark: wall time of a cold `git hippo context --task …` process in a big workspace.

Builds a repository with 5,000 generated, linked notes (and a few hundred session records),
then times fresh `python -m hippo_git context --task …` processes against a bare
`python -c pass` of the same interpreter, interleaved in the same run. The notes index is built
by one warm-up run first (reported separately): agents start sessions in workspaces whose
index already exists, and later runs refresh it incrementally. Target: under 100 ms median.

    python bench/context.py [--notes 5000] [--runs 21] [--index PATH] [--keep DIR] [--json]

`--index PATH` links the transcript index of `bench/ingest.py` into the benchmark's
HIPPO_HOME, so `brief` (timed too, with `--brief`) searches a realistically large index.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

_WORD_TEXT = (
    "deploy canary rollback migration schema index cache redis postgres queue worker retry backoff "
    "invoice payment refund webhook signature token session login oauth permission role audit log "
    "metric alert dashboard latency throughput budget quota limit tenant org customer account plan "
    "subscription renewal proration tax currency rounding export import report pdf email template "
    "locale translation feature flag experiment release tag changelog build test fixture flaky mock "
    "lint format type check review ownership runbook incident postmortem backup restore replica"
)
WORDS = _WORD_TEXT.split()
TASKS = [
    "fix the flaky login test in CI",
    "add a retry with backoff to the webhook worker",
    "rotate the payment provider token",
    "speed up the invoice export for large tenants",
    "write a runbook for restoring a replica",
]


def _note(rnd: random.Random, i: int, total: int, folders: int) -> tuple[str, str]:
    folder = f"area-{i % folders:02d}"
    topic = " ".join(rnd.sample(WORDS, 3))
    links = [f"[[note-{rnd.randrange(total):05d}]]" for _ in range(rnd.randint(2, 5))]
    links.append(f"[[{folder}/hub]]")
    paragraphs = [
        " ".join(rnd.choices(WORDS, k=rnd.randint(40, 120))) + "." for _ in range(rnd.randint(2, 5))
    ]
    text = (
        f"---\ntitle: Note {i:05d} {topic}\ntags: [{', '.join(rnd.sample(WORDS, 2))}]\nstatus: current\n---\n"
        f"# {topic.title()}\n\n" + "\n\n".join(paragraphs) + "\n\nSee " + ", ".join(links) + ".\n"
    )
    return f"notes/{folder}/note-{i:05d}.md", text


def build_workspace(root: Path, notes: int, records: int, seed: int = 11) -> Path:
    rnd = random.Random(seed)
    repo = root / "repo"
    repo.mkdir(parents=True)
    folders = max(1, notes // 100)
    for i in range(notes):
        rel, text = _note(rnd, i, notes, folders)
        path = repo / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    for f in range(folders):
        members = " ".join(f"[[note-{i:05d}]]" for i in range(f, notes, folders)[:20])
        (repo / f"notes/area-{f:02d}/hub.md").write_text(f"# Area {f:02d}\n{members}\n", encoding="utf-8")
    hubs = "\n".join(f"- [[area-{f:02d}/hub]]" for f in range(folders))
    (repo / "notes/index.md").write_text(f"---\ntitle: Index\n---\n# Index\n{hubs}\n", encoding="utf-8")
    (repo / "notes/conventions.md").write_text(
        "# Conventions\nType hints, ruff, tests first. See [[note-00001]] and [[note-00002]].\n",
        encoding="utf-8",
    )
    (repo / ".hippo").mkdir()
    (repo / ".hippo/hippo.toml").write_text('[context]\nrequired = ["conventions.md"]\nbudget_bytes = 9000\n')
    sessions = repo / ".hippo/sessions"
    sessions.mkdir()
    for n in range(records):
        sid = f"claude-code~bench-{n:05d}"
        record = {
            "version": 1,
            "kind": "derived",
            "id": sid.replace("~", "/"),
            "harness": "claude-code",
            "started": f"2026-01-{1 + n % 28:02d}T10:00:00Z",
            "ended": f"2026-01-{1 + n % 28:02d}T11:00:00Z",
            "cwd": str(repo),
            "title": f"session {n}",
            "task": rnd.choice(TASKS),
            "notes_touched": [],
            "files_edited": [],
            "handoff": f"continue with [[note-{rnd.randrange(notes):05d}]]" if n % 5 == 0 else None,
            "turns": 10,
            "context_bytes": None,
            "prompts": [],
        }
        (sessions / f"{sid}.json").write_text(json.dumps(record), encoding="utf-8")
    env = _env(root)
    for args in (["init", "-q", "-b", "main"], ["add", "-A"], ["commit", "-q", "-m", "notes"]):
        subprocess.run(["git", *args], cwd=repo, check=True, env=env)
    return repo


def _env(root: Path) -> dict[str, str]:
    env = {
        k: v for k, v in os.environ.items() if not k.startswith(("GIT_", "HIPPO_", "PYTHONDONTWRITEBYTECODE"))
    }
    env.update(
        # Installed packages have compiled bytecode; keep ours in the benchmark's folder.
        PYTHONPYCACHEPREFIX=str(root / "pycache"),
        HOME=str(root / "home"),
        HIPPO_HOME=str(root / "hippo-home"),
        GIT_AUTHOR_NAME="Bench",
        GIT_AUTHOR_EMAIL="bench@example.com",
        GIT_COMMITTER_NAME="Bench",
        GIT_COMMITTER_EMAIL="bench@example.com",
        GIT_CONFIG_NOSYSTEM="1",
        GIT_CONFIG_GLOBAL=os.devnull,
    )
    return env


def _time(argv: list[str], cwd: Path, env: dict[str, str]) -> float:
    started = time.perf_counter()
    proc = subprocess.run(argv, cwd=cwd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    if proc.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {proc.stderr.decode()[-2000:]}")
    return elapsed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--notes", type=int, default=5000)
    parser.add_argument("--records", type=int, default=300, help="session records in .hippo/sessions")
    parser.add_argument("--runs", type=int, default=21)
    parser.add_argument("--index", type=Path, help="a transcript index (from bench/ingest.py) to link in")
    parser.add_argument(
        "--brief", action="store_true", help="also time `brief` (needs --index to be meaningful)"
    )
    parser.add_argument("--keep", type=Path, help="build the workspace in this folder and keep it")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()

    root = args.keep or Path(tempfile.mkdtemp(prefix="hippo-bench-context-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        repo = build_workspace(root, args.notes, args.records)
        built = time.perf_counter() - t0
        env = _env(root)
        if args.index:
            home = root / "hippo-home"
            home.mkdir(parents=True, exist_ok=True)
            (home / "index.sqlite").symlink_to(args.index.resolve())
        py = sys.executable
        context = [py, "-m", "hippo_git", "context", "--task"]
        first = _time([*context, TASKS[0]], repo, env)  # builds the notes index
        for _ in range(2):
            _time([*context, TASKS[0]], repo, env)
        bare: list[float] = []
        ctx: list[float] = []
        for n in range(args.runs):
            bare.append(_time([py, "-c", "pass"], repo, env))
            ctx.append(_time([*context, TASKS[n % len(TASKS)]], repo, env))
        # One incremental refresh: ten notes changed since the last run.
        for i in range(10):
            path = repo / f"notes/area-{i:02d}/note-{i:05d}.md"
            path.write_text(path.read_text() + "\nEdited for the benchmark.\n")
            os.utime(path, (time.time() - 10, time.time() - 10))
        incremental = _time([*context, TASKS[1]], repo, env)
        brief: list[float] = []
        if args.brief:
            for n in range(max(3, args.runs // 4)):
                brief.append(_time([py, "-m", "hippo_git", "brief", TASKS[n % len(TASKS)]], repo, env))
        report = {
            "notes": args.notes + args.notes // 100 + 2,
            "records": args.records,
            "index": str(args.index) if args.index else None,
            "runs": args.runs,
            "workspace_build_s": round(built, 2),
            "first_context_ms": round(first * 1000, 1),
            "bare_python_median_ms": round(statistics.median(bare) * 1000, 1),
            "context_median_ms": round(statistics.median(ctx) * 1000, 1),
            "context_minus_bare_ms": round((statistics.median(ctx) - statistics.median(bare)) * 1000, 1),
            "context_over_bare": round(statistics.median(ctx) / statistics.median(bare), 2),
            "context_after_10_edits_ms": round(incremental * 1000, 1),
            "brief_median_ms": round(statistics.median(brief) * 1000, 1) if brief else None,
            "target_ms": 100,
        }
        report["meets_target"] = report["context_median_ms"] < 100
        if args.json:
            print(json.dumps(report, indent=2))
        else:
            for key, value in report.items():
                print(f"{key:28} {value}")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
