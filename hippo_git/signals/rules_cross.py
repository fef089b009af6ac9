"""The rollup's rules over what only shows across sessions.

Two unrelated sessions editing one file at overlapping times, and a session making a change
another session had already made (work redone). Both read the rollup's stored edits a group at
a time (`overlapping_edits`: one path's edits; `redone_edits`: the edits of files sharing one
base name), so the rollup streams its edits table ordered by path or name and never holds it
whole. Times are compared as epochs, parsed once per edit (the rollup stores them) and once per
session (`windows`). Output stays bounded however many sessions touch one file: a (session,
path) gets at most `PER_PATH` incidents of a rule, and one more that counts the rest. Overlaps
are found by a sweep over each session's time on the path sorted by start, so only sessions
whose times overlap are ever compared: O(n log n + k) for n sessions on the path and k pairs
whose times overlap.
`FORMAT_VERSION` in `rollup.py` must be bumped whenever a rule here changes what it finds.
"""

from __future__ import annotations

import heapq
import os
from bisect import bisect_right
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from itertools import groupby
from operator import attrgetter

from hippo_git.signals.rollup_facts import EditRow, Incident, SessionSpan, epoch
from hippo_git.signals.rules_incidents import incident

PER_PATH = 5  # incidents of one rule a (session, path) shows by name; the rest are counted

Found = tuple[str, Incident]  # (the session it belongs to, the incident)


@dataclass(frozen=True)
class Window:
    """A session as the cross-session rules see it: its family and its active time, as epochs."""

    id: str
    root: str  # subagents and forks are `root/...`
    parent: str | None
    start: float  # started, nudged back a moment so an edit at the first turn counts as inside
    end: float | None  # ended; None: unknown, so no edit is known to fall inside it


def window(span: SessionSpan) -> Window:
    started, ended = epoch(span.started), epoch(span.ended)
    start = started - 0.001 if started is not None else float("-inf")
    return Window(span.id, span.id.split("/", 1)[0], span.parent, start, ended)


def windows(spans: Iterable[SessionSpan]) -> dict[str, Window]:
    return {s.id: window(s) for s in spans}


def related(a: Window, b: Window) -> bool:
    """Delegation is not a clash: a session and its subagents (or forks) share their work."""
    return (
        a.root == b.root
        or a.parent == b.id
        or b.parent == a.id
        or (a.parent is not None and a.parent == b.parent)
    )


def at(row: EditRow) -> float | None:
    return row.at if row.at is not None else epoch(row.ts)


class _OnPath:
    """One session's edits of one path: their times sorted, and the rows in turn order."""

    __slots__ = ("win", "times", "rows", "first", "lo", "hi", "rank")

    def __init__(self, win: Window, rows: list[tuple[int, float, EditRow]]) -> None:
        assert win.end is not None
        self.win = win
        self.rows = sorted(rows, key=lambda e: e[0])
        self.times = sorted(t for _, t, _ in rows)
        self.first = self.times[0]  # of two sessions, the one that came to the path later shows the clash
        # When it can clash: its edits of the path and its active time.
        self.lo, self.hi = min(self.first, win.start), max(self.times[-1], win.end)
        self.rank = 0  # its place among the path's sessions by first edit

    def first_within(self, w: Window) -> EditRow:
        assert w.end is not None
        return next(r for _, t, r in self.rows if w.start < t <= w.end)


def _on_path(rows: Iterable[EditRow], wins: dict[str, Window]) -> list[_OnPath]:
    edits: dict[str, list[tuple[int, float, EditRow]]] = {}
    for row in rows:
        t = at(row) if row.ts else None
        win = wins.get(row.session)
        # A session with no known end has no time another session's edit could fall inside.
        if t is not None and win is not None and win.end is not None:
            edits.setdefault(row.session, []).append((row.seq, t, row))
    return [_OnPath(wins[sid], found) for sid, found in edits.items()]


def _within(times: list[float], w: Window) -> bool:
    """Whether one of `times` (sorted) falls inside `w`."""
    i = bisect_right(times, w.start)
    return i < len(times) and w.end is not None and times[i] <= w.end


