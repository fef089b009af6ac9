"""Reading sessions and turns back out of the index (already redacted), and the filters they share
with search: harness, time (`--since`), and workspace (cwd under the repo or a listed session)."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Collection, Sequence
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

from hippo_git.errors import HippoError, UsageError
from hippo_git.index.workspace import prefix_range

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any

DEFAULT_LIMIT = 50


@dataclass(frozen=True)
class SessionRow:
    """One session of the index, as `sessions` lists it."""

    id: str
    harness: str
    cwd: str | None
    title: str | None
    started: str | None
    ended: str | None
    parent_id: str | None
    model: str | None
    git_branch: str | None
    turns: int

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass(frozen=True)
class TurnRow:
    """One turn of a session, as `show` prints it."""

    session_id: str
    seq: int
    kind: str
    text: str
    ts: str | None
    tool: str | None
    is_error: bool
    paths: tuple[str, ...]
    edited: bool

    def as_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["paths"] = list(self.paths)
        return data


# A turn as stored: the rollup reads the same columns (into `rollup_compute.IndexedTurn`).
TURNS_SELECT = "SELECT session_id, seq, kind, text, ts, tool, is_error, paths_json, edited FROM turns"

_SESSION_COLS = (
    "s.id, s.harness, s.cwd, s.title, s.started, s.ended, s.parent_id, s.model, s.git_branch, s.turns"
)


def _session(row: Sequence[Any]) -> SessionRow:
    return SessionRow(row[0], row[1], row[2], row[3], row[4], row[5], row[6], row[7], row[8], int(row[9]))


def list_sessions(
    conn: sqlite3.Connection,
    *,
    harness: str | None = None,
    workspace_cwds: Sequence[str] | None = None,
    session_ids: Collection[str] | None = None,
    since: str | None = None,
    limit: int | None = DEFAULT_LIMIT,
) -> list[SessionRow]:
    """Sessions, newest first. `workspace_cwds`/`session_ids` keep only those under one of the
    folders or listed by id (either suffices); `since` is an ISO time or a relative span like `7d`."""
    where, params = session_filters(
        harness=harness, cwds=workspace_cwds, session_ids=session_ids, since=since
    )
    sql = f"SELECT {_SESSION_COLS} FROM sessions s"
    if where:
        sql += " WHERE " + " AND ".join(where)
    sql += " ORDER BY coalesce(s.started, s.ended) IS NULL, coalesce(s.started, s.ended) DESC, s.id"
    if limit is not None:
        sql += " LIMIT ?"
        params.append(max(0, int(limit)))
    return [_session(r) for r in conn.execute(sql, params)]


def session_filters(
    *,
    harness: str | None = None,
    cwds: Sequence[str] | None = None,
    session_ids: Collection[str] | None = None,
    since: str | None = None,
    time_expr: str = "coalesce(s.ended, s.started)",
) -> tuple[list[str], list[Any]]:
    """SQL conditions over `sessions s` (ANDed by the caller) and their parameters."""
    where: list[str] = []
    params: list[Any] = []
    if harness:
        where.append("s.harness = ?")
        params.append(harness)
    if cwds is not None or session_ids is not None:
        either: list[str] = []
        for cwd in cwds or ():
            cwd = cwd.rstrip("/") or "/"
            lo, hi = prefix_range(cwd)
            either.append("s.cwd = ? OR (s.cwd >= ? AND s.cwd < ?)")
            params += [cwd, lo, hi]
        ids = list(session_ids or ())
        if ids:
            either.append(f"s.id IN ({','.join('?' * len(ids))})")
            params += ids
        where.append("(" + " OR ".join(either) + ")" if either else "0")
    if since:
        where.append(f"{time_expr} >= ?")
        params.append(parse_since(since))
    return where, params


def resolve_session_id(conn: sqlite3.Connection, prefix: str) -> str:
    """The one indexed session whose id is `prefix` or starts with it."""
    prefix = prefix.strip()
    if not prefix:
        raise UsageError("empty session id", hint="list sessions with `git hippo sessions`")
    if conn.execute("SELECT 1 FROM sessions WHERE id = ?", (prefix,)).fetchone():
        return prefix
    rows = [
        r[0]
        for r in conn.execute(
            "SELECT id FROM sessions WHERE id >= ? AND id < ? ORDER BY id LIMIT 11",
            (prefix, prefix + "\U0010ffff"),
        )
    ]
    if not rows:
        raise HippoError(f"no indexed session matches {prefix!r}", hint="list them with `git hippo sessions`")
    if len(rows) > 1:
        shown = ", ".join(rows[:10]) + (", …" if len(rows) > 10 else "")
        raise HippoError(f"session id {prefix!r} is ambiguous: {shown}", hint="type more of the id")
    return str(rows[0])


def get_session(conn: sqlite3.Connection, session_id: str) -> SessionRow | None:
    row = conn.execute(f"SELECT {_SESSION_COLS} FROM sessions s WHERE s.id = ?", (session_id,)).fetchone()
    return None if row is None else _session(row)


def get_turns(
    conn: sqlite3.Connection, session_id: str, seqs: Collection[int] | None = None
) -> list[TurnRow]:
    """A session's turns in order (only `seqs` when given)."""
    sql = TURNS_SELECT + " WHERE session_id = ?"
    params: list[Any] = [session_id]
    if seqs is not None:
        wanted = sorted({int(s) for s in seqs})
        if not wanted:
            return []
        sql += f" AND seq IN ({','.join('?' * len(wanted))})"
        params += wanted
    sql += " ORDER BY seq"
    return [
        TurnRow(
            session_id=r[0],
            seq=int(r[1]),
            kind=r[2],
            text=r[3],
            ts=r[4],
            tool=r[5],
            is_error=bool(r[6]),
            paths=tuple(json.loads(r[7])) if r[7] else (),
            edited=bool(r[8]),
        )
        for r in conn.execute(sql, params)
    ]


