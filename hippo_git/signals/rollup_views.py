"""What the signal views show, read from the rollup (and the index for turn text): overview, fleet,
incidents, xray and card. Plain dicts, ready for `--json`; the CLI only lays them out."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any

from hippo_git.config import Config
from hippo_git.index.sessions import get_turns, session_filters
from hippo_git.signals.rollup_facts import excerpt

UNSUPPORTED = ("unchecked", "contradicted")


def workspace_scope(cfg: Config) -> tuple[list[str], list[str]]:
    """(cwds, session ids) of this workspace: its worktrees and the sessions it holds records of."""
    from hippo_git.index.workspace import workspace_filter

    return workspace_filter(cfg)


def _where(
    scope: tuple[Sequence[str], Sequence[str]] | None, since: str | None = None
) -> tuple[str, list[Any]]:
    cwds, ids = scope if scope is not None else (None, None)
    where, params = session_filters(
        cwds=cwds, session_ids=ids, since=since, time_expr="coalesce(s.started, s.ended)"
    )
    return (" WHERE " + " AND ".join(where)) if where else "", params


def _session_rows(conn: sqlite3.Connection, where: str, params: list[Any]) -> list[dict[str, Any]]:
    sql = f"""
    SELECT s.id, s.harness, s.cwd, substr(coalesce(s.started, s.ended), 1, 10), s.work_seconds, s.started, s.ended,
        (SELECT count(DISTINCT path) FROM edits e WHERE e.session_id = s.id),
        (SELECT coalesce(sum(added), 0) FROM edits e WHERE e.session_id = s.id),
        (SELECT coalesce(sum(removed), 0) FROM edits e WHERE e.session_id = s.id),
        (SELECT count(*) FROM prs p WHERE p.session_id = s.id AND p.action = 'opened'),
        (SELECT count(*) FROM prs p WHERE p.session_id = s.id AND p.action = 'merged'),
        (SELECT count(*) FROM incidents i WHERE i.session_id = s.id),
        (SELECT count(*) FROM claims c WHERE c.session_id = s.id),
        (SELECT count(*) FROM claims c WHERE c.session_id = s.id AND c.status IN ('unchecked', 'contradicted'))
    FROM sessions s{where}"""
    keys = [
        "id",
        "harness",
        "cwd",
        "day",
        "work_seconds",
        "started",
        "ended",
        "files_edited",
        "lines_added",
        "lines_removed",
        "prs_opened",
        "prs_merged",
        "incidents",
        "claims",
        "unsupported_claims",
    ]
    return [dict(zip(keys, row)) for row in conn.execute(sql, params)]


_SUMS = (
    "work_seconds",
    "files_edited",
    "lines_added",
    "lines_removed",
    "prs_opened",
    "prs_merged",
    "incidents",
    "claims",
    "unsupported_claims",
)


def _totals(rows: list[dict[str, Any]]) -> dict[str, Any]:
    by_harness: dict[str, int] = {}
    for r in rows:
        by_harness[r["harness"]] = by_harness.get(r["harness"], 0) + 1
    out: dict[str, Any] = {"sessions": len(rows), "by_harness": dict(sorted(by_harness.items()))}
    for key in _SUMS:
        out[key] = (
            round(sum(r[key] or 0 for r in rows), 1)
            if key == "work_seconds"
            else sum(r[key] or 0 for r in rows)
        )
    return out


def overview(
    conn: sqlite3.Connection,
    cfg: Config,
    *,
    days: int = 14,
    now: datetime | None = None,
    everywhere: bool = False,
) -> dict[str, Any]:
    """This workspace, day by day (newest first): sessions by harness, work time, edits, PRs,
    incidents and claims without a passing check."""
    since = ((now or datetime.now(UTC)) - timedelta(days=days)).strftime("%Y-%m-%dT%H:%M:%S")
    scope = None if everywhere else workspace_scope(cfg)
    where, params = _where(scope, since)
    rows = _session_rows(conn, where, params)
    per_day: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        per_day.setdefault(r["day"] or "unknown", []).append(r)
    return {
        "workspace": None if everywhere else str(cfg.root),
        "days": days,
        "since": since,
        "totals": _totals(rows),
        "per_day": [{"day": day, **_totals(items)} for day, items in sorted(per_day.items(), reverse=True)],
    }


def fleet(conn: sqlite3.Connection) -> list[dict[str, Any]]:
    """Every workspace (folder sessions ran in) and harness on this machine, busiest first."""
    groups: dict[tuple[str, str], list[dict[str, Any]]] = {}
    for r in _session_rows(conn, "", []):
        groups.setdefault((r["cwd"] or "(unknown)", r["harness"]), []).append(r)
    out = []
    for (cwd, harness), rows in groups.items():
        last = max((r["ended"] or r["started"] or "" for r in rows), default="")
        out.append({"workspace": cwd, "harness": harness, "last_active": last or None, **_totals(rows)})
        del out[-1]["by_harness"]
    return sorted(out, key=lambda r: (-r["work_seconds"], r["workspace"], r["harness"]))


def _turn_text(index: sqlite3.Connection | None, sid: str, seq: int | None) -> str | None:
    if index is None or seq is None:
        return None
    turns = get_turns(index, sid, [seq])
    return excerpt(turns[0].text) if turns else None


def incidents(
    conn: sqlite3.Connection,
    index: sqlite3.Connection | None,
    *,
    scope: tuple[Sequence[str], Sequence[str]] | None,
    kind: str | None = None,
    session: str | None = None,
    limit: int = 50,
) -> list[dict[str, Any]]:
    """Incidents newest first, each with the turn that caused it (`session#seq`) and its text."""
    where, params = _where(scope)
    conds = [where.removeprefix(" WHERE ")] if where else []
    if kind:
        conds.append("i.kind = ?")
        params.append(kind)
    if session:
        conds.append("(i.session_id = ? OR i.other_session = ?)")
        params += [session, session]
    sql = (
        "SELECT i.session_id, i.seq, i.cause, coalesce(i.ts, s.started), i.kind, i.rule, i.summary, i.excerpt, i.path, "
        "i.other_session, s.harness, s.cwd FROM incidents i JOIN sessions s ON s.id = i.session_id"
        + (" WHERE " + " AND ".join(conds) if conds else "")
        + " ORDER BY coalesce(i.ts, s.started) DESC, i.session_id, i.seq DESC LIMIT ?"
    )
    out = []
    for sid, seq, cause, ts, k, rule, summary, text, path, other, harness, cwd in conn.execute(
        sql, [*params, limit]
    ):
        turn = cause if cause is not None else seq
        out.append(
            {
                "session": sid, "seq": seq, "at": f"{sid}#{seq}" if seq is not None else None,
                "turn": f"{sid}#{turn}" if turn is not None else None,
                "cause": f"{sid}#{cause}" if cause is not None else None, "time": ts, "kind": k, "rule": rule,
                "summary": summary, "excerpt": text, "cause_excerpt": _turn_text(index, sid, cause),
                "path": path, "other_session": other, "harness": harness, "cwd": cwd,
            }
        )  # fmt: skip
    return out


def _evidence(row: Sequence[Any]) -> dict[str, Any] | None:
    ev_session, ev_seq, ev_out_seq, command, code = row
    if ev_session is None:
        return None
    return {
        "turn": f"{ev_session}#{ev_seq}",
        "output": f"{ev_session}#{ev_out_seq}" if ev_out_seq is not None else None,
        "command": command,
        "exit": code,
    }


def claims_of(conn: sqlite3.Connection, sid: str) -> list[dict[str, Any]]:
    rows = conn.execute(
        "SELECT seq, ts, kind, text, status, ev_session, ev_seq, ev_out_seq, ev_command, ev_exit FROM claims WHERE session_id = ? ORDER BY seq",
        (sid,),
    )
    return [
        {
            "turn": f"{sid}#{r[0]}",
            "seq": r[0],
            "time": r[1],
            "kind": r[2],
            "text": r[3],
            "status": r[4],
            "evidence": _evidence(r[5:]),
        }
        for r in rows
    ]


def session_summary(conn: sqlite3.Connection, sid: str) -> dict[str, Any] | None:
    rows = _session_rows(conn, " WHERE s.id = ?", [sid])
    if not rows:
        return None
    row = conn.execute(
        "SELECT title, parent_id, wall_seconds, wait_seconds, user_waits, task, outcome, turns FROM sessions WHERE id = ?",
        (sid,),
    ).fetchone()
    keys = ("title", "parent_id", "wall_seconds", "wait_seconds", "user_waits", "task", "outcome", "turns")
    return {**rows[0], **dict(zip(keys, row))}


def xray(conn: sqlite3.Connection, index: sqlite3.Connection | None, sid: str) -> dict[str, Any]:
    """One session turn by turn: each claim beside its evidence, and each incident with its cause."""
    summary = session_summary(conn, sid)
    claim_rows = claims_of(conn, sid)
    incident_rows = incidents(conn, index, scope=None, session=sid, limit=10_000)
    timeline: list[dict[str, Any]] = [{"seq": c["seq"], "type": "claim", **c} for c in claim_rows]
    timeline += [{"type": "incident", **i} for i in incident_rows if i["session"] == sid]
    timeline += [
        {"type": "incident", **i, "seq": _other_seq(conn, i)} for i in incident_rows if i["session"] != sid
    ]
    timeline.sort(key=lambda e: (e["seq"] if e["seq"] is not None else -1, e["type"]))
    return {"session": summary, "claims": claim_rows, "incidents": incident_rows, "timeline": timeline}


def _other_seq(conn: sqlite3.Connection, incident: dict[str, Any]) -> int | None:
    """For a cross-session incident seen from the other session: its own edit of the same file."""
    row = conn.execute(
        "SELECT min(seq) FROM edits WHERE session_id = ? AND path = ?",
        (incident["other_session"], incident["path"]),
    ).fetchone()
    return row[0] if row else None
