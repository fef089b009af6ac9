"""`search`: the click command. Its plain forms are answered before click loads, by
`search_fast.run_fast`, with the same code; this command answers the rest (help, `--harness`,
bad values) and is what the command reference and the man page describe."""

from __future__ import annotations

import click

from hippo_git.cli.render import emit_json, json_option, say
from hippo_git.cli.search_fast import (
    MAX_LIMIT,
    find_documents,
    find_hits,
    hit_lines,
    hits_rows,
    marks_for,
    nothing_found,
    workspace_config,
)
from hippo_git.transcripts.registry import harness_names


@click.command("search")
@click.argument("query", nargs=-1, required=True)
@click.option(
    "--limit",
    "-n",
    default=20,
    show_default=True,
    type=click.IntRange(1, MAX_LIMIT),
    help="Most hits to show.",
)
@click.option("--harness", type=click.Choice(harness_names()), help="Only sessions of this harness.")
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
    """Search indexed turns (BM25, fused with embeddings after `git hippo embed`), best first: this repository's sessions, or with --all (or outside
    a repository) every session on this machine. MCP's search tool has the same default. Inside a
    repository the files of its `capture.markdown_dirs` are searched too (listed after the turns)."""
    marks, cfg = marks_for(as_json), workspace_config()
    hits, everywhere, ranking = find_hits(
        " ".join(query),
        cfg=cfg,
        limit=limit,
        harness=harness,
        since=since,
        session_id=session_id,
        everywhere=everywhere,
        fts=fts,
        marks=marks,
    )
    filtered = harness or since or session_id
    docs = [] if filtered else find_documents(" ".join(query), cfg=cfg, limit=limit, fts=fts, marks=marks)
    if ranking.mode == "lexical" and ranking.note:
        say(ranking.note)
    if as_json:
        emit_json(hits_rows(hits, docs, ranking.mode))
        return
    if not hits and not docs:
        say(nothing_found(everywhere))
    for line in hit_lines(hits, docs):
        click.echo(line)
