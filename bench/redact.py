"""Redaction throughput against the cost of indexing the same text, measured in one run.

Text: the real transcripts in ../shared/corpora/transcripts, in three cuts: every string value of
every Claude Code and Codex record (prompts, answers, tool input and output, paths, ids... each
one unit, as ingest redacts them), every raw JSONL line, and the turn texts the adapters make of
every transcript (what `Scrubber.text` is given). Each is repeated until it reaches --mb
megabytes. With --index, also the turn texts of that index (read only) and `Scrubber.state` on
its sources' cursor states.

Baseline: `str.encode` + an SQLite FTS5 insert of the same strings (one transaction, a WAL file
database). The target (issue 3) is that parsing + redaction cost no more than the index insert,
so redaction alone should stay well under 1.0x the baseline time.

Quality, in the same run (and alone with --quality): recall on the noseyparker examples in
../shared/corpora/secrets and on the per-family and per-shape cases of tests/secret_cases.py
(target >= 99% redacted), and false positives as markers per 1,000 lines of the Python standard
library, each module redacted whole as a tool's output would be, emails not counted (target <= 1).

A third run plants a fake secret (built at run time) in one string in fifty, to price the path
where rules fire.

--against DIR times another copy of the code in the same run (DIR holds its `hippo_git`, e.g.
`git archive HEAD hippo_git | tar -x -C DIR`): each cut is redacted by both, one after the other, in child
processes, three times; CPU seconds, medians. Usage: python bench/redact.py [--mb 32]
[--index PATH] [--against DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
CORPUS = ROOT.parent / "shared" / "corpora" / "transcripts"


def _strings(value: object) -> Iterator[str]:
    stack = [value]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            stack.extend(item.values())
        elif isinstance(item, list):
            stack.extend(item)


def load_texts() -> tuple[list[str], list[str]]:
    """(every string value of every record, every raw line) of the Claude Code and Codex samples."""
    values: list[str] = []
    lines: list[str] = []
    for path in sorted([*CORPUS.glob("claude-code/**/*.jsonl"), *CORPUS.glob("codex/**/*.jsonl")]):
        for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
            lines.append(line)
            try:
                values.extend(_strings(json.loads(line)))
            except ValueError:
                values.append(line)  # a torn line is still text ingest would see
    return values, lines


def load_turns() -> list[str]:
    """The turn texts the adapters make of every transcript of the corpus (unredacted)."""
    from hippo_git.transcripts.model import Cursor
    from hippo_git.transcripts.registry import get_adapter, harness_names

    texts: list[str] = []
    for harness in harness_names():
        for path in sorted((CORPUS / harness).rglob("*")) if (CORPUS / harness).is_dir() else ():
            if not path.is_file() or path.suffix not in (".jsonl", ".json", ".md"):
                continue
            try:
                result = get_adapter(harness).parse(path, Cursor())
            except Exception:  # a file of another layout (a database's side file): not a transcript
                continue
            texts += [turn.text for session in result.sessions for turn in session.turns if turn.text]
    return texts


def load_index(path: Path) -> tuple[list[str], list[Any]]:
    """(the turn texts, the sources' cursor states) of an index, opened read only."""
    conn = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        texts = [row[0] for row in conn.execute("SELECT text FROM turns") if isinstance(row[0], str)]
        states = [json.loads(row[0]) for row in conn.execute("SELECT state_json FROM sources")]
    finally:
        conn.close()
    return texts, states


def _fakes() -> list[str]:
    # Assembled here so that no literal secret sits in the repository.
    body = "Q3mX9vR2tL7pK4wZ8nB5"
    return [
        "export GITHUB_TOKEN=gh" + "p_" + body + body[:16],
        'OPENAI_API_KEY="sk-' + "proj-" + body * 3 + '"',
        "curl -H 'Authorization: Bearer " + body + "'",
        "postgres://app:" + body[:12] + "@db.internal:5432/app",
        "password: " + body[:14],
        "mail ada.lovelace@" + "lovelace.dev about it",
    ]


def bench_redact(texts: list[str]) -> tuple[float, dict[str, int]]:
    from hippo_git.transcripts.redact import Redactor

    redactor = Redactor()
    redact = redactor.redact
    start = time.perf_counter()
    for text in texts:
        redact(text)
    return time.perf_counter() - start, redactor.counts


def bench_fts(texts: list[str]) -> float:
    with tempfile.TemporaryDirectory() as tmp:
        conn = sqlite3.connect(Path(tmp) / "bench.sqlite")
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("CREATE VIRTUAL TABLE turns USING fts5(text)")
        start = time.perf_counter()
        with conn:
            for text in texts:
                text.encode("utf-8", "surrogatepass")
                conn.execute("INSERT INTO turns(text) VALUES (?)", (text,))
        elapsed = time.perf_counter() - start
        conn.close()
    return elapsed


def _grow(texts: list[str], mb: float) -> list[str]:
    return texts * max(1, round(mb * 1e6 / max(1, sum(map(len, texts)))))


def run(name: str, texts: list[str]) -> None:
    mb = sum(map(len, texts)) / 1e6
    fakes = _fakes()
    planted = [t + "\n" + fakes[i // 50 % len(fakes)] if i % 50 == 0 else t for i, t in enumerate(texts)]
    fts = bench_fts(texts)
    clean, clean_counts = bench_redact(texts)
    hot, hot_counts = bench_redact(planted)
    median = sorted(map(len, texts))[len(texts) // 2]
    print(f"{name}: {mb:.1f} MB in {len(texts):,} strings (median {median} chars)")
    print(f"  baseline  encode + FTS5 insert  : {mb / fts:7.1f} MB/s  ({fts:.2f} s)")
    print(
        f"  redact    as is                 : {mb / clean:7.1f} MB/s  ({clean:.2f} s)  x{clean / fts:.2f} of baseline"
    )
    print(
        f"  redact    1 in 50 with a secret : {mb / hot:7.1f} MB/s  ({hot:.2f} s)  x{hot / fts:.2f} of baseline"
    )
    print(f"  found as is: {dict(sorted(clean_counts.items())) or 'nothing'}")
    print(f"  found with plants: {dict(sorted(hot_counts.items()))}")


def cuts(mb: float, index: Path | None) -> dict[str, tuple[list[str], list[Any]]]:
    """name -> (texts to redact, cursor states to scrub)."""
    values, lines = load_texts()
    found = {
        "string values": (_grow(values, mb), []),
        "raw JSONL lines": (_grow(lines, mb), []),
        "turn texts (adapters)": (_grow(load_turns(), mb), []),
    }
    if index is not None:
        texts, states = load_index(index)
        found["index turn texts"] = (texts, [])
        found["index cursor states"] = ([], states)
    return found


def cpu_seconds(texts: list[str], states: list[Any]) -> float:
    """CPU time of redacting the texts with one Redactor, or scrubbing the states with one Scrubber
    (one a worker, as ingest does)."""
    start = time.process_time()
    if states:
        from hippo_git.index.scrub import Scrubber

        scrub = Scrubber()
        for state in states:
            scrub.reset({})
            scrub.state(state)
    else:
        from hippo_git.transcripts.redact import Redactor

        redact = Redactor().redact
        for text in texts:
            redact(text)
    return time.process_time() - start


def child(args: argparse.Namespace) -> int:
    """--child: time every cut once, print {name: seconds} as JSON (run under either copy)."""
    found = cuts(args.mb, args.index)
    print(json.dumps({name: cpu_seconds(*cut) for name, cut in found.items()}))
    return 0


def against(args: argparse.Namespace, base: Path) -> int:
    command = [sys.executable, __file__, "--child", "--mb", str(args.mb)]
    command += ["--index", str(args.index.resolve())] if args.index else []
    runs: dict[str, list[dict[str, float]]] = {"base": [], "this": []}
    for _ in range(3):
        for who, path in (("base", base), ("this", ROOT)):
            env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(path), os.environ.get("PYTHONPATH", "")]))
            out = subprocess.run(command, env=env, check=True, stdout=subprocess.PIPE, text=True).stdout
            runs[who].append(json.loads(out.strip().splitlines()[-1]))
    print(f"CPU seconds, median of 3 (base: {base}; this: {ROOT})")
    for name in runs["this"][0]:
        old = statistics.median(r[name] for r in runs["base"])
        new = statistics.median(r[name] for r in runs["this"])
        print(f"  {name:24} base {old:7.3f}  this {new:7.3f}  this/base {new / old:.3f}")
    return 0


def quality() -> bool:
    """Recall and false positives (see the module doc); prints met/missed, returns all met."""
    import sysconfig

    sys.path.insert(0, str(ROOT))
    from hippo_git.transcripts.redact import redact, scan
    from tests.secret_cases import shape_cases, vendor_cases
    from tests.test_redact import _np_rules, _secret_gone

    rules = [rule for rule in _np_rules() if not rule.public_identifier]
    examples = [(rule, e) for rule in rules for e in rule.examples]
    np_hit = sum("[redacted:" in redact(e)[0] and _secret_gone(rule, e, scan(e)) for rule, e in examples)
    cases = shape_cases() + vendor_cases()
    planted = [(c, secret) for c in cases for secret in c.secrets]
    outs = {c.name: redact(c.text)[0] for c in cases}
    own_hit = sum(secret not in outs[c.name] for c, secret in planted)
    recall = (np_hit + own_hit) / (len(examples) + len(planted))
    root = Path(sysconfig.get_paths()["stdlib"])
    lines = markers = 0
    for path in sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts):
        text = path.read_text(encoding="utf-8", errors="replace")
        lines += text.count("\n") + 1
        markers += sum(kind != "email" for _, _, kind in scan(text))
    rate = markers * 1000 / max(1, lines)
    ok_recall, ok_fp = recall >= 0.99, rate <= 1.0
    print(
        f"recall: noseyparker {np_hit}/{len(examples)}, shapes and families {own_hit}/{len(planted)}:"
        f" {recall:.1%} (target >= 99%): {'met' if ok_recall else 'missed'}"
    )
    print(
        f"false positives: {markers} markers in {lines:,} lines of the standard library ="
        f" {rate:.2f} per 1,000 (target <= 1): {'met' if ok_fp else 'missed'}"
    )
    return ok_recall and ok_fp


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mb", type=float, default=32.0, help="corpus size in MB per cut (default 32)")
    parser.add_argument("--index", type=Path, help="also time this index's turn texts and cursor states")
    parser.add_argument("--against", type=Path, help="time this other checkout's code too, in the same run")
    parser.add_argument("--quality", action="store_true", help="only recall and false positives")
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not CORPUS.exists():
        print(f"needs {CORPUS}", file=sys.stderr)
        return 2
    if args.child:
        return child(args)
    if args.quality:
        return 0 if quality() else 1
    if args.against:
        quality()
        return against(args, args.against.resolve())
    quality()
    values, lines = load_texts()
    run("string values", _grow(values, args.mb))
    run("raw JSONL lines", _grow(lines, args.mb))
    run("turn texts (adapters)", _grow(load_turns(), args.mb))
    big = [t for t in values if len(t) >= 1000]
    elapsed, _ = bench_redact(_grow(big, args.mb / 4))
    print(
        f"values of 1000+ chars alone: {sum(map(len, _grow(big, args.mb / 4))) / 1e6 / elapsed:.1f} MB/s redacted"
    )
    if args.index:
        texts, states = load_index(args.index)
        run("index turn texts", texts)
        print(f"index cursor states: {len(states):,} scrubbed in {cpu_seconds([], states):.2f} CPU s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
