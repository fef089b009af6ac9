"""Doctor's checks of the data: notes, the transcript index, the model, dreaming, agent hooks."""

from __future__ import annotations

import contextlib
import json
import shutil
import tempfile
import uuid
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hippo_git.files import write_json_atomic
from hippo_git.team.doctor import GREEN, NA, RED, Check, Context

HEARTBEAT_DAYS = 7
INTEGRITY_FILE = "index.checked.json"  # in HIPPO_HOME, beside the index


def check_notes(ctx: Context) -> list[Check]:
    if ctx.cfg is None:
        return [Check("notes lint", NA, "hippo.toml is not valid")]
    summary = _lint_summary(ctx.cfg)
    errors, warnings = summary["errors"], summary["warnings"]
    checks = [Check("notes lint", GREEN, f"no errors ({warnings} warning(s))")]
    if errors:
        saw = f"{errors} error(s), e.g. {summary['first']}"
        checks = [Check("notes lint", RED, saw, "git hippo notes lint")]
    for path, message in summary["budget"]:
        # said while there is still room; red once agents get the notes shortened
        past = "past context.budget_bytes" in message
        fix = f"shorten {path} or raise context.budget_bytes in .hippo/hippo.toml"
        checks.append(Check("context size", RED if past else GREEN, message, fix if past else ""))
    return checks


def _lint_summary(cfg: Any) -> dict[str, Any]:
    """What doctor says of the notes' lint, kept in the notes index beside the context block's lint
    counts: its refresh drops both when any note changes (lint reads nothing but the notes and
    these settings), so a doctor over 5,000 unchanged notes does not lint them again."""
    from hippo_git.notes import notes_index
    from hippo_git.notes.lint import lint_notes_list

    conn = notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        from hippo_git import __version__  # a newer lint may say more of the same notes

        settings = [notes_index.lint_cache_key(cfg), cfg.context.budget_bytes, __version__]
        key = "lint:doctor:" + json.dumps(settings)
        kept = notes_index.get_meta(conn, key)
        if kept is not None:
            summary: dict[str, Any] = json.loads(kept)
            return summary
        report = lint_notes_list(notes_index.all_notes(conn), cfg, notes_index.resolver(conn))
        errors = [i for i in report.issues if i.severity == "error"]
        summary = {
            "errors": len(errors),
            "warnings": len(report.issues) - len(errors),
            "first": f"{errors[0].path}: {errors[0].message}" if errors else "",
            "budget": [[i.path, i.message] for i in report.issues if i.kind == "context_budget"],
        }
        notes_index.set_meta(conn, key, json.dumps(summary))
        return summary
    finally:
        conn.close()


def check_index(ctx: Context) -> list[Check]:
    if ctx.cfg is None:
        return [Check("transcript index", NA, "hippo.toml is not valid")]
    from hippo_git.index.db import connect, schema_is_current
    from hippo_git.index.ingest import pending_sources

    path = ctx.cfg.index_path
    if not path.exists():
        # Nothing is wrong on a machine that has not ingested yet (right after install): say what to run.
        return [Check("transcript index", NA, f"{path} does not exist yet", "git hippo ingest")]
    try:
        conn = connect(path, readonly=True)
    except Exception as exc:
        return [Check("transcript index", RED, f"cannot open {path}: {exc}", "git hippo ingest --full")]
    try:
        found = []
        if not schema_is_current(conn):
            found.append(
                Check("index schema", RED, "older than this hippo_git", "git hippo ingest  (migrates it)")
            )
        else:
            found.append(Check("index schema", GREEN, "current"))
        verdict, checked = _integrity(conn, path, ctx.cfg.home / INTEGRITY_FILE)
        if verdict != "ok":
            found.append(
                Check(
                    "index integrity",
                    RED,
                    f"quick_check: {verdict}",
                    "git hippo ingest --full  (the index is a cache)",
                )
            )
        else:
            sessions = conn.execute("SELECT count(*) FROM sessions").fetchone()[0]
            found.append(Check("index integrity", GREEN, f"ok ({checked}), {sessions} session(s)"))
    finally:
        conn.close()
    files, size = pending_sources(ctx.cfg)
    if files:
        found.append(
            Check(
                "index freshness",
                RED,
                f"{files} transcript file(s), {size / 1e6:.1f} MB, not yet indexed",
                "git hippo ingest",
            )
        )
    else:
        found.append(Check("index freshness", GREEN, "every transcript is indexed"))
    return found


