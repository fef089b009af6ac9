"""`ingest`, `search`, `sessions`: the transcript index."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from hippo_git.cli.render import FullHelpGroup, emit_json, json_option, say, table
from hippo_git.config import Config, hippo_home, load_config
from hippo_git.errors import NotARepoError
from hippo_git.transcripts.registry import harness_names

_HARNESS = click.Choice(harness_names())
_ANSI_MARKS = ("\x1b[1;33m", "\x1b[0m")


def _index_path() -> Path:
    """The index of this machine; search and sessions work outside a repository too."""
    try:
        return load_config().index_path
    except NotARepoError:
        return hippo_home() / "index.sqlite"


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
    the new turns once `git hippo embed` has been run."""
    from hippo_git.cli.embed_cmds import embed_after_ingest
    from hippo_git.signals.refresh import ingest

    cfg = load_config()
    bar = _Bar()
    try:
        summary = ingest(cfg, full=full, root=root, harness=harness, progress=bar, workers=jobs)
    finally:
        bar.close()
    embedded = embed_after_ingest(cfg)
    if as_json:
        emit_json({**summary.as_dict(), **({"embedding": embedded} if embedded else {})})
    for line in _summary_lines(cfg, summary.as_dict()):
        say(line)
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


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option(
    "--limit", "-n", default=20, show_default=True, type=click.IntRange(1, 1000), help="Most hits to show."
)
@click.option("--harness", type=_HARNESS, help="Only sessions of this harness.")
@click.option("--since", help="Only turns since an ISO date or a span like 7d, 12h, 30m.")
@click.option("--session", "session_id", help="Only this session (a unique id prefix is enough).")
@click.option(
    "--all",
    "everywhere",
    is_flag=True,
    help="Search every session on this machine (default inside a repository: its sessions only).",
)
@click.option("--workspace", is_flag=True, hidden=True)  # the default now; kept for scripts
@click.option(
    "--fts", is_flag=True, help='Pass QUERY to SQLite FTS5 as written (AND/OR/NEAR, prefix*, "phrases").'
)
@json_option
def search_cmd(
    query: tuple[str, ...],
    limit: int,
    harness: str | None,
    since: str | None,
    session_id: str | None,
    everywhere: bool,
    workspace: bool,
    fts: bool,
    as_json: bool,
) -> None:
    """Search indexed turns (BM25, fused with embeddings after `git hippo embed`), best first: this
    repository's sessions, or with --all (or outside a repository) every session on this machine.
    MCP's search tool has the same default."""
    from hippo_git.cli.embed_cmds import search_ranking
    from hippo_git.errors import NotARepoError
    from hippo_git.index.db import connect
    from hippo_git.index.search import MARKS, search
    from hippo_git.index.sessions import resolve_session_id

    cwds: list[str] | None = None
    ids: list[str] | None = None
    if not everywhere:
        try:
            cwds, ids = _workspace(True)
        except NotARepoError:
            everywhere = True
    marks = _ANSI_MARKS if not as_json and sys.stdout.isatty() else MARKS
    conn = connect(_index_path(), readonly=True)
    try:
        sid = resolve_session_id(conn, session_id) if session_id else None
        ranking = search_ranking(conn, _index_path(), " ".join(query), fts)
        hits = search(
            conn,
            " ".join(query),
            limit=limit,
            harness=harness,
            since=since,
            session=sid,
            cwds=cwds,
            session_ids=ids,
            fts=fts,
            marks=marks,
            rerank=ranking.rerank,
        )
    finally:
        conn.close()
    if ranking.mode == "lexical" and ranking.note:
        say(ranking.note)
    if as_json:
        emit_json([{**h.as_dict(), "ranking": ranking.mode} for h in hits])
        return
    if not hits:
        say(
            "no matching turns on this machine"
            if everywhere
            else "no matching turns in this repository's sessions; --all searches every session on this machine"
        )
    for h in hits:
        when = (h.ts or "")[:16].replace("T", " ")
        click.echo(
            f"{h.session_id}#{h.seq}  {h.harness}  {when}  {h.kind}  {h.cwd or ''}  {h.title or ''}".rstrip()
        )
        click.echo("    " + " ".join(h.snippet.split()))


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
    conn = connect(_index_path(), readonly=True)
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

    conn = connect(_index_path(), readonly=True)
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
