"""`recall`: memories and notes ranked by relevance × strength × recency × confidence.

- relevance: BM25 of the query over the notes index (memories and notes in one FTS table), as a
  fraction of the best hit; an imported memory adds a share of its neighbours' (same origin,
  seq ± 1 and ± 2), as `search` does for a turn's session neighbours, and a neighbour that does
  not match can enter that way; a query naming a time ("last week", "in May 2023", read by
  `search`'s own `index/timewords.py`) multiplies the relevance of memories created then;
- strength: 0.5 ** (days since last use / half-life), where the half-life is the memory's own
  (7 days, doubled for errors) times a per-person factor that each recall and good outcome
  raises and each bad outcome lowers; pinned memories do not decay;
- recency: a mild preference for newer memories;
- confidence: verified > observed > inferred; an agent's memory not yet reviewed counts less.

A memory not recalled for `STALE_DAYS` shows as stale. Usage is per person (`usage.py`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import NamedTuple

from hippo_git.config import Config
from hippo_git.index.timewords import TimeSpan, find_time
from hippo_git.memories import usage as usage_db
from hippo_git.memories.record import Memory, from_front, now_iso, parse_time
from hippo_git.memories.store import Store, global_store, neighbours, open_index, search, workspace_store

STALE_DAYS = 30
STRENGTH_FLOOR = 0.1  # a decayed memory still shows when nothing else matches
RECENCY_DAYS = 90.0
TIER_WEIGHT = {"verified": 1.0, "observed": 0.9, "inferred": 0.7}
UNREVIEWED_WEIGHT = 0.8
NOTE_WEIGHT = 0.9
CANDIDATES = 200
NOTE_CANDIDATES = 30
DEFAULT_LIMIT = 10
# The weights `search` gives a turn's session neighbours (index/search.py): the share of a
# neighbour's relevance a memory gets, by distance 0, 1, 2 within its origin.
NEAR_WEIGHT = (0.0, 0.45, 0.3)
TIME_BOOST = 1.0  # a memory created in the span the query names: (1 + this) times the relevance
# Neighbours are looked up for this many of the best matches (those of the rest seldom reach the
# top, and each lookup costs a cold recall time).
NEAR_CANDIDATES = 50
AFTER_BOOST = 0.5  # … created in the week after the span (events are told after they happen)


class Recalled(NamedTuple):
    """One recalled item (a NamedTuple: a dataclass costs a cold `recall` its compilation)."""

    kind: str  # memory | note
    id: str  # memory id, or the note's path
    path: str
    store: str  # workspace | global | proposals
    text: str
    title: str
    tier: str  # verified | observed | inferred | stale | note
    confidence: str
    created: str
    tags: tuple[str, ...]
    reviewed: bool
    score: float
    parts: dict[str, float]
    usage: dict[str, object]
    # Who wrote it (the memory's front matter `source`: person, agent:<harness>, import:<kind>, …)
    # and where it stands in review, one of REVIEW_STATES.
    source: str = "person"
    review: str = "kept"

    @property
    def tokens(self) -> int:
        return len(self.text) // 4 + 8

    def as_dict(self, why: bool = False) -> dict[str, object]:
        out: dict[str, object] = {
            "kind": self.kind,
            "id": self.id,
            "path": self.path,
            "store": self.store,
            "tier": self.tier,
            "confidence": self.confidence,
            "reviewed": self.reviewed,
            "created": self.created,
            "tags": list(self.tags),
            "score": round(self.score, 4),
            "text": self.text,
            "source": self.source,
            "review": self.review,
        }
        if why:
            out["why"] = {k: round(v, 4) for k, v in self.parts.items()}
            out["usage"] = self.usage
        return out


# (memory, bm25 score, store name, reviewed)
Candidate = tuple[Memory, float, str, bool]
# kept: on the target branch or in the work tree (a person's, or applied after review);
# confirmed: a review confirmed it, waiting for a person's `git hippo apply`;
# awaiting-review: proposed, no review yet; held: the reviewer would not confirm it, a person decides.
REVIEW_STATES = ("kept", "confirmed", "awaiting-review", "held")
ProposalSource = Callable[[str, int], list[Candidate]]


def _days(later: datetime, earlier: datetime | None) -> float:
    if earlier is None:
        return 0.0
    return max(0.0, (later - earlier).total_seconds() / 86400.0)


def score_memory(
    memory: Memory, relevance: float, use: usage_db.Usage, now: datetime, *, reviewed: bool = True
) -> tuple[float, dict[str, float], bool]:
    """(score, its parts, stale) of one memory."""
    created = parse_time(memory.created)
    last = parse_time(use.last_recalled or "") or created
    half_life = memory.half_life * use.factor
    idle = _days(now, last)
    strength = 1.0 if memory.pinned else 0.5 ** (idle / half_life)
    recency = 1.0 / (1.0 + _days(now, created) / RECENCY_DAYS)
    confidence = TIER_WEIGHT.get(memory.confidence, 0.9) * (1.0 if reviewed else UNREVIEWED_WEIGHT)
    score = relevance * (STRENGTH_FLOOR + (1 - STRENGTH_FLOOR) * strength) * recency * confidence
    parts = {
        "relevance": relevance,
        "strength": strength,
        "recency": recency,
        "confidence": confidence,
        "half_life_days": half_life,
        "idle_days": idle,
    }
    stale = not memory.pinned and idle >= STALE_DAYS
    return score, parts, stale


def stores_of(cfg: Config | None, home: Path) -> list[Store]:
    stores = [workspace_store(cfg)] if cfg is not None else []
    glob = global_store(home)
    if glob.root.exists():
        stores.append(glob)
    return stores


def rejected_ids(store: Store) -> set[str]:
    if not (store.root / store.prefix / "rejected.jsonl").exists():
        return set()
    from hippo_git.memories.remember import rejected_values

    return {item.get("id", "") for item in rejected_values(store)}


def candidates(
    stores: Iterable[Store], query: str, limit: int = CANDIDATES, *, notes_too: bool = True
) -> tuple[list[Candidate], list[tuple[str, float, str, str]]]:
    """Memory candidates of every store, and (`notes_too`) the workspace's note candidates
    (path, bm25, body, title)."""
    mems: list[Candidate] = []
    notes: list[tuple[str, float, str, str]] = []
    for store in stores:
        conn = open_index(store)
        rejected = rejected_ids(store)
        try:
            for path, bm25, front, body, _ in search(conn, store, query, limit):
                if path.rsplit("/", 1)[-1].removesuffix(".md") in rejected:
                    continue  # kept as a file, but its value lost a conflict
                data = json.loads(front)
                if isinstance(data, dict) and data.get("forgotten"):
                    continue
                mems.append(
                    (from_front(data if isinstance(data, dict) else {}, body, path), bm25, store.name, True)
                )
            mems += _near(conn, store, mems, rejected)
            if store.name == "workspace" and notes_too:
                notes = [
                    (p, s, b, t)
                    for p, s, _, b, t in search(conn, store, query, NOTE_CANDIDATES, memories=False)
                ]
        finally:
            conn.close()
    return mems, notes


def _near(
    conn: sqlite3.Connection, store: Store, mems: list[Candidate], rejected: set[str]
) -> list[Candidate]:
    """The ±1, ±2 neighbours of this store's imported candidates that are not candidates
    themselves, with no BM25 of their own: they can rank on their neighbours' relevance."""
    mine = [(m.origin, m.seq, bm25) for m, bm25, name, _ in mems if m.origin and name == store.name]
    have = {(o, n) for o, n, _ in mine}
    best = sorted(mine, key=lambda c: -c[2])[:NEAR_CANDIDATES]
    places = {(o, n + d) for o, n, _ in best for d in (-2, -1, 1, 2)} - have
    return [(m, 0.0, store.name, True) for m, _ in neighbours(conn, store, places) if m.id not in rejected]


