"""Recall benchmark (not part of the test run): LoCoMo evidence recall of `search`, beside a bare
FTS5 BM25 baseline measured in the same run.

Each LoCoMo conversation of ../shared/corpora/retrieval/locomo-dev.json becomes sessions of turns
in a fresh index (one cwd per conversation, the sessions' real dates as timestamps); every question
with evidence is searched within its conversation, and evidence recall@k is the share of its
evidence turns in the top k, averaged over questions. The baseline is the same turns in a bare
FTS5 table (same tokenizer), queried with the question's words OR-ed, ranked by bm25. Never tune
on anything but this dev file.

Also reported: search p50 in process at scale (the LoCoMo turns replicated in other folders up
to --scale turns; wall and CPU time, beside a bare FTS5 query), a cold `git hippo search`
subprocess beside claude-mem's cold `search` on the same turns (PyPI `claude-mem`, installed by
`pip install -e '.[bench]'`), `python -c pass` and `git hippo --version`, and the index size
against a variant with a neighbour-context column.

    python bench/recall.py                 # recall, and latency at 1M turns
    python bench/recall.py --scale 200000  # a quicker latency figure
    python bench/recall.py --quick         # recall only
    python bench/recall.py --cold          # the cold subprocesses only (no recall, no 1M index)
    python bench/recall.py --quick --semantic            # … and with the [semantic] extra's fusion
    python bench/recall.py --quick --semantic --weights  # … and the fusion weights measured
    python bench/recall.py --quick --semantic --heads    # … and each fusion method alone, other heads

`--semantic` embeds the dev turns with the configured default model (its turns/s and the
embedding store's size are reported) and ranks with `search`'s fusion (`index.fusion`).
`HIPPO_BENCH_EMBED_CACHE=DIR` keeps the embedding store in DIR between runs (vectors are keyed by
text, so a rerun encodes nothing new): for iterating on the fusion, not for the turns/s figure.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import resource
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent
sys.path.insert(0, str(REPO))
DEV = REPO.parent / "shared" / "corpora" / "retrieval" / "locomo-dev.json"
KS = (5, 10, 25, 50)
TOKENIZER = "porter unicode61 remove_diacritics 2"
TARGETS = {10: 0.75, 50: 0.88}
SEMANTIC_TARGETS = {5: 0.68, 10: 0.78, 25: 0.86, 50: 0.90}
FUSION_WEIGHTS = (0.2, 0.4, 0.7, 1.0)
FUSION_HEADS = (0, 3, 4, 6, 8, 1000)  # 0: rank fusion alone; 1000: score fusion alone
P50_TARGET_MS = 20.0
_WORD = re.compile(r"[^\W_]+")

Turn = tuple[str, int, str, str, str]  # session id, seq, kind, text, ts
Question = tuple[str, str, set[str]]  # cwd, question, evidence dia ids


def _when(text: str) -> str:
    """'1:56 pm on 8 May, 2023' → ISO time."""
    return datetime.strptime(text.strip(), "%I:%M %p on %d %B, %Y").strftime("%Y-%m-%dT%H:%M:%SZ")


def load(path: Path) -> tuple[list[Turn], dict[str, str], dict[tuple[str, int], str], list[Question]]:
    """(turns, session id → cwd, (session, seq) → dia id, questions)."""
    data = json.loads(path.read_text())
    turns: list[Turn] = []
    cwd_of: dict[str, str] = {}
    dia: dict[tuple[str, int], str] = {}
    questions: list[Question] = []
    for sample in data:
        conv = sample["conversation"]
        cwd = f"/locomo/{sample['sample_id']}"
        n = 1
        while f"session_{n}" in conv:
            sid = f"{sample['sample_id']}-s{n:02d}"
            cwd_of[sid] = cwd
            start = _when(conv[f"session_{n}_date_time"])
            for seq, turn in enumerate(conv[f"session_{n}"]):
                text = f"{turn['speaker']}: {turn['text']}"
                if turn.get("blip_caption"):
                    text += f" [shares {turn['blip_caption']}]"
                kind = "prompt" if turn["speaker"] == conv["speaker_a"] else "answer"
                turns.append((sid, seq, kind, text, start))
                dia[(sid, seq)] = turn["dia_id"]
            n += 1
        for qa in sample["qa"]:
            evidence = {e.strip() for e in qa.get("evidence", []) if e.strip()}
            if evidence:
                questions.append((cwd, str(qa["question"]), evidence))
    return turns, cwd_of, dia, questions


def build_index(path: Path, turns: list[Turn], cwd_of: dict[str, str], scale: int = 0) -> None:
    """A hippo index holding `turns`; with `scale`, first copies of them in other sessions and
    folders (`/replica/N`) up to about `scale` turns, so the LoCoMo turns are neither alone nor the
    most recently indexed ones, and every word keeps its share of the turns."""
    from hippo_git.index.db import connect

    conn = connect(path)
    conn.execute("BEGIN IMMEDIATE")
    sessions = {sid: (cwd_of[sid], ts) for sid, _, _, _, ts in turns}
    copies = max(0, -(-(scale - len(turns)) // len(turns))) if scale else 0
    for n in range(copies + 1):
        tag = "" if n == copies else f"r{n:04d}-"  # the real ones last
        conn.executemany(
            "INSERT INTO sessions(id, harness, cwd, started, ended, turns) VALUES (?, 'claude-code', ?, ?, ?, 0)",
            [(tag + sid, f"/replica/{n}" if tag else cwd, ts, ts) for sid, (cwd, ts) in sessions.items()],
        )
        conn.executemany(
            "INSERT INTO turns(session_id, seq, kind, text, ts) VALUES (?, ?, ?, ?, ?)",
            [(tag + sid, seq, kind, text, ts) for sid, seq, kind, text, ts in turns],
        )
    conn.execute("INSERT INTO turns_fts(rowid, text) SELECT id, text FROM turns")
    conn.execute("COMMIT")
    conn.execute("INSERT INTO turns_fts(turns_fts) VALUES ('optimize')")
    conn.close()


def _count(index: Path) -> int:
    conn = sqlite3.connect(index)
    try:
        return int(conn.execute("SELECT count(*) FROM turns").fetchone()[0])
    finally:
        conn.close()


def bare_baseline(
    turns: list[Turn], cwd_of: dict[str, str], neighbours: float | None = None
) -> Callable[[str, str, int], list[tuple[str, int]]]:
    """Bare FTS5 BM25 over the turns; with `neighbours`, a second column holding each turn's ±2
    session neighbours, weighted that much against the turn's own text (the design not chosen)."""
    conn = sqlite3.connect(":memory:")
    conn.execute(
        "CREATE VIRTUAL TABLE t USING fts5(text, ctx, sid UNINDEXED, seq UNINDEXED, cwd UNINDEXED,"
        f" tokenize='{TOKENIZER}')"
    )
    rows = []
    for i, (sid, seq, _, text, _) in enumerate(turns):
        near = [
            turns[j][3] for j in range(max(0, i - 2), min(len(turns), i + 3)) if j != i and turns[j][0] == sid
        ]
        rows.append((text, " ".join(near) if neighbours else "", sid, seq, cwd_of[sid]))
    conn.executemany("INSERT INTO t VALUES (?, ?, ?, ?, ?)", rows)
    rank = f"bm25(t, 1.0, {neighbours or 0.0})"

    def run(cwd: str, question: str, k: int) -> list[tuple[str, int]]:
        words = dict.fromkeys(w.lower() for w in _WORD.findall(question))
        if not words:
            return []
        match = " OR ".join(f'"{w}"' for w in words)
        rows = conn.execute(
            f"SELECT sid, seq FROM t WHERE t MATCH ? AND cwd = ? ORDER BY {rank} LIMIT ?", (match, cwd, k)
        ).fetchall()
        return [(r[0], int(r[1])) for r in rows]

    return run


