"""`git hippo eval`: does recall find what the team expects? Cases, metrics and a gate for CI.

A cases file (`.hippo/eval.json` by default; `.toml` also read) holds

    {"version": 1, "cases": [
      {"query": "fix the flaky billing test",
       "expected": ["notes/testing.md", "memory:use-freezegun", "a1b2c3#4"],
       "must_not_include": ["notes/old-ci.md"]}]}

(in TOML: `version = 1` and one `[[cases]]` table per case). An item is a note path (repo- or
notes-relative), `memory:<id>` (the memory note `notes_dir/memories/<id>.md`), or `<session>#<turn>`
(a turn of the transcript index). Each case's query is run as `context` ranks notes
(`rank_relevant`) and as `search` ranks this workspace's turns; an expected item's rank is its place
in the list of its kind. Reported: recall@1/5/10, MRR and nDCG@10, averaged over cases, and every
must-not item found in a top 10. The gate: recall@5 at least `--min-recall`, and no must-not item.
"""

from __future__ import annotations

import json
import math
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.config import Config
from hippo_git.errors import HippoError

CASES_VERSION = 1
DEFAULT_CASES = (".hippo/eval.json", ".hippo/eval.toml")
DEPTH = 10
KS = (1, 5, 10)
BOOTSTRAP_NOTES = 20
BOOTSTRAP_SESSIONS = 20


@dataclass(frozen=True)
class Case:
    """One eval case: a query, the items recall should find, and those it must not return."""

    query: str
    expected: tuple[str, ...]
    must_not_include: tuple[str, ...] = ()


@dataclass
class CaseResult:
    """How recall did on one eval case: ranks of the expected items, violations and metrics."""

    query: str
    ranks: dict[str, int | None]  # expected item → rank (1-based) in its list, None when not in the top DEPTH
    violations: list[str]
    recall: dict[int, float]
    mrr: float
    ndcg: float


@dataclass
class Report:
    """An eval run: each case's result, the averaged metrics, and what could not be measured."""

    cases: list[CaseResult]
    recall: dict[int, float] = field(default_factory=dict)
    mrr: float = 0.0
    ndcg: float = 0.0
    violations: int = 0
    notes: list[str] = field(default_factory=list)  # what could not be measured and why

    def passed(self, min_recall: float | None) -> bool:
        return self.violations == 0 and (min_recall is None or self.recall.get(5, 0.0) >= min_recall)

    def as_dict(self) -> dict[str, object]:
        return {
            "cases": len(self.cases),
            "recall": {f"@{k}": round(v, 4) for k, v in self.recall.items()},
            "mrr": round(self.mrr, 4),
            "ndcg@10": round(self.ndcg, 4),
            "violations": self.violations,
            "notes": self.notes,
            "results": [
                {
                    "query": c.query,
                    "ranks": c.ranks,
                    "must_not_found": c.violations,
                    "recall": {f"@{k}": round(v, 4) for k, v in c.recall.items()},
                    "mrr": round(c.mrr, 4),
                    "ndcg@10": round(c.ndcg, 4),
                }
                for c in self.cases
            ],
        }


def cases_path(cfg: Config, given: str | None) -> Path:
    if given:
        return Path(given) if Path(given).is_absolute() else Path.cwd() / given
    for rel in DEFAULT_CASES:
        if (cfg.root / rel).is_file():
            return cfg.root / rel
    return cfg.root / DEFAULT_CASES[0]