def smoothed(mems: list[Candidate], top: float) -> dict[str, float]:
    """memory id → its relevance plus its neighbours' shares (NEAR_WEIGHT by distance)."""
    own = {m.id: bm25 / top for m, bm25, _, _ in mems}
    at = {(m.origin, m.seq): m.id for m, _, _, _ in mems if m.origin}
    out = dict(own)
    for (origin, seq), mid in at.items():
        for d in (1, 2):
            for other in (at.get((origin, seq - d)), at.get((origin, seq + d))):
                if other is not None:
                    out[mid] += NEAR_WEIGHT[d] * own[other]
    return out


def time_factor(created: str, span: TimeSpan | None) -> float:
    """How much a memory created at `created` gains for a query naming `span`."""
    when = parse_time(created)
    if span is None or when is None:
        return 1.0
    moment = when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S")
    if span.holds(moment):
        return 1 + TIME_BOOST
    end = datetime.fromisoformat(span.end).replace(tzinfo=UTC) + timedelta(days=7)
    return 1 + AFTER_BOOST if span.end <= moment < end.strftime("%Y-%m-%dT%H:%M:%S") else 1.0


def rank(
    mems: list[Candidate],
    notes: list[tuple[str, float, str, str]],
    uses: dict[str, usage_db.Usage],
    now: datetime,
    span: TimeSpan | None = None,
) -> list[Recalled]:
    top = max([c[1] for c in mems] + [n[1] for n in notes] + [1e-9])
    near = smoothed(mems, top)
    out: list[Recalled] = []
    seen: set[str] = set()
    for memory, bm25, store, reviewed in mems:
        if memory.id in seen:
            continue  # the same memory in two stores (or proposed and kept): once
        seen.add(memory.id)
        use = uses.get(memory.id, usage_db.Usage())
        timed = time_factor(memory.created, span)
        relevance = near.get(memory.id, bm25 / top) * timed
        if relevance <= 0:
            continue  # a neighbour whose matching neighbours went to another store's copy
        score, parts, stale = score_memory(memory, relevance, use, now, reviewed=reviewed)
        if memory.origin:
            parts["own_relevance"] = bm25 / top
        if span is not None:
            parts["time"] = timed
        out.append(
            Recalled(
                kind="memory",
                id=memory.id,
                path=memory.path,
                store=store,
                text=memory.text,
                title=memory.text.split("\n", 1)[0][:80],
                tier="stale" if stale else memory.confidence,
                confidence=memory.confidence,
                created=memory.created,
                tags=memory.tags,
                reviewed=reviewed,
                score=score,
                parts=parts,
                usage=use.as_dict(),
                source=memory.source,
                review="kept" if store != "proposals" else "confirmed" if reviewed else "awaiting-review",
            )
        )
    for path, bm25, body, title in notes:
        relevance = bm25 / top
        out.append(
            Recalled(
                kind="note",
                id=path,
                path=path,
                store="workspace",
                text=body.strip(),
                title=title,
                tier="note",
                confidence="note",
                created="",
                tags=(),
                reviewed=True,
                score=relevance * NOTE_WEIGHT,
                parts={"relevance": relevance, "note": NOTE_WEIGHT},
                usage={},
            )
        )
    out.sort(key=lambda r: (-r.score, r.id))
    return out