def designs(
    index: Path,
    turns: list[Turn],
    cwd_of: dict[str, str],
    questions: list[Question],
    dia: dict[tuple[str, int], str],
) -> dict[str, dict[int, float]]:
    """The two ways of ranking a turn with its neighbours, each against its own base: a neighbour
    column in bare FTS5, and `search`'s query-time smoothing (time boost off in both search rows)."""
    import hippo_git.index.search as module

    out = {
        f"bare + neighbour column × {w}": recall(bare_baseline(turns, cwd_of, w), questions, dia)
        for w in (0.2, 0.4)
    }
    saved = module.NEAR_WEIGHT, module.TIME_BOOST, module.AFTER_BOOST
    try:
        module.TIME_BOOST = module.AFTER_BOOST = 0.0
        module.NEAR_WEIGHT = (0.0, 0.0, 0.0)
        out["search, no neighbours, no time boost"] = recall(hippo_search(index), questions, dia)
        module.NEAR_WEIGHT = saved[0]
        out["search, smoothing, no time boost"] = recall(hippo_search(index), questions, dia)
    finally:
        module.NEAR_WEIGHT, module.TIME_BOOST, module.AFTER_BOOST = saved
    return out


def hippo_search(index: Path) -> Callable[[str, str, int], list[tuple[str, int]]]:
    from hippo_git.index.db import connect
    from hippo_git.index.search import search

    conn = connect(index, readonly=True)

    def run(cwd: str, question: str, k: int) -> list[tuple[str, int]]:
        return [(h.session_id, h.seq) for h in search(conn, question, limit=k, cwds=[cwd])]

    return run


