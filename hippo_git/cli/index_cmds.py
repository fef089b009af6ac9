"""`ingest` and `sessions`: the transcript index (`search` is in `search_cmds`)."""

from __future__ import annotations

import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

import click

from hippo_git.cli.render import FullHelpGroup, emit_json, json_option, say, table
from hippo_git.cli.search_fast import index_path
from hippo_git.config import Config, load_config
from hippo_git.transcripts.registry import harness_names

_HARNESS = click.Choice(harness_names())


def _workspace(flag: bool) -> tuple[list[str] | None, list[str] | None]:
    if not flag:
        return None, None
    from hippo_git.index.workspace import workspace_filter

    return workspace_filter(load_config())


class _Bar:
    """A click progress bar on stderr, started on the first report (when the total is known)."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.shown = 0

    def __call__(self, files: int, done: int, total: int) -> None:
        if self.bar is None:
            if total <= 0 or not sys.stderr.isatty():
                return  # the summary lines say it all when nobody watches a terminal
            self.bar = click.progressbar(length=total, label="ingesting", file=sys.stderr, show_pos=False)
            self.bar.__enter__()
        self.bar.label = f"ingesting {files} files, {done / 1e6:.1f}/{total / 1e6:.1f} MB"
        self.bar.update(done - self.shown)
        self.shown = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)


@click.command("ingest")
@click.option(
    "--full", is_flag=True, help="Rebuild the index from scratch (with --root: re-read those files)."
)
@click.option("--root", type=click.Path(exists=True, path_type=Path), help="Ingest only this folder or file.")
@click.option("--harness", type=_HARNESS, help="Only this harness (required with --root).")
@click.option(
    "--jobs",
    "-j",
    type=click.IntRange(0, 64),
    help='Worker processes that parse and redact (default: the ingest.workers setting, "auto": '
    "one per CPU when there is much to read; 0 = none).",
)
@json_option
def ingest_cmd(full: bool, root: Path | None, harness: str | None, jobs: int | None, as_json: bool) -> None:
    """Index new and changed agent transcripts (redacted) into $HIPPO_HOME/index.sqlite, and embed
    the new turns once `git hippo embed` has been run.

    Writes waiting in the outbox ($HIPPO_HOME/outbox/) are replayed first, in order.
    """
    from hippo_git.capture import markdown
    from hippo_git.capture.steps import replay
    from hippo_git.cli.embed_cmds import embed_after_ingest
    from hippo_git.signals.refresh import ingest

    cfg = load_config()
    replayed = replay(cfg.home)
    bar = _Bar()
    try:
        summary = ingest(cfg, full=full, root=root, harness=harness, progress=bar, workers=jobs)
    finally:
        bar.close()
    docs = markdown.refresh(cfg)
    embedded = embed_after_ingest(cfg)
    if as_json:
        extra = {"embedding": embedded} if embedded else {}
        emit_json({**summary.as_dict(), "outbox": replayed.as_dict(), "markdown": asdict(docs), **extra})
    if replayed.done:
        say(f"replayed {len(replayed.done)} waiting write(s) from the outbox first")
    if replayed.failed:
        say(f"outbox: {replayed.failed} failed again ({replayed.error}); it waits for the next run")
    for line in _summary_lines(cfg, summary.as_dict()):
        say(line)
    if docs.updated or docs.removed:
        say(f"Markdown folders: read {len(docs.updated)} file(s) again, dropped {len(docs.removed)}")
    if embedded:
        say(f"embedded {embedded['embedded']} new turns ({embedded['turns_per_second']} turns/s)")


def _summary_lines(cfg: Config, s: dict[str, Any]) -> list[str]:
    files = s["files"]
    lines = [
        f"read {files['read']} files ({s['bytes_read'] / 1e6:.1f} MB), skipped {files['skipped_unchanged']} "
        f"unchanged, {len(files['failed'])} failed ({s['seconds']:.1f}s)",
        f"added {s['turns_added']} turns in {s['sessions']} sessions"
        + (f" (replaced {s['turns_replaced']})" if s["turns_replaced"] else ""),
    ]
    secrets = s["secrets_redacted"]
    if secrets:
        kinds = ", ".join(f"{k} {n}" for k, n in secrets.items())
        lines.append(f"redacted {sum(secrets.values())} secrets: {kinds}")
    skipped = {k.replace("_", " "): v for k, v in s["skipped"].items() if v}
    if skipped:
        lines.append("skipped " + ", ".join(f"{v} {k}" for k, v in skipped.items()))
    rec = s["records"]
    if rec["written"] or rec["removed"]:
        lines.append(
            f"session records: {rec['written']} written, {rec['removed']} removed in {cfg.hippo_dir / 'sessions'}"
        )
    lines += [f"failed: {f['path']}: {f['reason']}" for f in files["failed"]]
    return lines


@click.group("sessions", cls=FullHelpGroup, invoke_without_command=True)
@click.option("--harness", type=_HARNESS, help="Only sessions of this harness.")
@click.option("--workspace", is_flag=True, help="Only sessions that belong to this repository.")
@click.option(
    "--limit", "-n", default=50, show_default=True, type=click.IntRange(1), help="Most sessions to list."
)
@json_option
@click.pass_context
def sessions_group(
    ctx: click.Context, harness: str | None, workspace: bool, limit: int, as_json: bool
) -> None:
    """List indexed sessions, newest first (`sessions show ID` prints one)."""
    if ctx.invoked_subcommand is not None:
        return
    from hippo_git.index.db import connect
    from hippo_git.index.sessions import list_sessions

    cwds, ids = _workspace(workspace)
    conn = connect(index_path(), readonly=True)
    try:
        rows = list_sessions(conn, harness=harness, workspace_cwds=cwds, session_ids=ids, limit=limit)
    finally:
        conn.close()
    if as_json:
        emit_json([r.as_dict() for r in rows])
        return
    if not rows:
        say("no sessions indexed" + (" for this workspace" if workspace else ""))
        return
    table(
        [(r.id, r.harness, (r.started or "")[:16].replace("T", " "), r.turns, r.cwd, r.title) for r in rows],
        ["id", "harness", "start", "turns", "cwd", "title"],
        max_width=48,
    )


@sessions_group.command("show")
@click.argument("session_id")
@json_option
def sessions_show_cmd(session_id: str, as_json: bool) -> None:
    """Print one session turn by turn (a unique id prefix is enough)."""
    from hippo_git.index.db import connect
    from hippo_git.index.sessions import get_session, get_turns, resolve_session_id

    conn = connect(index_path(), readonly=True)
    try:
        sid = resolve_session_id(conn, session_id)
        info = get_session(conn, sid)
        turns = get_turns(conn, sid)
    finally:
        conn.close()
    if as_json:
        emit_json({"session": info.as_dict() if info else None, "turns": [t.as_dict() for t in turns]})
        return
    if info is not None:
        click.echo(f"session {info.id}  ({info.harness}, {info.turns} turns)")
        for label, value in (
            ("cwd", info.cwd),
            ("title", info.title),
            ("started", info.started),
            ("ended", info.ended),
            ("model", info.model),
            ("branch", info.git_branch),
            ("parent", info.parent_id),
        ):
            if value:
                click.echo(f"  {label}: {value}")
    for t in turns:
        head = f"[{t.seq}] {t.kind}" + (f" {t.tool}" if t.tool else "") + (" (error)" if t.is_error else "")
        click.echo(f"\n{head}  {(t.ts or '')[:19].replace('T', ' ')}".rstrip())
        for line in t.text.splitlines() or [""]:
            click.echo("    " + line)
