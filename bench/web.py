"""Benchmark: how long each page of `git hippo serve` takes, in a big workspace.

Builds a repository with 5,000 linked notes, 1,000 memories (a few contradicting), 100 dream runs (5 proposal commits each, with their
receipts, made with the project's own record code) and a transcript index of about 1 GB, warms the
rollup once (a person's first visit pays that, once), then starts the real server and times every
page over HTTP, interleaved, against the stylesheet (a static file: the server's own floor) in the
same run. Target: each page p50 ≤ 200 ms.

The index, by `--index`:
- real (the default): the real Claude Code and Codex samples of ../shared/corpora/transcripts
  replayed with fresh session ids (bench/ingest.py's corpus builder), ingested by the project's own
  ingest in batches until the index reaches --index-mb (about 4 GB of transcripts per GB of index);
  their sessions are then placed in the bench workspace (cwd) so the session pages list them.
- synthetic: sessions and turns written straight into the real schema from a 100-word vocabulary,
  so every search word matches a large share of all rows (a worst case for search, not a
  realistic one).

    python bench/web.py [--index real|synthetic] [--notes 5000] [--memories 1000] [--runs 100] [--index-mb 1024]
                        [--requests 15] [--keep DIR] [--json]
"""

from __future__ import annotations

import argparse
import json
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

WORDS = [
    "deploy",
    "canary",
    "rollback",
    "migration",
    "schema",
    "index",
    "cache",
    "redis",
    "postgres",
    "queue",
    "worker",
    "retry",
    "backoff",
    "invoice",
    "payment",
    "refund",
    "webhook",
    "signature",
    "token",
    "session",
    "login",
    "oauth",
    "permission",
    "role",
    "audit",
    "log",
    "metric",
    "alert",
    "dashboard",
    "latency",
    "throughput",
    "budget",
    "quota",
    "limit",
    "tenant",
    "customer",
    "account",
    "plan",
    "subscription",
    "renewal",
    "export",
    "import",
    "report",
    "email",
    "template",
    "locale",
    "feature",
    "flag",
    "experiment",
    "release",
    "tag",
    "changelog",
    "build",
    "test",
    "fixture",
    "flaky",
    "lint",
    "format",
    "review",
    "ownership",
    "runbook",
    "incident",
    "postmortem",
    "backup",
    "restore",
    "replica",
]
TARGET_MS = 200.0


def git(cwd: Path, *args: str, stdin: str | None = None) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "Bench", "GIT_AUTHOR_EMAIL": "b@example.com",
           "GIT_COMMITTER_NAME": "Bench", "GIT_COMMITTER_EMAIL": "b@example.com"}  # fmt: skip
    return subprocess.run(
        ["git", *args], cwd=cwd, env=env, check=True, capture_output=True, text=True, input=stdin
    ).stdout


def words(rng: random.Random, n: int) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n))


def make_notes(repo: Path, n: int, rng: random.Random) -> None:
    notes = repo / "notes"
    for i in range(n):
        links = " ".join(f"[[note-{rng.randrange(n)}]]" for _ in range(3))
        (notes / f"note-{i}.md").write_text(
            f"# Note {i} {words(rng, 3)}\n\n{words(rng, 60)}\n\nSee {links}.\n"
        )
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{n} notes")


def make_memories(repo: Path, n: int, rng: random.Random) -> None:
    """`n` memories as a person's `remember` writes them (committed), a few of them contradicting
    each other so the conflicts page has work."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.memories import _write_memories

    texts = [f"{words(rng, 12)} (case {i})" for i in range(n - 20)]
    for k in range(10):  # same subject, changed value: what conflict detection looks for
        texts += [
            f"The service-{k} deploy uses port {8000 + k}",
            f"The service-{k} deploy uses port {9000 + k}",
        ]
    _write_memories(repo, texts)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", f"{n} memories")


def make_runs(repo: Path, runs: int, rng: random.Random) -> None:
    """Proposal commits with trailers and confirming receipts, as a dream writes them."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from hippo_git.dream.receipts import write_receipts
    from hippo_git.dream.records import Proposal, Receipt, Reviewer, commit_message
    from hippo_git.git.objects import GitStore

    store = GitStore(repo)
    tip = store.ref_target("refs/heads/main")
    assert tip is not None
    reviewer = Reviewer(persona="core/reviewer", persona_sha256="0" * 64, argv=("bench",), heuristic=True)
    for r in range(runs):
        run_id = f"20260101-{r:06d}-beef"
        parent = tip
        entries: list[tuple[Receipt, str | None]] = []
        for k in range(5):
            path = f"notes/note-{rng.randrange(50)}.md"
            before = store.blob_at(parent, path)
            old = store.read_blob(before).decode()
            new = f'- Fix: "{words(rng, 8)}" ({run_id}-s#{k})\n'
            proposal = Proposal(
                op="append", path=path, new=new, evidence=(f"s{r}#{k}",), pass_name="core/fixes"
            )
            blob = store.write_blob((old + new).encode())
            commit = store.write_commit(
                store.tree_with(parent, path, blob), [parent], commit_message(proposal, before, run_id)
            )
            receipt = Receipt(kind="review", proposal=proposal.id, commit=commit, verdict="confirm", path=path,
                              before=before, after=blob, patch_id=store.patch_id(commit), reviewer=reviewer,
                              time="2026-01-01T00:00:00Z", reason="bench", run=run_id)  # fmt: skip
            entries.append((receipt, None))
            parent = commit
        store.cas_ref(f"refs/heads/hippo/proposals/{run_id}", parent, None, "bench run")
        write_receipts(repo, entries, store=store)