def embed_index(index: Path) -> dict[str, Any]:
    """Embed the index's turns into the store beside it; the run's figures."""
    from hippo_git.index.db import connect
    from hippo_git.index.embed_model import DEFAULT_MODEL, load_encoder
    from hippo_git.index.embed_store import embed_pending, open_store, store_path

    start = time.perf_counter()
    encoder = load_encoder(DEFAULT_MODEL, index.parent)
    loaded = time.perf_counter() - start
    cache = os.environ.get("HIPPO_BENCH_EMBED_CACHE")
    kept = Path(cache) / store_path(index).name if cache else None
    if kept is not None and kept.exists():
        shutil.copyfile(kept, store_path(index))
    conn = connect(index, readonly=True)
    store = open_store(store_path(index))
    try:
        summary = embed_pending(conn, store, encoder)
    finally:
        store.close()
        conn.close()
    if kept is not None:
        kept.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(store_path(index), kept)
    return {**summary.as_dict(), "load_s": round(loaded, 2)}


class _Queries:
    """An encoder that embeds each question once per run (the weight sweep asks again)."""

    def __init__(self, encoder: Any) -> None:
        self.encoder = encoder
        self.name = encoder.name
        self.seen: dict[str, Any] = {}

    def encode(self, texts: list[str]) -> Any:
        if len(texts) != 1:
            return self.encoder.encode(texts)
        if texts[0] not in self.seen:
            self.seen[texts[0]] = self.encoder.encode(texts)
        return self.seen[texts[0]]


_ENCODER: list[_Queries] = []


def _encoder(index: Path) -> Any:
    from hippo_git.index.embed_model import DEFAULT_MODEL, load_encoder

    if not _ENCODER:
        _ENCODER.append(_Queries(load_encoder(DEFAULT_MODEL, index.parent)))
    return _ENCODER[0]


def hybrid_search(
    index: Path, weight: float | None = None, head: int | None = None
) -> Callable[[str, str, int], list[tuple[str, int]]]:
    """`search` with the [semantic] fusion, at `weight` and `head` (None: the shipped ones)."""
    from hippo_git.index import fusion
    from hippo_git.index.db import connect
    from hippo_git.index.embed_store import store_path
    from hippo_git.index.search import search

    conn = connect(index, readonly=True)
    encoder = _encoder(index)
    vectors = fusion.load_vectors(store_path(index), encoder.name)
    assert vectors is not None, "nothing embedded"
    w = fusion.WEIGHT if weight is None else weight
    h = fusion.HEAD if head is None else head

    def run(cwd: str, question: str, k: int) -> list[tuple[str, int]]:
        rerank = fusion.reranker(conn, question, encoder, vectors, weight=w, head=h)
        return [(h.session_id, h.seq) for h in search(conn, question, limit=k, cwds=[cwd], rerank=rerank)]

    return run