def fit_budget(items: list[Recalled], budget_tokens: int | None, limit: int) -> list[Recalled]:
    """The best items up to `limit` whose texts fit in `budget_tokens` (the first always does)."""
    chosen: list[Recalled] = []
    used = 0
    for item in items:
        if len(chosen) >= limit:
            break
        if budget_tokens is not None and chosen and used + item.tokens > budget_tokens:
            continue
        chosen.append(item)
        used += item.tokens
    return chosen


def recall(
    cfg: Config | None,
    home: Path,
    query: str,
    *,
    budget_tokens: int | None = None,
    limit: int = DEFAULT_LIMIT,
    notes: bool = True,
    record: bool = True,
    now: datetime | None = None,
    proposals: ProposalSource | None = None,
) -> list[Recalled]:
    """The memories (and notes) that best match `query`; records the recall unless `record=False`."""
    from hippo_git.errors import HippoError

    if not query.strip():
        raise HippoError(
            "the recall query is empty", hint="give words to look for, e.g. `git hippo recall build`"
        )
    now = now or datetime.now(UTC)
    stores = stores_of(cfg, home)
    span, rest = find_time(query, now)
    if span is not None and not rest.strip():
        rest = query  # nothing but a time: look for its words too
    mems, note_hits = candidates(stores, rest, notes_too=notes)
    if proposals is not None:
        mems += proposals(rest, CANDIDATES)
    conn = usage_db.connect(home)
    try:
        uses = usage_db.get_usage(conn, [m[0].id for m in mems])
        ranked = rank(mems, note_hits if notes else [], uses, now, span)
        chosen = fit_budget(ranked, budget_tokens, limit)
        if record:
            ids = [r.id for r in chosen if r.kind == "memory"]
            if ids:
                usage_db.record_recall(conn, ids, now_iso(now))
    finally:
        conn.close()
    return chosen


def open_usage(home: Path) -> sqlite3.Connection:
    return usage_db.connect(home)