def make_index(path: Path, megabytes: int, cwd: str, rng: random.Random) -> int:
    """Sessions and turns in the real schema (migrations from the project), FTS included."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from hippo_git.index import db

    conn = db.connect(path)
    conn.execute("PRAGMA synchronous=OFF")
    turn_id, sessions = 0, 0
    kinds = ["prompt", "answer", "tool_call", "tool_output"]
    while path.stat().st_size < megabytes * 1024 * 1024:
        with conn:
            for _ in range(200):
                sid = f"bench-{sessions:07d}"
                day = f"2026-{1 + sessions % 12:02d}-{1 + sessions % 28:02d}"
                conn.execute(
                    "INSERT INTO sessions(id, harness, cwd, title, started, ended, turns) VALUES (?,?,?,?,?,?,?)",
                    (sid, "claude-code", cwd, words(rng, 6), f"{day}T10:00:00", f"{day}T11:00:00", 40),
                )
                rows = [
                    (turn_id + i, sid, i, kinds[i % 4], words(rng, 80), f"{day}T10:{i:02d}:00")
                    for i in range(40)
                ]
                conn.executemany(
                    "INSERT INTO turns(id, session_id, seq, kind, text, ts) VALUES (?,?,?,?,?,?)", rows
                )
                conn.execute(
                    "INSERT INTO turns_fts(rowid, text) SELECT id, text FROM turns WHERE id >= ?", (turn_id,)
                )
                turn_id += 40
                sessions += 1
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return sessions


def make_real_index(base: Path, home: Path, repo: Path, megabytes: int) -> int:
    """The replayed real transcripts, ingested batch by batch until the index is `megabytes` big."""
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from bench.ingest import PARTS, build_corpus
    from hippo_git.config import Config
    from hippo_git.index import db
    from hippo_git.index.ingest import ingest

    index = home / "index.sqlite"
    roots: dict[str, list[str]] = {"claude-code": [], "codex": []}
    batch, batch_mb = 0, min(400, max(10, megabytes * 2))  # ~4 MB of transcript per MB of index
    while not index.exists() or index.stat().st_size < megabytes * 1024 * 1024:
        folder = base / "corpus" / f"batch-{batch}"
        build_corpus(folder, batch_mb, batch_mb * 10, seed=100 + batch)  # a new seed: new session ids
        for i in range(PARTS):
            roots["claude-code"].append(str(folder / f"part-{i}" / "claude"))
            roots["codex"].append(str(folder / f"part-{i}" / "codex"))
        cfg = Config(root=repo, home=home, transcript_roots={k: tuple(v) for k, v in roots.items()})
        ingest(cfg, records=False)
        batch += 1
        print(f"  index batch {batch}: {index.stat().st_size / 1e6:.0f} MB", file=sys.stderr)
    conn = db.connect(index)
    with conn:
        conn.execute("UPDATE sessions SET cwd = ?", (str(repo),))
    sessions = int(conn.execute("SELECT count(*) FROM sessions").fetchone()[0])
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()
    return sessions


def first_session(index: Path) -> str:
    import sqlite3

    conn = sqlite3.connect(f"file:{index}?mode=ro", uri=True)
    try:
        row = conn.execute("SELECT id FROM sessions ORDER BY started, id LIMIT 1 OFFSET 1").fetchone()
    finally:
        conn.close()
    return str(row[0])


def timed_get(opener: urllib.request.OpenerDirector, url: str) -> float:
    started = time.perf_counter()
    with opener.open(url) as response:
        response.read()
        assert response.status == 200, url
    return (time.perf_counter() - started) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--index", choices=["real", "synthetic"], default="real")
    ap.add_argument("--notes", type=int, default=5000)
    ap.add_argument("--runs", type=int, default=100)
    ap.add_argument("--memories", type=int, default=1000)
    ap.add_argument("--index-mb", type=int, default=1024)
    ap.add_argument("--requests", type=int, default=15)
    ap.add_argument("--keep", type=Path)
    ap.add_argument("--json", action="store_true")
    ap.add_argument(
        "--build-only", action="store_true", help="build the workspace (use with --keep), time nothing"
    )
    args = ap.parse_args()
    rng = random.Random(7)
    base = Path(tempfile.mkdtemp(prefix="hippo-bench-web-")) if args.keep is None else args.keep
    repo, home = base / "ws", base / "home"
    os.environ["HIPPO_HOME"] = str(home)
    home.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    if not (repo / ".hippo").is_dir():
        repo.mkdir(parents=True)
        git(repo, "init", "-q", "-b", "main")
        subprocess.run([sys.executable, "-m", "hippo_git", "init"], cwd=repo, check=True, capture_output=True)
        make_notes(repo, args.notes, rng)
        make_runs(repo, args.runs, rng)
    memories = repo / "notes" / "memories"
    if not memories.is_dir():  # also for a workspace kept from before memories were timed
        make_memories(repo, args.memories, rng)  # its id is picked below, from the files
    kept = sorted(memories.glob("*.md"))
    memory = kept[len(kept) // 2].stem
    if not (home / "index.sqlite").exists():
        if args.index == "real":
            sessions = make_real_index(base, home, repo, args.index_mb)
        else:
            sessions = make_index(home / "index.sqlite", args.index_mb, str(repo), rng)
    else:
        sessions = -1
    build_s = time.perf_counter() - t0
    if args.build_only:
        print(f"built in {build_s:.0f} s: {base}", file=sys.stderr)
        return 0
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from hippo_git.config import load_config
    from hippo_git.signals.rollup import update_rollup
    from hippo_git.web.serve import start

    cfg = load_config(repo)
    t1 = time.perf_counter()
    update_rollup(cfg)
    rollup_s = time.perf_counter() - t1
    server = start(cfg)
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    opener.open(server.url).read()
    root = f"http://127.0.0.1:{server.port}"
    run = git(repo, "for-each-ref", "--format=%(refname:lstrip=4)", "refs/heads/hippo/proposals").split()[-1]
    session = first_session(home / "index.sqlite")
    query = "flaky+webhook" if session.startswith("bench-") else "failing+test"
    pages = ["/", "/notes", "/notes/notes/note-7.md", "/runs", f"/runs/{run}", "/sessions",
             f"/sessions/{session}", "/incidents", "/lessons", "/fleet", "/doctor", f"/search?q={query}",
             "/memories", f"/memories/{memory}", "/conflicts"]  # fmt: skip
    floor = "/static/style.css"
    times: dict[str, list[float]] = {p: [] for p in [floor, *pages]}
    for p in times:  # one warm-up each (caches a person's first visit fills)
        timed_get(opener, root + p)
    for _ in range(args.requests):
        for p in times:
            times[p].append(timed_get(opener, root + p))
    server.stop()
    result = {
        "index": args.index,
        "notes": args.notes,
        "runs": args.runs,
        "index_bytes": (home / "index.sqlite").stat().st_size,
        "sessions": sessions,
        "build_seconds": round(build_s, 1),
        "first_rollup_seconds": round(rollup_s, 1),
        "static_file_p50_ms": round(statistics.median(times[floor]), 2),
        "pages": {
            p: {
                "p50_ms": round(statistics.median(t), 1),
                "p95_ms": round(
                    sorted(t)[math.ceil(0.95 * (len(t) - 1))], 1
                ),  # nearest rank, never below p50
                "x_static": round(statistics.median(t) / statistics.median(times[floor]), 1),
            }
            for p, t in times.items()
            if p != floor
        },
    }
    result["met"] = all(v["p50_ms"] <= TARGET_MS for v in result["pages"].values())  # type: ignore[attr-defined]
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        print(f"workspace: {args.notes} notes, {args.runs} runs, {args.index} index {result['index_bytes'] / 1e9:.2f} GB "
              f"(built in {build_s:.0f} s; first rollup {rollup_s:.0f} s)")  # fmt: skip
        print(f"static file p50 {result['static_file_p50_ms']} ms (the server's floor)")
        for p, v in result["pages"].items():  # type: ignore[attr-defined]
            flag = "met" if v["p50_ms"] <= TARGET_MS else "MISSED"
            print(
                f"  {p:32} p50 {v['p50_ms']:7.1f} ms  p95 {v['p95_ms']:7.1f} ms  ({v['x_static']}x static)  {flag}"
            )
        print(f"target: every page p50 <= {TARGET_MS:.0f} ms: {'met' if result['met'] else 'MISSED'}")
    if args.keep is None:
        shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
