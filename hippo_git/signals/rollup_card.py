"""`git hippo card`: one screen about one session, as data, as terminal lines and as Markdown
for pasting into a pull request."""

from __future__ import annotations

import re
import sqlite3
from typing import Any

from hippo_git.config import Config
from hippo_git.signals.rollup_views import claims_of, incidents, session_summary


def card(conn: sqlite3.Connection, index: sqlite3.Connection | None, cfg: Config, sid: str) -> dict[str, Any]:
    """One screen about a session: task, outcome, time, edits, claims, incidents, notes, handoff."""
    from hippo_git.index.records import read_record

    summary = session_summary(conn, sid) or {"id": sid}
    record = read_record(cfg.root, sid) or {}
    claim_rows = claims_of(conn, sid)
    incident_rows = incidents(conn, index, scope=None, session=sid, limit=200)
    files = [
        r[0]
        for r in conn.execute(
            "SELECT path FROM edits WHERE session_id = ? GROUP BY path ORDER BY min(seq)", (sid,)
        )
    ]
    by_kind: dict[str, int] = {}
    for i in incident_rows:
        by_kind[i["kind"]] = by_kind.get(i["kind"], 0) + 1
    prs = [
        {"action": r[0], "url": r[1]}
        for r in conn.execute("SELECT action, url FROM prs WHERE session_id = ? ORDER BY seq", (sid,))
    ]
    return {
        "id": sid,
        "harness": summary.get("harness"),
        "cwd": summary.get("cwd"),
        "started": summary.get("started"),
        "ended": summary.get("ended"),
        "task": record.get("task") or summary.get("task") or summary.get("title") or "",
        "outcome": _first_sentence(str(summary.get("outcome") or "")),
        "time": {k: summary.get(k) for k in ("work_seconds", "wall_seconds", "wait_seconds", "user_waits")},
        "edits": {
            "files": files,
            "lines_added": summary.get("lines_added", 0),
            "lines_removed": summary.get("lines_removed", 0),
        },
        "prs": prs,
        "claims": {
            "checked": [c for c in claim_rows if c["status"] == "checked"],
            "unchecked": [c for c in claim_rows if c["status"] == "unchecked"],
            "contradicted": [c for c in claim_rows if c["status"] == "contradicted"],
        },
        "incidents": {"count": len(incident_rows), "by_kind": by_kind, "items": incident_rows[:5]},
        "notes_touched": _notes_touched(index, cfg, sid, record),
        "handoff": record.get("handoff") or summary.get("outcome") or "",
    }


def _notes_touched(
    index: sqlite3.Connection | None, cfg: Config, sid: str, record: dict[str, Any]
) -> list[str]:
    touched = [str(n) for n in record.get("notes_touched") or []]
    if touched or index is None:
        return touched
    from hippo_git.index.derive import NoteSet, derive_record
    from hippo_git.index.workspace import load_workspace

    ws = load_workspace(cfg)
    derived = derive_record(index, sid, ws, NoteSet.scan(ws))
    return list(derived["notes_touched"]) if derived else []


def _first_sentence(text: str) -> str:
    """The last answer's opening, enough to say how the session ended."""
    head = re.split(r"(?<=[.!?])\s|\s```", text, maxsplit=1)[0]
    return head if len(head) <= 160 else head[:159] + "…"


def _short(turn: str, sid: str) -> str:
    """`#12` for a turn of the session the card is about; `other#12` for another session's."""
    return turn.removeprefix(sid) if turn.startswith(sid + "#") else turn


def duration(seconds: float | None) -> str:
    """`1h 05m`, `12m`, `40s`: how long, at a glance."""
    s = int(seconds or 0)
    if s >= 3600:
        return f"{s // 3600}h {s % 3600 // 60:02d}m"
    if s >= 60:
        return f"{s // 60}m"
    return f"{s}s"


def _claim_line(c: dict[str, Any], sid: str) -> str:
    said = f'{c["kind"]}: "{c["text"]}" ({_short(c["turn"], sid)})'
    ev = c.get("evidence")
    if ev:
        return f"{said} ← `{ev['command'][:80]}` exit {ev['exit']} ({_short(ev['turn'], sid)})"
    return f"{said} — no run of the check found after the last edit"


def card_markdown(data: dict[str, Any]) -> str:
    """The card as Markdown, to paste into a pull request."""
    claims = data["claims"]
    t = data["time"]
    lines = [
        f"### Agent session `{data['id']}` ({data.get('harness') or 'unknown harness'})",
        "",
        f"**Task:** {data['task'] or '(not recorded)'}",
        "",
        f"**Outcome:** {data['outcome'] or '(no final answer)'}",
        "",
        f"**Time:** {duration(t['work_seconds'])} working, {duration(t['wall_seconds'])} wall clock, "
        f"{t['user_waits'] or 0} waits for a person",
        "",
        f"**Edits:** {len(data['edits']['files'])} files, +{data['edits']['lines_added']} −{data['edits']['lines_removed']} lines",
    ]
    lines += [f"- `{f}`" for f in data["edits"]["files"][:15]]
    if len(data["edits"]["files"]) > 15:
        lines.append(f"- … and {len(data['edits']['files']) - 15} more")
    lines += [f"- PR {p['action']}: {p['url']}" for p in data["prs"]]
    lines += [
        "",
        f"**Claims:** {len(claims['checked'])} checked, {len(claims['unchecked'])} unchecked, {len(claims['contradicted'])} contradicted",
    ]
    for status, mark in (("contradicted", "✗"), ("unchecked", "?"), ("checked", "✓")):
        lines += [f"- {mark} {_claim_line(c, data['id'])}" for c in claims[status]]
    inc = data["incidents"]
    kinds = ", ".join(f"{k} {n}" for k, n in sorted(inc["by_kind"].items()))
    lines += ["", f"**Incidents:** {inc['count']}" + (f" ({kinds})" if kinds else "")]
    lines += [
        f"- {i['kind']} at {_short(i['at'] or '', data['id'])}"
        + (f" (caused by {_short(i['cause'], data['id'])})" if i["cause"] else "")
        + f": {i['summary']}: {i['excerpt'][:120]}"
        for i in inc["items"]
    ]
    lines += ["", "**Notes touched:** " + (", ".join(f"`{n}`" for n in data["notes_touched"]) or "none")]
    lines += ["", f"**Handoff:** {data['handoff'] or '(none)'}", ""]
    return "\n".join(lines)


def card_lines(data: dict[str, Any]) -> list[str]:
    """The card for a terminal: the Markdown without its markup."""
    text = card_markdown(data).replace("**", "").replace("### ", "")
    return [line for line in text.split("\n")]
