"""`overview`, `fleet`, `incidents`, `xray`, `card` (signals from the rollup) and `lessons`."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import Any

import click

from hippo_git.cli.render import FullHelpGroup, ProgressBar, emit_json, json_option, say, table
from hippo_git.config import Config, load_config

INCIDENT_KINDS = (
    "correction",
    "blocked",
    "tool_error",
    "failing_command",
    "destructive",
    "overlap",
    "redone",
)


@contextmanager
def _views(cfg: Config) -> Iterator[tuple[sqlite3.Connection, sqlite3.Connection | None]]:
    """The rollup (brought up to date, with a progress bar) and the index, both read-only."""
    from hippo_git.signals.open import open_views

    bar = ProgressBar("updating the rollup")
    try:
        with open_views(cfg, bar) as views:
            bar.close()
            yield views
    finally:
        bar.close()


def _resolve(index: sqlite3.Connection | None, prefix: str) -> str:
    from hippo_git.errors import HippoError
    from hippo_git.index.sessions import resolve_session_id

    if index is None:
        raise HippoError("no transcript index yet", hint="run `git hippo ingest` first")
    return resolve_session_id(index, prefix)


def _short(turn: str, sid: str) -> str:
    return turn.removeprefix(sid) if turn.startswith(sid + "#") else turn


def _dur(seconds: float | None) -> str:
    from hippo_git.signals.rollup_card import duration

    return duration(seconds)


@click.command("overview")
@click.option(
    "--days", default=14, show_default=True, type=click.IntRange(1, 3650), help="How many days back."
)
@click.option(
    "--all", "everywhere", is_flag=True, help="Every session on this machine, not only this workspace's."
)
@json_option
def overview_cmd(days: int, everywhere: bool, as_json: bool) -> None:
    """This workspace day by day: sessions by harness, work time, edits, PRs, incidents, unchecked claims."""
    from hippo_git.signals.rollup_views import overview

    cfg = load_config()
    with _views(cfg) as (conn, _):
        data = overview(conn, cfg, days=days, everywhere=everywhere)
    if as_json:
        emit_json(data)
        return
    rows = [_day_row(d) for d in data["per_day"]]
    if data["per_day"]:
        rows.append(_day_row({"day": "total", **data["totals"]}))
    table(
        rows,
        ["day", "sessions", "work", "files", "lines", "PRs", "incidents", "unchecked claims"],
        empty=f"no sessions in the last {days} days here; `git hippo fleet` shows every workspace",
    )


def _day_row(d: dict[str, Any]) -> list[Any]:
    harnesses = ", ".join(f"{h} {n}" for h, n in d["by_harness"].items())
    prs = f"{d['prs_opened']} opened, {d['prs_merged']} merged" if d["prs_opened"] or d["prs_merged"] else "0"
    lines = f"+{d['lines_added']} -{d['lines_removed']}"
    return [
        d["day"],
        f"{d['sessions']} ({harnesses})",
        _dur(d["work_seconds"]),
        d["files_edited"],
        lines,
        prs,
        d["incidents"],
        d["unsupported_claims"],
    ]


@click.command("fleet")
@json_option
def fleet_cmd(as_json: bool) -> None:
    """Every workspace and harness on this machine, side by side (runs anywhere, also outside a repository)."""
    from hippo_git.config import machine_config
    from hippo_git.signals.rollup_views import fleet

    cfg = machine_config()
    with _views(cfg) as (conn, _):
        rows = fleet(conn)
    if as_json:
        emit_json(rows)
        return
    table(
        [
            [r["workspace"], r["harness"], r["sessions"], _dur(r["work_seconds"]), r["files_edited"], r["prs_opened"], r["incidents"], r["unsupported_claims"], (r["last_active"] or "")[:16]]
            for r in rows
        ],
        ["workspace", "harness", "sessions", "work", "files", "PRs", "incidents", "unchecked", "last active"],
        empty="no sessions indexed on this machine yet; `git hippo ingest` reads the agents' transcripts",
    )  # fmt: skip


@click.command("incidents")
@click.option("--kind", type=click.Choice(INCIDENT_KINDS), help="Only incidents of this kind.")
@click.option("--session", "session_id", help="Only this session (a unique id prefix is enough).")
@click.option(
    "--all", "everywhere", is_flag=True, help="Every session on this machine, not only this workspace's."
)
@click.option(
    "--limit",
    "-n",
    default=50,
    show_default=True,
    type=click.IntRange(1, 100_000),
    help="Most incidents to list.",
)
@json_option
def incidents_cmd(
    kind: str | None, session_id: str | None, everywhere: bool, limit: int, as_json: bool
) -> None:
    """Incidents, newest first, each with the turn that caused it (SESSION#TURN)."""
    from hippo_git.signals.rollup_views import incidents, workspace_scope

    cfg = load_config()
    with _views(cfg) as (conn, index):
        sid = _resolve(index, session_id) if session_id else None
        scope = None if everywhere or sid else workspace_scope(cfg)
        rows = incidents(conn, index, scope=scope, kind=kind, session=sid, limit=limit)
    if as_json:
        emit_json(rows)
        return
    table(
        [
            [
                (r["time"] or "")[:16],
                r["kind"],
                r["at"],
                _short(r["cause"], r["session"]) if r["cause"] else "-",
                r["summary"],
                r["excerpt"],
            ]
            for r in rows
        ],
        ["time", "kind", "at", "caused by", "what", "excerpt"],
        empty="no incidents"
        + ("" if everywhere or sid else " in this workspace (`--all` for every workspace)"),
    )


@click.command("xray")
@click.argument("session")
@json_option
def xray_cmd(session: str, as_json: bool) -> None:
    """A session turn by turn: each claim beside its evidence, and each incident with its cause."""
    from hippo_git.signals.rollup_views import xray

    cfg = load_config()
    with _views(cfg) as (conn, index):
        data = xray(conn, index, _resolve(index, session))
    if as_json:
        emit_json(data)
        return
    sid = data["session"]["id"] if data["session"] else session
    rows = []
    for e in data["timeline"]:
        if e["type"] == "claim":
            ev = e["evidence"]
            proof = (
                f"← {_short(ev['turn'], sid)} `{ev['command']}` exit {ev['exit']}"
                if ev
                else "no run of the check after the last edit"
            )
            rows.append([f"#{e['seq']}", f"claim: {e['kind']} ({e['status']})", e["text"], proof])
        else:
            rows.append(
                [
                    f"#{e['seq']}",
                    f"incident: {e['kind']}",
                    e["summary"],
                    f"cause {_short(e['cause'], sid) if e['cause'] else '-'}: {e['excerpt']}",
                ]
            )
    table(
        rows,
        ["turn", "what", "said / happened", "evidence / cause"],
        empty="no claims and no incidents in this session",
    )


@click.command("card")
@click.argument("session")
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["text", "md"]),
    default="text",
    show_default=True,
    help="md: Markdown for a pull request.",
)
@json_option
def card_cmd(session: str, fmt: str, as_json: bool) -> None:
    """One screen about a session: task, outcome, time, edits, claims, incidents, notes, handoff."""
    from hippo_git.signals.rollup_card import card, card_lines, card_markdown

    cfg = load_config()
    with _views(cfg) as (conn, index):
        data = card(conn, index, cfg, _resolve(index, session))
    if as_json:
        emit_json(data)
    elif fmt == "md":
        click.echo(card_markdown(data), nl=False)
    else:
        click.echo("\n".join(card_lines(data)))


