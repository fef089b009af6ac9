"""Redaction throughput against the cost of indexing the same text, measured in one run.

Text: the real Claude Code and Codex transcripts in ../shared/corpora/transcripts, read as text,
in two cuts: every string value of every record (prompts, answers, tool input and output, paths,
ids... each one unit, as ingest redacts them) and every raw JSONL line. Each is repeated until it
reaches --mb megabytes.

Baseline: `str.encode` + an SQLite FTS5 insert of the same strings (one transaction, a WAL file
database). The target (issue 3) is that parsing + redaction cost no more than the index insert,
so redaction alone should stay well under 1.0x the baseline time.

A third run plants a fake secret (built at run time) in one string in fifty, to price the path
where rules fire. Usage: python bench/redact.py [--mb 32]
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

from hippo_git.transcripts.redact import Redactor

CORPUS = Path(__file__).resolve().parents[2] / "shared" / "corpora" / "transcripts"


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
    return texts * max(1, round(mb * 1e6 / sum(map(len, texts))))


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


def main() -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--mb", type=float, default=32.0, help="corpus size in MB per cut (default 32)")
    args = parser.parse_args()
    if not CORPUS.exists():
        print(f"needs {CORPUS}", file=sys.stderr)
        return 2
    values, lines = load_texts()
    run("string values", _grow(values, args.mb))
    run("raw JSONL lines", _grow(lines, args.mb))
    big = [t for t in values if len(t) >= 1000]
    elapsed, _ = bench_redact(_grow(big, args.mb / 4))
    print(
        f"values of 1000+ chars alone: {sum(map(len, _grow(big, args.mb / 4))) / 1e6 / elapsed:.1f} MB/s redacted"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