def vector_only(index: Path) -> Callable[[str, str, int], list[tuple[str, int]]]:
    """Embedding similarity alone (the dense-retriever row of the LoCoMo paper's table)."""
    from hippo_git.index import fusion
    from hippo_git.index.db import connect
    from hippo_git.index.embed_store import store_path

    conn = connect(index, readonly=True)
    encoder = _encoder(index)
    vectors = fusion.load_vectors(store_path(index), encoder.name)
    assert vectors is not None, "nothing embedded"
    where = {
        cwd: [
            int(r[0])
            for r in conn.execute(
                "SELECT t.id FROM turns t JOIN sessions s ON s.id = t.session_id WHERE s.cwd = ?", (cwd,)
            )
        ]
        for (cwd,) in conn.execute("SELECT DISTINCT cwd FROM sessions")
    }
    key = {int(r[0]): (r[1], int(r[2])) for r in conn.execute("SELECT id, session_id, seq FROM turns")}

    def run(cwd: str, question: str, k: int) -> list[tuple[str, int]]:
        return [key[t] for t in vectors.nearest(encoder.encode([question])[0], where[cwd], k)]

    return run


def recall(
    run: Callable[[str, str, int], list[tuple[str, int]]],
    questions: list[Question],
    dia: dict[tuple[str, int], str],
) -> dict[int, float]:
    totals = dict.fromkeys(KS, 0.0)
    for cwd, question, evidence in questions:
        ranked = [dia.get(key) for key in run(cwd, question, max(KS))]
        for k in KS:
            totals[k] += len(evidence & set(ranked[:k])) / len(evidence)
    return {k: totals[k] / len(questions) for k in KS}


def _pct(r: dict[int, float]) -> str:
    return " ".join(f"@{k} {100 * v:5.1f}" for k, v in r.items())


def latency(index: Path, questions: list[Question], count: int) -> dict[str, float]:
    """p50/p95 of `search` (no filter, 20 hits) in process, and of a bare FTS5 BM25 query of the
    same words on the same index, interleaved so load on the machine hits both alike."""
    from hippo_git.index.db import connect
    from hippo_git.index.search import search

    conn = connect(index, readonly=True)
    picked = random.Random(3).sample(questions, min(count, len(questions)))
    search(conn, picked[0][1])
    times: list[float] = []
    cpu: list[float] = []
    bare: list[float] = []
    for _, q, _ in picked:
        start, started_cpu = time.perf_counter(), time.process_time()
        search(conn, q, limit=20)
        times.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - started_cpu) * 1000)
        match = " OR ".join(f'"{w}"' for w in dict.fromkeys(w.lower() for w in _WORD.findall(q)))
        start = time.perf_counter()
        conn.execute(
            "SELECT rowid FROM turns_fts WHERE turns_fts MATCH ? ORDER BY rank LIMIT 20", (match,)
        ).fetchall()
        bare.append((time.perf_counter() - start) * 1000)
    conn.close()
    times.sort()
    bare.sort()
    return {
        "p50_ms": statistics.median(times),
        "cpu_p50_ms": statistics.median(cpu),
        "p95_ms": times[int(0.95 * (len(times) - 1))],
        "bare_p50_ms": statistics.median(bare),
        "bare_p95_ms": bare[int(0.95 * (len(bare) - 1))],
    }


def claude_mem_home(home: Path, turns: list[Turn], cwd_of: dict[str, str]) -> str | None:
    """The same LoCoMo turns as Claude Code transcripts under `home`, indexed by claude-mem (PyPI
    `claude-mem`, the `[bench]` extra); None, or why it cannot run, when it is not installed."""
    exe = shutil.which("claude-mem", path=str(Path(sys.executable).parent)) or shutil.which("claude-mem")
    if exe is None:
        return None
    by_session: dict[str, list[Turn]] = {}
    for turn in turns:
        by_session.setdefault(turn[0], []).append(turn)
    for sid, session in by_session.items():
        folder = home / ".claude" / "projects" / cwd_of[sid].strip("/").replace("/", "-")
        folder.mkdir(parents=True, exist_ok=True)
        lines = []
        for n, (_, _, kind, text, ts) in enumerate(session):
            role = "user" if kind == "prompt" else "assistant"
            content: Any = text if role == "user" else [{"type": "text", "text": text}]
            message = {"role": role, "content": content}
            record = {
                "type": role,
                "sessionId": sid,
                "cwd": cwd_of[sid],
                "timestamp": ts,
                "uuid": f"{sid}-{n}",
            }
            lines.append(json.dumps({**record, "message": message}) + "\n")
        (folder / f"{sid}.jsonl").write_text("".join(lines))
    env = {**os.environ, "HOME": str(home)}
    subprocess.run([exe, "cc-index", "--rebuild"], env=env, capture_output=True, check=True)
    return exe