# --- lessons ------------------------------------------------------------------------------------


@click.group("lessons", cls=FullHelpGroup)
def lessons_group() -> None:
    """Rules learnt from people's corrections and repeated failures, waiting for a person's yes."""


@lessons_group.command("scan")
@json_option
def lessons_scan_cmd(as_json: bool) -> None:
    """Find corrections and repeated failures, draft a rule for each, review it, fill the inbox."""
    from hippo_git.dream.lessons import scan

    cfg = load_config()
    bar = ProgressBar("drafting lessons")
    try:
        report = scan(cfg, env=dict(os.environ), now=datetime.now(UTC), progress=bar)
    finally:
        bar.close()
    if as_json:
        emit_json(report.as_dict())
        return
    for line in report.lines():
        say(line)


@lessons_group.command("inbox")
@click.option("--all", "show_all", is_flag=True, help="Also lessons already kept or dismissed.")
@json_option
def lessons_inbox_cmd(show_all: bool, as_json: bool) -> None:
    """The lessons waiting for you (keep or dismiss each)."""
    from hippo_git.dream.lessons_inbox import list_lessons

    cfg = load_config()
    items = list_lessons(cfg, pending_only=not show_all)
    if as_json:
        emit_json([item.model_dump(mode="json") for item in items])
        return
    table(
        [[i.id, i.status, i.kind, i.rule, ", ".join(i.evidence)] for i in items],
        ["id", "status", "kind", "rule", "evidence"],
        max_width=90,
        empty="the inbox is empty; `git hippo lessons scan` looks for new lessons",
    )
    if items:
        say("keep one with `git hippo lessons keep ID [--note NAME]`, or `git hippo lessons dismiss ID`")


@lessons_group.command("keep")
@click.argument("lesson_id")
@click.option("--note", help="The note to write the rule into (under notes_dir; default: lessons.md).")
@json_option
def lessons_keep_cmd(lesson_id: str, note: str | None, as_json: bool) -> None:
    """Write a lesson's rule into a note, as a proposal with a receipt (revertable)."""
    from hippo_git.dream.lessons_keep import keep

    cfg = load_config()
    result = keep(cfg, lesson_id, note=note)
    if as_json:
        emit_json(result)
        return
    say(f"kept {result['lesson']}: appended to {result['path']} in {result['commit'][:12]}")
    say(f"undo with `git hippo revert {result['proposal'][:12]}`")


@lessons_group.command("dismiss")
@click.argument("lesson_id")
@json_option
def lessons_dismiss_cmd(lesson_id: str, as_json: bool) -> None:
    """Drop a lesson; the same rule is not drafted again."""
    from hippo_git.dream.lessons_inbox import dismiss

    cfg = load_config()
    item = dismiss(cfg, lesson_id)
    if as_json:
        emit_json(item.model_dump(mode="json"))
        return
    say(f"dismissed {item.id}; it will not be drafted again")