def overlapping_edits(path: str, rows: Iterable[EditRow], wins: dict[str, Window]) -> Iterator[Found]:
    """For one path's edits: a session that edited it while an unrelated session was active that
    also edited it while this one was active (shown on the session that came to the file later).

    Each session's time on the path (its edits and its active time) holds any clash it has:
    sorted by start and swept, each session meets only those whose time is still open."""
    sessions = _on_path(rows, wins)
    if len(sessions) < 2:
        return
    for n, s in enumerate(sorted(sessions, key=lambda s: (s.first, s.win.id))):
        s.rank = n
    sessions.sort(key=lambda s: (s.lo, s.rank))
    open_: list[_OnPath] = []
    nearest: dict[int, list[tuple[int, _OnPath]]] = {}  # later rank → the PER_PATH latest earlier
    counts: dict[int, int] = {}
    for s in sessions:
        open_ = [o for o in open_ if o.hi >= s.lo]
        for o in open_:
            if related(o.win, s.win) or not (_within(o.times, s.win) and _within(s.times, o.win)):
                continue
            early, late = (o, s) if o.rank < s.rank else (s, o)
            heap = nearest.setdefault(late.rank, [])
            if len(heap) < PER_PATH:
                heapq.heappush(heap, (early.rank, early))
            elif early.rank > heap[0][0]:
                heapq.heapreplace(heap, (early.rank, early))
            counts[late.rank] = counts.get(late.rank, 0) + 1
        open_.append(s)
    by_rank = {s.rank: s for s in sessions}
    name = os.path.basename(path)
    for rank in sorted(nearest):
        late = by_rank[rank]
        for _, early in sorted(nearest[rank]):
            cause = late.first_within(early.win)
            other = early.win.id
            summary = f"{name} was edited by this session and {other} at overlapping times"
            yield late.win.id, _incident(cause, "overlapping_edits", summary, path, other)
        rest = counts[rank] - len(nearest[rank])
        if rest:
            summary = f"{name} was also edited at overlapping times by {_more(rest, 'session')}"
            yield late.win.id, _incident(late.rows[0][2], "overlapping_edits", summary, path, None)


def redone_edits(rows: Iterable[EditRow], wins: dict[str, Window]) -> Iterator[Found]:
    """For the edits of files sharing one base name: an edit making the same change (same digest
    of the new text) an unrelated session had made first. A (session, path) names at most
    `PER_PATH` of them, the earliest, and counts the rest in one more incident."""
    keyed = [(at(r) or 0.0, r) for r in rows if r.digest and r.ts]
    keyed.sort(key=lambda e: (e[1].digest, e[0], e[1].session, e[1].seq))
    redone: dict[tuple[str, str], list[tuple[float, EditRow, EditRow]]] = {}
    for _, same in groupby(keyed, key=lambda e: e[1].digest):
        first: EditRow | None = None
        for t, row in same:
            if first is None:
                first = row
            if first.session == row.session:
                continue
            a, b = wins.get(first.session), wins.get(row.session)
            if a is None or b is None or related(a, b):
                continue
            redone.setdefault((row.session, row.path), []).append((t, row, first))
    for (sid, path), found in sorted(redone.items()):
        found.sort(key=lambda e: (e[0], e[1].seq))
        name = os.path.basename(path)
        for _, row, earlier in found[:PER_PATH]:
            summary = f"made the same change to {name} that {earlier.session}#{earlier.seq} had made"
            yield sid, _incident(row, "redone_edit", summary, path, earlier.session)
        if len(found) > PER_PATH:
            row = found[PER_PATH][1]
            summary = f"made {_more(len(found) - PER_PATH, 'change')} to {name} that other sessions had made"
            yield sid, _incident(row, "redone_edit", summary, path, None)


def _more(n: int, noun: str) -> str:
    return f"{n} more {noun}{'s' if n != 1 else ''}"


def _incident(at_row: EditRow, rule: str, summary: str, path: str, other: str | None) -> Incident:
    return incident(at_row, at_row.seq, rule, path, summary=summary, path=path, other_session=other)


def cross_session(rows: Iterable[EditRow], spans: dict[str, SessionSpan]) -> list[Found]:
    """(session, incident) of both rules over `rows` held in memory (the rollup streams instead)."""
    wins = windows(spans.values())
    edits = list(rows)
    found: list[Found] = []
    for path, group in groupby(sorted(edits, key=attrgetter("path")), key=attrgetter("path")):
        found += overlapping_edits(path, group, wins)
    by_name = sorted(edits, key=lambda r: os.path.basename(r.path))
    for _, group in groupby(by_name, key=lambda r: os.path.basename(r.path)):
        found += redone_edits(group, wins)
    return found