def cold(
    small: Path, big: Path | None, cm_exe: str | None, cm_home: Path, rounds: int = 7
) -> dict[str, dict[str, float]]:
    """Cold subprocesses, interleaved round by round so load hits all alike: best wall time and
    median CPU time (user + system, what an idle machine would take) of each. Bytecode caches
    are written (a user's install has them) and one warm-up round fills them and the page cache.
    `git hippo` is the venv's `git-hippo` script, as a user runs it."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    bindir = Path(sys.executable).parent
    script = bindir / "git-hippo"
    exe = [str(script)] if script.is_file() else [sys.executable, "-m", "hippo_git"]
    query = "adoption agencies support group"
    small_env = {**env, "HIPPO_HOME": str(small.parent)}
    runs: dict[str, tuple[list[str], dict[str, str]]] = {
        "python -c pass": ([sys.executable, "-c", "pass"], env),
        "python -S -c pass": ([sys.executable, "-S", "-c", "pass"], env),
        "git hippo --version": ([*exe, "--version"], env),
        "git hippo search": ([*exe, "search", "--all", query], small_env),
    }
    repo = _workspace(small.parent / "repo", exe, small_env)
    runs["git hippo search, in a repository"] = ([*exe, "search", query], small_env)
    runs["git hippo context, in a repository"] = ([*exe, "context", "--task", query], small_env)
    if big is not None:
        runs[f"git hippo search, {_count(big):,} turns"] = (
            [*exe, "search", "--all", query],
            {**env, "HIPPO_HOME": str(big.parent)},
        )
    if cm_exe:
        cm_env = {**env, "HOME": str(cm_home)}
        runs["claude-mem search"] = (
            [cm_exe, "--backend", "claude", "search", query, "--days", "100000"],
            cm_env,
        )
    wall: dict[str, list[float]] = {name: [] for name in runs}
    cpu: dict[str, list[float]] = {name: [] for name in runs}
    for round_ in range(rounds + 1):
        for name, (argv, run_env) in runs.items():
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            cwd = repo if "repository" in name else small.parent
            subprocess.run(argv, env=run_env, capture_output=True, check=True, cwd=cwd)
            elapsed = (time.perf_counter() - start) * 1000
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            if round_:
                wall[name].append(elapsed)
                used = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
                cpu[name].append(used * 1000)
    return {name: {"best_ms": min(wall[name]), "cpu_p50_ms": statistics.median(cpu[name])} for name in runs}


def _workspace(repo: Path, exe: list[str], env: dict[str, str]) -> Path:
    """A repository set up with `git hippo init` (its notes and config), for the in-repository runs."""
    repo.mkdir()
    git = ["git", "-c", "user.name=bench", "-c", "user.email=bench@example.com"]
    subprocess.run([*git, "init", "-q", "-b", "main"], cwd=repo, check=True)
    subprocess.run([*git, "commit", "-q", "--allow-empty", "-m", "start"], cwd=repo, check=True)
    subprocess.run([*exe, "init", "--no-hooks"], cwd=repo, env=env, capture_output=True, check=True)
    return repo


def neighbour_column_size(turns: list[Turn]) -> dict[str, int]:
    """Bytes of a bare FTS5 index over the turns, without and with a second column holding each
    turn's ±2 session neighbours (the design not chosen: smoothing at query time needs no column)."""
    sizes = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name, with_ctx in (("text only", False), ("text + neighbours", True)):
            path = Path(tmp) / f"{with_ctx}.sqlite"
            conn = sqlite3.connect(path)
            cols = "text, ctx" if with_ctx else "text"
            conn.execute(f"CREATE VIRTUAL TABLE t USING fts5({cols}, tokenize='{TOKENIZER}')")
            rows = []
            for i, turn in enumerate(turns):
                if with_ctx:
                    near = [
                        turns[j][3]
                        for j in range(max(0, i - 2), min(len(turns), i + 3))
                        if j != i and turns[j][0] == turn[0]
                    ]
                    rows.append((turn[3], " ".join(near)))
                else:
                    rows.append((turn[3],))
            conn.executemany(f"INSERT INTO t VALUES ({', '.join('?' * len(rows[0]))})", rows)
            conn.commit()
            conn.execute("INSERT INTO t(t) VALUES ('optimize')")
            conn.commit()
            conn.execute("VACUUM")
            conn.close()
            sizes[name] = path.stat().st_size
    return sizes


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--dev", type=Path, default=DEV)
    parser.add_argument("--scale", type=int, default=1_000_000, help="turns in the latency index")
    parser.add_argument("--queries", type=int, default=200)
    parser.add_argument("--quick", action="store_true", help="recall only")
    parser.add_argument("--designs", action="store_true", help="also compare the two neighbour designs")
    parser.add_argument("--semantic", action="store_true", help="also the [semantic] extra's hybrid ranking")
    parser.add_argument(
        "--weights", action="store_true", help="with --semantic: recall at each fusion weight"
    )
    parser.add_argument(
        "--heads",
        action="store_true",
        help="with --semantic: rank fusion alone, score fusion alone, and heads of 3 to 8 ranks",
    )
    parser.add_argument(
        "--cold", action="store_true", help="only the cold subprocesses, on the dev turns' index"
    )
    parser.add_argument("--rounds", type=int, default=7, help="rounds of the cold subprocesses")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    turns, cwd_of, dia, questions = load(args.dev)
    report: dict[str, Any] = {"questions": len(questions), "turns": len(turns)}
    with tempfile.TemporaryDirectory() as tmp:
        index = Path(tmp) / "index.sqlite"
        build_index(index, turns, cwd_of)
        report["index_bytes"] = index.stat().st_size
        if args.cold:
            report.update(cold_report(Path(tmp), index, None, turns, cwd_of, args.rounds))
            return finish(report, cold_checks(report["cold_ms"]), args.json)
        report["baseline"] = recall(bare_baseline(turns, cwd_of), questions, dia)
        report["hippo"] = recall(hippo_search(index), questions, dia)
        if args.designs:
            report["designs"] = designs(index, turns, cwd_of, questions, dia)
        if args.semantic:
            report["embedding"] = embed_index(index)
            report["vectors only"] = recall(vector_only(index), questions, dia)
            report["semantic"] = recall(hybrid_search(index), questions, dia)
            if args.weights:
                report["weights"] = {
                    w: recall(hybrid_search(index, w), questions, dia) for w in FUSION_WEIGHTS
                }
            if args.heads:
                report["heads"] = {
                    h: recall(hybrid_search(index, head=h), questions, dia) for h in FUSION_HEADS
                }
        if not args.quick:
            report["fts_sizes"] = neighbour_column_size(turns)
            big = Path(tmp) / "big" / "index.sqlite"
            big.parent.mkdir()
            start = time.perf_counter()
            build_index(big, turns, cwd_of, scale=args.scale)
            report["scale_build_s"] = round(time.perf_counter() - start, 1)
            report["scale_turns"] = _count(big)
            report["scaled"] = recall(hippo_search(big), questions, dia)
            report["latency"] = latency(big, questions, args.queries)
            report.update(cold_report(Path(tmp), index, big, turns, cwd_of, args.rounds))
    checks = [(f"recall@{k} ≥ {100 * v:.0f}", report["hippo"][k] >= v) for k, v in TARGETS.items()]
    if "semantic" in report:
        checks += [
            (f"with [semantic] recall@{k} ≥ {100 * v:.0f}", report["semantic"][k] >= v)
            for k, v in SEMANTIC_TARGETS.items()
        ]
    if "latency" in report:
        checks.append(
            (
                f"search p50 ≤ {P50_TARGET_MS:.0f} ms at {report['scale_turns']:,} turns",
                report["latency"]["p50_ms"] <= P50_TARGET_MS,
            )
        )
        checks += cold_checks(report["cold_ms"])
    finish(report, checks, args.json)


