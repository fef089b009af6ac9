"""The rollup's rows of sessions, computed from the index's turns by the rules (`rules*.py`).

The sessions of a chunk (see `rollup_pool`) are read in id order: those of a first build by one
pass over the chunk's range of the turns table in (session, seq) order, grouped as it streams;
the few of an update by one indexed query each. Each turn becomes an `IndexedTurn`, a named
tuple (a frozen dataclass per turn took longer than the query that read it). Each session is
read once: a delegated session's commands, evidence for its parent's claims, are kept from its
own analysis until the parent uses them, and a parent read before its subagents waits for them
(a few at a time; past that, its subagents are read out of turn). The rows come out as plain
tuples, ready to insert, or to pickle from a worker.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Collection, Iterator
from itertools import groupby
from operator import itemgetter
from typing import Any, NamedTuple

from hippo_git.index.sessions import TURNS_SELECT
from hippo_git.signals import rollup_parse as rp
from hippo_git.signals import rules
from hippo_git.signals.rollup_facts import Command, SessionFacts, epoch

MAX_WAITING = 64  # parents held (with their turns) until their subagents have been read


class IndexedTurn(NamedTuple):
    """One row of `sessions.TURNS_SELECT`, as the rules read it (see `rollup_facts.Turn`): raw
    columns, unlike `sessions.TurnRow`, which converts them for display and JSON."""

    session_id: str
    seq: int
    kind: str
    text: str
    ts: str | None
    tool: str | None
    is_error: int
    paths_json: str | None
    edited: int

    @property
    def paths(self) -> tuple[str, ...]:
        return tuple(json.loads(self.paths_json)) if self.paths_json else ()


_make = IndexedTurn._make


Scan = tuple[str, str | None]  # read the turns of sessions lo <= id < hi (None: no end) in one pass


def session_turns(
    index: sqlite3.Connection, ids: list[str], scan: Scan | None
) -> Iterator[tuple[str, list[IndexedTurn]]]:
    """(id, turns in seq order) of each of `ids` (sorted), in that order: those in `scan` from one
    pass over its range, the others (and all, without `scan`) by one query each."""
    if scan is None:
        for sid in ids:
            yield sid, _turns_of(index, sid)
        return
    lo, hi = scan
    sql, params = TURNS_SELECT + " WHERE session_id >= ?", [lo]
    if hi is not None:
        sql, params = sql + " AND session_id < ?", [lo, hi]
    # The (session_id, seq) index orders by the bytes of the id's UTF-8, as Python orders strings.
    groups = groupby(index.execute(sql + " ORDER BY session_id, seq", params), key=itemgetter(0))
    current = next(groups, None)
    for sid in ids:
        if sid < lo or (hi is not None and sid >= hi):
            yield sid, _turns_of(index, sid)
            continue
        while current is not None and current[0] < sid:
            current = next(groups, None)
        if current is not None and current[0] == sid:
            yield sid, list(map(_make, current[1]))
            current = next(groups, None)
        else:
            yield sid, []  # a session without turns


def _turns_of(index: sqlite3.Connection, sid: str) -> list[IndexedTurn]:
    return list(map(_make, index.execute(TURNS_SELECT + " WHERE session_id = ? ORDER BY seq", (sid,))))


def children(index: sqlite3.Connection, parents: Collection[str], scan: Scan | None) -> dict[str, list[str]]:
    """parent → its subagents and forks (sorted), for those of `parents` that have any."""
    found: dict[str, list[str]] = {}
    if scan is None:
        for parent in sorted(parents):
            kids = [
                r[0]
                for r in index.execute("SELECT id FROM sessions WHERE parent_id = ? ORDER BY id", (parent,))
            ]
            if kids:
                found[parent] = kids
        return found
    sql, params = "SELECT id, parent_id FROM sessions WHERE parent_id >= ?", [scan[0]]
    if scan[1] is not None:
        sql, params = sql + " AND parent_id < ?", [scan[0], scan[1]]
    for sid, parent in index.execute(sql + " ORDER BY id", params):
        if parent in parents:
            found.setdefault(parent, []).append(sid)
    return found


class _Session(NamedTuple):
    turns: list[IndexedTurn]
    calls: rp.Calls
    commands: list[Command]


def computed(
    index: sqlite3.Connection, cwds: dict[str, str | None], scan: Scan | None
) -> Iterator[SessionRows]:
    """The rows of each session of `cwds` (id → the folder it ran in), roughly in id order: a
    parent comes after its subagents. `scan`: read the turns of that range in one pass."""
    todo = set(cwds)
    kids = children(index, todo, scan)
    parent_of = {kid: parent for parent, found in kids.items() for kid in found}
    delegated: dict[str, list[Command]] = {}  # a subagent's commands, until its parent takes them
    waiting: dict[str, _Session] = {}
    done: set[str] = set()

    def ready(parent: str) -> bool:
        return all(kid in delegated for kid in kids.get(parent, ()))

    def analysed(sid: str, s: _Session) -> SessionRows:
        done.add(sid)
        theirs = [c for kid in kids.get(sid, ()) for c in delegated.pop(kid)]
        facts = rules.analyse(
            s.turns, cwd=cwds[sid], delegated=theirs, session=sid, calls=s.calls, cmds=s.commands
        )
        return session_rows(sid, facts)

    for sid, turns in session_turns(index, sorted(todo | parent_of.keys()), scan):
        calls = rp.Calls(turns)
        session = _Session(turns, calls, rules.commands(turns, sid, calls))
        parent = parent_of.get(sid)
        if parent is not None and parent not in done:
            delegated[sid] = session.commands
        if sid in todo:
            if ready(sid):
                yield analysed(sid, session)
            else:
                waiting[sid] = session
                if len(waiting) > MAX_WAITING:
                    oldest = next(iter(waiting))
                    _read_out_of_turn(index, kids[oldest], delegated)
                    yield analysed(oldest, waiting.pop(oldest))
        if parent in waiting and ready(parent):
            yield analysed(parent, waiting.pop(parent))
    for sid in list(waiting):  # a subagent outside `scan` (or one that left the index meanwhile)
        _read_out_of_turn(index, kids[sid], delegated)
        yield analysed(sid, waiting.pop(sid))


def _read_out_of_turn(
    index: sqlite3.Connection, kids: list[str], delegated: dict[str, list[Command]]
) -> None:
    for kid in kids:
        if kid not in delegated:
            delegated[kid] = rules.commands(_turns_of(index, kid), kid)


FACT_TABLES = ("edits", "commands", "waits", "prs", "claims", "incidents")


class SessionRows(NamedTuple):
    """A session's rows in the rollup, but for the `sessions` columns copied from the index."""

    sid: str
    values: tuple[Any, ...]  # work_seconds, wall_seconds, wait_seconds, user_waits, task, outcome
    tables: tuple[list[tuple[Any, ...]], ...]  # its rows of each of FACT_TABLES, in that order

    @property
    def edited(self) -> set[str]:
        """The paths it edits."""
        return {row[3] for row in self.tables[0]}