_RELATIVE = re.compile(r"^\s*(\d+)\s*(m|min|h|d|w)\s*$", re.I)
_UNITS = {"m": "minutes", "min": "minutes", "h": "hours", "d": "days", "w": "weeks"}


def parse_since(text: str, now: datetime | None = None) -> str:
    """`7d`, `12h`, `30m`, `2w` or an ISO date/time → an ISO-8601 UTC prefix that sorts like the
    index's timestamps (`2026-01-02T03:04:05`)."""
    match = _RELATIVE.match(text)
    if match:
        now = now or datetime.now(UTC)
        delta = timedelta(**{_UNITS[match.group(2).lower()]: int(match.group(1))})
        return (now - delta).strftime("%Y-%m-%dT%H:%M:%S")
    try:
        when = datetime.fromisoformat(text.strip().replace("Z", "+00:00"))
    except ValueError:
        raise UsageError(
            f"cannot read the time {text!r}",
            hint="use an ISO date (2026-01-31) or a span like 7d, 12h, 30m, 2w",
        ) from None
    if when.tzinfo is not None:
        when = when.astimezone(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%S")


def last_turn_id(conn: sqlite3.Connection) -> int:
    """The index's ingest sequence: the id of the newest turn row (ids grow as ingest inserts)."""
    row = conn.execute("SELECT max(id) FROM turns").fetchone()
    return int(row[0] or 0)


def turns_after(conn: sqlite3.Connection, after_id: int) -> dict[str, dict[int, str | None]]:
    """session id → {seq: ts} of the turns ingested after turn row `after_id`, whatever their time."""
    out: dict[str, dict[int, str | None]] = {}
    for sid, seq, ts in conn.execute("SELECT session_id, seq, ts FROM turns WHERE id > ?", (after_id,)):
        out.setdefault(str(sid), {})[int(seq)] = ts
    return out