def load_cases(path: Path) -> list[Case]:
    """The cases of a file; a bad file is a one-line error naming it and what is wrong."""
    try:
        raw = path.read_bytes().decode("utf-8")
    except FileNotFoundError:
        raise HippoError(
            f"no eval cases at {path}", hint="draft some with `git hippo eval --bootstrap`, then edit them"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise HippoError(f"cannot read {path}: {exc}") from None
    try:
        data = tomllib.loads(raw) if path.suffix == ".toml" else json.loads(raw)
    except (ValueError, tomllib.TOMLDecodeError) as exc:
        raise HippoError(
            f"{path} is not valid {'TOML' if path.suffix == '.toml' else 'JSON'}: {exc}"
        ) from None
    if not isinstance(data, dict) or data.get("version", CASES_VERSION) != CASES_VERSION:
        raise HippoError(f"{path}: expected an object with version = {CASES_VERSION} and a list of cases")
    cases = data.get("cases")
    if not isinstance(cases, list) or not cases:
        raise HippoError(f"{path}: `cases` must be a non-empty list", hint="see `git hippo eval --help`")
    out: list[Case] = []
    for n, case in enumerate(cases, 1):
        if not isinstance(case, dict) or not isinstance(case.get("query"), str) or not case["query"].strip():
            raise HippoError(f"{path}: case {n} needs a non-empty `query` string")
        expected, avoid = case.get("expected", []), case.get("must_not_include", [])
        for name, items in (("expected", expected), ("must_not_include", avoid)):
            if not isinstance(items, list) or not all(isinstance(i, str) and i.strip() for i in items):
                raise HippoError(f"{path}: case {n} ({case['query']!r}): `{name}` must be a list of strings")
        if not expected and not avoid:
            raise HippoError(f"{path}: case {n} ({case['query']!r}) expects nothing and excludes nothing")
        out.append(Case(case["query"].strip(), tuple(expected), tuple(avoid)))
    return out


def item_key(cfg: Config, item: str) -> tuple[str, str]:
    """(kind, key) of a case item: ("turn", "sid#seq") or ("note", repo-relative path)."""
    item = item.strip()
    if item.startswith(("memory:", "mem:")):
        return "note", f"{cfg.notes_dir}/memories/{item.split(':', 1)[1].strip()}.md"
    head, sep, tail = item.rpartition("#")
    if sep and head and tail.isdigit():
        return "turn", f"{head}#{int(tail)}"
    path = item.lstrip("/")
    if not path.startswith(f"{cfg.notes_dir}/"):
        path = f"{cfg.notes_dir}/{path}"
    return "note", path if path.endswith(".md") else f"{path}.md"


def evaluate(cfg: Config, cases: list[Case]) -> Report:
    from hippo_git.notes import notes_index
    from hippo_git.notes.relevance import rank_relevant

    report = Report(cases=[])
    turns = _turn_ranker(cfg, report)
    conn = notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        for case in cases:
            lists = {"note": [r.path for r in rank_relevant(conn, case.query, limit=DEPTH)], "turn": []}
            if turns is not None and any(
                item_key(cfg, i)[0] == "turn" for i in case.expected + case.must_not_include
            ):
                lists["turn"] = turns(case.query)
            report.cases.append(_score(cfg, case, lists))
    finally:
        conn.close()
        if turns is not None:
            turns.close()
    n = len(report.cases) or 1
    report.recall = {k: sum(c.recall[k] for c in report.cases) / n for k in KS}
    report.mrr = sum(c.mrr for c in report.cases) / n
    report.ndcg = sum(c.ndcg for c in report.cases) / n
    report.violations = sum(len(c.violations) for c in report.cases)
    return report


class _Turns:
    def __init__(self, cfg: Config) -> None:
        from hippo_git.index.db import connect
        from hippo_git.index.workspace import workspace_filter

        self.conn = connect(cfg.index_path, readonly=True)
        self.cwds, self.ids = workspace_filter(cfg)

    def __call__(self, query: str) -> list[str]:
        from hippo_git.index.search import search

        hits = search(self.conn, query, limit=DEPTH, cwds=self.cwds, session_ids=self.ids)
        return [f"{h.session_id}#{h.seq}" for h in hits]

    def close(self) -> None:
        self.conn.close()


def _turn_ranker(cfg: Config, report: Report) -> _Turns | None:
    try:
        return _Turns(cfg)
    except HippoError as exc:
        report.notes.append(f"turns not ranked: {exc.message}")
        return None


def _score(cfg: Config, case: Case, lists: dict[str, list[str]]) -> CaseResult:
    ranks: dict[str, int | None] = {}
    for item in case.expected:
        kind, key = item_key(cfg, item)
        ranked = lists[kind]
        ranks[item] = ranked.index(key) + 1 if key in ranked else None
    violations = [i for i in case.must_not_include if item_key(cfg, i)[1] in lists[item_key(cfg, i)[0]]]
    found = [r for r in ranks.values() if r is not None]
    total = len(case.expected)
    recall = {k: (sum(1 for r in found if r <= k) / total if total else 1.0) for k in KS}
    mrr = 1.0 / min(found) if found else (1.0 if not total else 0.0)
    ideal = sum(1 / math.log2(i + 1) for i in range(1, min(total, DEPTH) + 1))
    ndcg = sum(1 / math.log2(r + 1) for r in found) / ideal if ideal else 1.0
    return CaseResult(case.query, ranks, violations, recall, mrr, min(1.0, ndcg))


def bootstrap(cfg: Config, path: Path) -> int:
    """Draft cases from the notes (a note's title should find it) and the session records (a
    session's task should find the notes it touched); writes `path`, never over an existing file.
    Returns the number of cases drafted."""
    from hippo_git.files import write_text_atomic
    from hippo_git.index.records import read_records
    from hippo_git.notes.catalog import load_graph

    if path.exists():
        raise HippoError(f"{path} exists already", hint="edit it, or give another path to draft into")
    graph = load_graph(cfg)
    cases: list[dict[str, Any]] = []
    for note_path, note in sorted(graph.notes.items())[:BOOTSTRAP_NOTES]:
        if note.title.strip():
            cases.append({"query": note.title.strip(), "expected": [note_path], "must_not_include": []})
    sessions = [r for r in read_records(cfg.root) if r.get("task") and r.get("notes_touched")]
    for rec in sessions[-BOOTSTRAP_SESSIONS:]:
        touched = [p for p in rec["notes_touched"] if p in graph.notes]
        if touched:
            cases.append({"query": str(rec["task"]), "expected": touched, "must_not_include": []})
    if not cases:
        raise HippoError(
            "nothing to draft cases from: no notes with titles and no sessions that touched notes"
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    write_text_atomic(
        path, json.dumps({"version": CASES_VERSION, "cases": cases}, indent=2, ensure_ascii=False) + "\n"
    )
    return len(cases)
