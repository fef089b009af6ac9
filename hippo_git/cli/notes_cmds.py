"""`notes`, `context`, `brief`, `session`: the notes and what an agent is handed at session start.

`context` runs from agent hooks on every session start: everything it needs beyond click is
imported inside the command, and nothing on its path imports pygit2, GitPython or pydantic.
"""

from __future__ import annotations

import sys

import click

from hippo_git.cli.render import FullHelpGroup, emit_json, json_option, say, table
from hippo_git.config import load_config


@click.group("notes", cls=FullHelpGroup)
def notes_group() -> None:
    """The Markdown notes in notes_dir and their [[links]]."""


@notes_group.command("list")
@json_option
def notes_list_cmd(as_json: bool) -> None:
    """List the notes: title, path, links in and out, last change in git."""
    from hippo_git.notes.catalog import list_notes

    rows = list_notes(load_config())
    if as_json:
        emit_json([r.as_dict() for r in rows])
        return
    if not rows:
        say("no notes yet")
        return
    table(
        [
            (
                r.title,
                r.path,
                r.links_in,
                r.links_out,
                (r.last_change or {}).get("date", "")[:10] or "uncommitted",
            )
            for r in rows
        ],
        ["title", "path", "in", "out", "changed"],
    )


@notes_group.command("show")
@click.argument("name")
@json_option
def notes_show_cmd(name: str, as_json: bool) -> None:
    """Print the note NAME (a path, file name or title)."""
    from hippo_git.notes.catalog import show_note

    note = show_note(load_config(), name)
    if as_json:
        emit_json(
            {
                "path": note.path,
                "title": note.title,
                "front": note.front,
                "front_error": note.front_error,
                "links": [link.target for link in note.links],
                "bytes": note.size,
                "body": note.body,
            }
        )
        return
    say(f"{note.path}  ({note.title})")
    click.echo(note.body, nl=not note.body.endswith("\n"))


@notes_group.command("links")
@click.argument("name")
@json_option
def notes_links_cmd(name: str, as_json: bool) -> None:
    """Show the links out of the note NAME and the notes linking to it."""
    from hippo_git.notes.catalog import note_links

    links = note_links(load_config(), name)
    if as_json:
        emit_json(links.as_dict())
        return
    click.echo(f"{links.path} ({links.title})")
    click.echo("links out:")
    for out in links.out:
        click.echo(f"  [[{out.target}]] line {out.line}: {out.status} {', '.join(out.paths) or '-'}")
    click.echo("links in:")
    for path in links.into:
        click.echo(f"  {path}")


@notes_group.command("lint")
@json_option
def notes_lint_cmd(as_json: bool) -> None:
    """Check the notes; exits 1 on errors (broken or ambiguous links, bad front matter)."""
    from hippo_git.notes.lint import lint_notes

    report = lint_notes(load_config())
    if as_json:
        emit_json(report.as_dict())
    else:
        for issue in report.issues:
            where = f"{issue.path}:{issue.line}" if issue.line else issue.path
            click.echo(f"{where}: {issue.severity}: {issue.kind}: {issue.message}")
        say(f"{report.notes} notes: {len(report.errors)} errors, {len(report.warnings)} warnings")
    if report.errors:
        sys.exit(1)


FORMATS = click.Choice(["markdown", "json", "claude-hook"])


@click.command("context")
@click.option("--task", help="What the agent is about to do; picks the relevant notes.")
@click.option("--budget", type=int, help="Most bytes in the block (default: [context] budget_bytes).")
@click.option(
    "--claude-hook",
    "claude_hook",
    is_flag=True,
    help="Print Claude Code's SessionStart JSON (budget capped below its 10,000-character limit).",
)
@json_option
# The older spelling, kept working for scripts: --format markdown|json|claude-hook.
@click.option("--format", "fmt", type=FORMATS, default=None, hidden=True)
@click.option(
    "--framing",
    type=click.Choice(["observe", "suggest", "assert"]),
    default="observe",
    show_default=True,
    help='How memories are worded: "Previously observed (date): …", "Consider: …", or stated.',
)
def context_cmd(
    task: str | None, budget: int | None, claude_hook: bool, as_json: bool, fmt: str | None, framing: str
) -> None:
    """Print the context block an agent gets at session start (with the memories relevant to --task)."""
    from hippo_git.cli.fast_entry import context_output

    # the same as the click-free way in (`python -m hippo_git context ...`), which comes first
    click.echo(context_output(task, budget, claude_hook, as_json, fmt, framing), nl=False)


@click.command("brief")
@click.argument("task")
@click.option("--budget", type=int, help="Most bytes for the context part.")
@click.option(
    "--sessions", "limit", type=int, default=5, show_default=True, help="Most past sessions to show."
)
@json_option
def brief_cmd(task: str, budget: int | None, limit: int, as_json: bool) -> None:
    """A start block for any agent: the context plus past sessions that worked on TASK."""
    from hippo_git.notes.brief import build_brief

    brief = build_brief(load_config(), task, budget=budget, limit=limit)
    if as_json:
        emit_json(brief.as_dict())
        return
    if brief.index_note:
        say(brief.index_note)
    click.echo(brief.text, nl=not brief.text.endswith("\n"))


@click.group("session", cls=FullHelpGroup)
def session_group() -> None:
    """Declare an agent session: its task at the start, its handoff at the end."""


@session_group.command("start")
@click.option("--task", help="What this session is for.")
@click.option("--id", "session_id", help="Use this id (default: a new one).")
@click.option("--harness", help="The agent harness (claude-code, codex, ...).")
@json_option
def session_start_cmd(task: str | None, session_id: str | None, harness: str | None, as_json: bool) -> None:
    """Start a declared session; prints its id."""
    from hippo_git.notes.declared import start_session

    record = start_session(load_config(), task, session_id=session_id, harness=harness)
    if as_json:
        emit_json(record)
    else:
        click.echo(record["id"])


@session_group.command("end")
@click.option("--id", "session_id", help="The session to end (default: the newest open one here).")
@click.option(
    "--handoff", help="What the next session should know; name notes with [[links]]. '-' reads stdin."
)
@json_option
def session_end_cmd(session_id: str | None, handoff: str | None, as_json: bool) -> None:
    """End a declared session, recording its handoff."""
    from hippo_git.notes.declared import end_session

    if handoff == "-":
        handoff = sys.stdin.read()
    record = end_session(load_config(), session_id=session_id, handoff=handoff)
    if as_json:
        emit_json(record)
        return
    click.echo(record["id"])
    if record.get("notes_touched"):
        say("notes touched: " + ", ".join(record["notes_touched"]))
