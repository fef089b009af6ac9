"""Where a dream's window starts and which turns in it are new, by time and by ingest sequence.

By time alone, a session ingested after a dream whose turns are older than that dream's window
would never be dreamt over. So the state also keeps, per pack, the newest turn of the index its
last run had (`DreamState.marks`): turns ingested after it are new whatever their time.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from hippo_git.dream import gather
from hippo_git.dream.packs import Pack
from hippo_git.dream.state import CurrentRun, DreamState
from hippo_git.index.sessions import last_turn_id, turns_after


@dataclass(frozen=True)
class NewTurns:
    """Which turns a run has not dreamt over: those ingested after its packs' last run (`seqs`,
    session → turn seqs, from the index's ingest sequence) and any from `until` (the end of the
    last window) on. Chunks before `until` then show only what arrived since, not what was seen."""

    until: datetime
    seqs: dict[str, set[int]]

    def session(self, record: dict[str, Any]) -> bool:
        ended = gather.parse_time(record.get("ended")) or gather.parse_time(record.get("started"))
        return str(record.get("id")) in self.seqs or (ended is not None and ended >= self.until)

    def turn(self, session: str, seq: int, ts: datetime | None, started: datetime | None) -> bool:
        when = ts or started
        return seq in self.seqs.get(session, ()) or (when is not None and when >= self.until)


def earliest_new(new: dict[str, dict[int, str | None]], records: Sequence[dict[str, Any]]) -> datetime | None:
    """The time of the earliest turn ingested since a mark, among this workspace's sessions."""
    times = []
    for record in records:
        seqs = new.get(str(record.get("id")))
        if seqs:
            stamps = [t for ts in seqs.values() if (t := gather.parse_time(ts)) is not None]
            when = min(stamps) if stamps else gather.parse_time(record.get("started"))
            if when is not None:
                times.append(when)
    return min(times) if times else None


def _window_start(state: DreamState, packs: list[Pack], records: Sequence[dict[str, Any]]) -> datetime | None:
    starts = []
    for pack in packs:
        when = gather.parse_time(state.windows.get(pack.name))
        if when is None:
            when = gather.earliest_start(records)
        if when is not None:
            starts.append(when)
    return min(starts) if starts else None


@dataclass(frozen=True)
class WindowPlan:
    """Where a dream run starts and which of the turns in its window are new to its packs."""

    since: datetime | None  # where the run's window starts
    seen_id: int | None  # the packs' mark: turns ingested after it were not dreamt over
    seen_until: str | None  # the end of the packs' last window
    upto_id: int | None  # the newest turn as the run began: the mark once it finishes
    new: NewTurns | None  # what is new in chunks before seen_until (None: everything)


def plan_window(
    state: DreamState,
    packs: list[Pack],
    records: Sequence[dict[str, Any]],
    conn: sqlite3.Connection | None,
    *,
    since: datetime | None,
    resume: CurrentRun | None,
) -> WindowPlan:
    """The window by time and by ingest sequence: a session ingested after the last run whose turns
    are older than its window moves the start back to them, and chunks before the old window's end
    show only turns ingested since. `--since` dreams over everything in the window it names."""
    asked = since
    names = [p.name for p in packs]
    upto = last_turn_id(conn) if conn is not None else None
    if resume is not None:
        seen_id, seen_until = resume.seen_id, resume.seen_until
        upto = resume.upto_id if resume.upto_id is not None else upto
        since = asked or gather.parse_time(resume.since)
    else:
        marks = [state.marks.get(n) for n in names]
        ends = [gather.parse_time(state.windows.get(n)) for n in names]
        seen_id = min(m for m in marks if m is not None) if marks and None not in marks else None
        known = [e for e in ends if e is not None]
        seen_until = gather.iso(min(known)) if known and len(known) == len(ends) else None
        since = asked or _window_start(state, packs, records)
    new = None
    if asked is None and conn is not None and seen_id is not None and seen_until is not None:
        fresh = turns_after(conn, seen_id)
        until = gather.parse_time(seen_until)
        assert until is not None
        new = NewTurns(until=until, seqs={sid: set(seqs) for sid, seqs in fresh.items()})
        early = earliest_new(fresh, records) if resume is None else None
        if early is not None and (since is None or early < since):
            since = early
    return WindowPlan(since=since, seen_id=seen_id, seen_until=seen_until, upto_id=upto, new=new)