def cold_report(
    tmp: Path, index: Path, big: Path | None, turns: list[Turn], cwd_of: dict[str, str], rounds: int
) -> dict[str, Any]:
    """The cold subprocesses, claude-mem's among them when it is installed (else why not)."""
    cm_home = tmp / "claude-mem-home"
    cm_exe = claude_mem_home(cm_home, turns, cwd_of)
    report: dict[str, Any] = {"cold_ms": cold(index, big, cm_exe, cm_home, rounds)}
    if cm_exe is None:
        report["claude_mem"] = (
            "not installed: pip install -e '.[bench]' (PyPI claude-mem, offline once installed)"
        )
    return report


def cold_checks(cold_ms: dict[str, dict[str, float]]) -> list[tuple[str, bool]]:
    if "claude-mem search" not in cold_ms:
        return []
    ours, theirs = cold_ms["git hippo search"], cold_ms["claude-mem search"]
    return [
        (
            f"cold `git hippo search` no slower than claude-mem's cold `search` (CPU time,"
            f" {ours['cpu_p50_ms'] / theirs['cpu_p50_ms']:.2f}×)",
            ours["cpu_p50_ms"] <= theirs["cpu_p50_ms"],
        ),
        (
            f"cold `git hippo search` no slower than claude-mem's cold `search` (best wall time,"
            f" {ours['best_ms'] / theirs['best_ms']:.2f}×)",
            ours["best_ms"] <= theirs["best_ms"],
        ),
    ]