def _file_key(path: Path) -> list[int]:
    """What changes whenever SQLite writes: the size and mtime of the file and of its WAL."""
    key: list[int] = []
    for part in (path, path.with_name(path.name + "-wal")):
        try:
            st = part.stat()
        except FileNotFoundError:
            key += [-1, -1]
        else:
            key += [st.st_size, st.st_mtime_ns]
    return key


def _integrity(conn: Any, path: Path, memo: Path) -> tuple[str, str]:
    """quick_check's verdict and when it was computed. quick_check reads the whole file (seconds on
    a 1 GB index), so an "ok" is kept in `memo` with the file's size and mtime and reused while
    neither changed; a failure is never kept (the next doctor checks again)."""
    import sqlite3

    key = _file_key(path)
    try:
        kept = json.loads(memo.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        kept = None
    if isinstance(kept, dict) and kept.get("key") == key and kept.get("verdict") == "ok":
        return "ok", f"quick_check {kept.get('at', '?')}, file unchanged since"
    try:
        verdict = str(conn.execute("PRAGMA quick_check").fetchone()[0])
    except sqlite3.DatabaseError as exc:
        return str(exc), ""
    at = datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
    if verdict == "ok" and _file_key(path) == key:  # nothing wrote while it ran
        with contextlib.suppress(OSError):  # doctor still answers; it just checks again next time
            write_json_atomic(memo, {"key": key, "verdict": "ok", "at": at})
    return verdict, f"quick_check {at}"


def check_model(ctx: Context) -> list[Check]:
    if ctx.cfg is None:
        return [Check("model command", NA, "hippo.toml is not valid")]
    from hippo_git.dream.runner import resolve_model_command

    argv, label = resolve_model_command(ctx.cfg)
    if shutil.which(argv[0]) is None and not Path(argv[0]).is_file():
        return [
            Check(
                "model command",
                RED,
                f"{argv[0]!r} is not on PATH",
                "install it, or set model_command in .hippo/hippo.toml",
            )
        ]
    return [Check("model command", GREEN, f"{label}: {' '.join(argv)}")]


def check_dream_window(ctx: Context) -> list[Check]:
    if ctx.cfg is None:
        return [Check("dream window", NA, "hippo.toml is not valid")]
    from hippo_git.dream.state import last_success
    from hippo_git.index.records import read_records

    records = read_records(ctx.cfg.root)
    if not records:
        return [Check("dream window", NA, "no sessions recorded in this workspace yet")]
    last = last_success(ctx.cfg)
    limit = datetime.now(UTC) - timedelta(days=ctx.cfg.dream.stale_days)
    if last is None or last < limit:
        saw = "never dreamed" if last is None else f"last successful dream {last:%Y-%m-%d}"
        return [
            Check("dream window", RED, f"{saw}, while {len(records)} session(s) exist", "git hippo dream")
        ]
    return [Check("dream window", GREEN, f"last successful dream {last:%Y-%m-%d %H:%M} UTC")]


def check_proposals(ctx: Context) -> list[Check]:
    if ctx.cfg is None:
        return [Check("proposals branches", NA, "hippo.toml is not valid")]
    from hippo_git.dream.views import proposal_branch_health

    problems = proposal_branch_health(ctx.cfg.root, ctx.cfg)
    if not problems:
        return [
            Check(
                "proposals branches",
                GREEN,
                "every confirmed proposal has its receipt and was applied or is awaiting a PR",
            )
        ]
    return [Check("proposals branches", RED, problem.saw, problem.fix) for problem in problems]


def check_agents(ctx: Context) -> list[Check]:
    """Red only for what is wrong: hooks that cannot start (no git-hippo on PATH) or whose last run
    failed. Hooks that have not run here yet, or not lately, just wait for a session."""
    if ctx.cfg is None:
        return [Check("agent hooks", NA, "hippo.toml is not valid")]
    import shutil

    from hippo_git.agents.status import agent_status

    found: list[Check] = []
    limit = datetime.now(UTC) - timedelta(days=HEARTBEAT_DAYS)
    for status in agent_status(ctx.cfg):
        installed = [h for h in status.hooks if h.installed]
        if not installed:
            continue
        name = f"agent hooks {status.harness}"
        if shutil.which("git-hippo") is None:
            found.append(
                Check(
                    name,
                    RED,
                    "installed, but git-hippo is not on PATH: every hook fails with "
                    "\"git: 'hippo' is not a git command\"",
                    "put hippo_git's bin folder on PATH (activate its virtual environment), or pipx install it",
                )
            )
            continue
        failed = [h for h in installed if h.ok is False]
        if failed:
            hook = failed[0]
            found.append(
                Check(
                    name,
                    RED,
                    f"{hook.event} failed when it last ran ({hook.last_run}): {hook.detail or 'no detail'}",
                    f"git hippo agent status {status.harness}; run the hook by hand: {hook.command}",
                )
            )
            continue
        runs = [datetime.fromisoformat(h.last_run) for h in installed if h.last_run]
        latest = max(runs) if runs else None
        if latest is None:
            found.append(Check(name, NA, f"installed; no {status.harness} session has started here yet"))
        elif latest < limit:
            found.append(Check(name, NA, f"installed; last ran {latest:%Y-%m-%d}, no session since"))
        else:
            found.append(Check(name, GREEN, f"last ran {latest:%Y-%m-%d %H:%M} UTC"))
    return found or [Check("agent hooks", NA, "none installed (git hippo agent install claude-code)")]


def check_probe(ctx: Context) -> list[Check]:
    """Write a marker turn into a scratch transcript, ingest it, search for it, remove it."""
    if ctx.cfg is None or not ctx.probe:
        return [Check("end-to-end probe", NA, "skipped")]
    from hippo_git.index.db import connect
    from hippo_git.index.search import search
    from hippo_git.signals.refresh import ingest

    marker = "hippoprobe" + uuid.uuid4().hex[:12]
    with tempfile.TemporaryDirectory(prefix="hippo-probe-") as scratch:
        folder = Path(scratch)
        session = str(uuid.uuid4())
        line = {
            "type": "user",
            "uuid": str(uuid.uuid4()),
            "parentUuid": None,
            "sessionId": session,
            "cwd": str(ctx.cfg.root),
            "timestamp": datetime.now(UTC).isoformat().replace("+00:00", "Z"),
            "message": {"role": "user", "content": f"doctor probe {marker}"},
        }
        (folder / "transcripts").mkdir()
        (folder / "transcripts" / f"{session}.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
        cfg = replace(ctx.cfg, home=folder / "home")
        ingest(cfg, root=folder / "transcripts", harness="claude-code", records=False)
        conn = connect(cfg.index_path, readonly=True)
        try:
            hits = search(conn, marker, limit=3)
        finally:
            conn.close()
    if any(h.session_id == session for h in hits):
        return [Check("end-to-end probe", GREEN, "a marker turn was ingested, found by search, and removed")]
    return [
        Check(
            "end-to-end probe",
            RED,
            "a freshly ingested marker turn was not found by search",
            "git hippo ingest --full; report this if it persists",
        )
    ]


DATA_CHECKS: list[Callable[[Context], list[Check]]] = [
    check_notes,
    check_index,
    check_model,
    check_dream_window,
    check_proposals,
    check_agents,
    check_probe,
]