def session_rows(sid: str, f: SessionFacts) -> SessionRows:
    values = (
        f.work_seconds, f.wall_seconds, sum(w.seconds for w in f.waits), sum(1 for w in f.waits if w.for_user),
        f.task, f.outcome,
    )  # fmt: skip
    edits = [
        (sid, e.seq, e.ts, e.path, e.added, e.removed, e.digest, epoch(e.ts), os.path.basename(e.path))
        for e in f.edits
    ]
    commands = [
        (sid, c.seq, c.out_seq, c.ts, c.command[:2000], ",".join(c.categories), c.exit) for c in f.commands
    ]
    waits = [(sid, w.seq, w.ts, w.seconds, int(w.for_user)) for w in f.waits]
    prs = [(sid, p.seq, p.ts, p.action, p.url) for p in f.prs]
    claims = [
        (sid, c.seq, c.ts, c.kind, c.text, c.status)
        + (
            (
                c.evidence.session or sid,
                c.evidence.seq,
                c.evidence.out_seq,
                c.evidence.command[:500],
                c.evidence.exit,
            )
            if c.evidence
            else (None,) * 5
        )
        for c in f.claims
    ]
    incidents = [
        (sid, i.seq, i.cause, i.ts, i.kind, i.rule, i.summary, i.excerpt, i.path, i.other_session)
        for i in f.incidents
    ]
    return SessionRows(sid, values, (edits, commands, waits, prs, claims, incidents))