def print_cold(report: dict[str, Any]) -> None:
    print(f"cold subprocesses on the LoCoMo dev turns ({report['turns']:,}), best wall / median CPU time:")
    for name, figures in report["cold_ms"].items():
        print(f"  {name:42s} {figures['best_ms']:6.0f} ms / {figures['cpu_p50_ms']:4.0f} ms")
    if "claude_mem" in report:
        print(f"  claude-mem search: {report['claude_mem']}")


def finish(report: dict[str, Any], checks: list[tuple[str, bool]], as_json: bool) -> None:
    if as_json:
        print(json.dumps({**report, "checks": dict(checks)}, indent=2, default=str))
        return
    if "hippo" not in report:  # --cold
        print_cold(report)
    else:
        print_recall(report)
    for label, ok in checks:
        print(f"{'met   ' if ok else 'MISSED'} {label}")


def print_recall(report: dict[str, Any]) -> None:
    print(f"LoCoMo dev: {report['questions']} questions over {report['turns']} turns")
    print(f"  bare FTS5 BM25   {_pct(report['baseline'])}")
    print(f"  git hippo search {_pct(report['hippo'])}")
    if "semantic" in report:
        e = report["embedding"]
        print(f"  vectors only     {_pct(report['vectors only'])}")
        print(f"  hybrid (fusion)  {_pct(report['semantic'])}")
        for w, figures in report.get("weights", {}).items():
            print(f"    fusion weight {w:<4} {_pct(figures)}")
        for h, figures in report.get("heads", {}).items():
            label = {0: "rank fusion only", 1000: "score fusion only"}.get(int(h), f"score-fused head {h}")
            print(f"    {label:<21} {_pct(figures)}")
        print(
            f"embedding ({e['model']}): {e['embedded']} turns ({e['texts']} texts: a turn alone and"
            f" with each neighbour) in {e['seconds']:.1f} s = {e['turns_per_second']:.1f} turns/s"
            f" (model load {e['load_s']} s);"
            f" store {e['store_bytes']:,} bytes beside an index of {report['index_bytes']:,}"
        )
    for name, figures in report.get("designs", {}).items():
        print(f"  {name:38s} {_pct(figures)}")
    if "scaled" in report:
        print(
            f"  … with {report['scale_turns']:,} turns in the index {_pct(report['scaled'])} (built in {report['scale_build_s']} s)"
        )
        lat = report["latency"]
        print(
            f"search in process at {report['scale_turns']:,} turns: p50 {lat['p50_ms']:.1f} ms, p95 {lat['p95_ms']:.1f} ms"
            f" (CPU time p50 {lat['cpu_p50_ms']:.1f} ms; bare FTS5 BM25 of the same words:"
            f" p50 {lat['bare_p50_ms']:.1f} ms, p95 {lat['bare_p95_ms']:.1f} ms)"
        )
        print_cold(report)
        print(
            f"index file {report['index_bytes']:,} bytes; bare FTS5: "
            + ", ".join(f"{k} {v:,}" for k, v in report["fts_sizes"].items())
        )


if __name__ == "__main__":
    main()
