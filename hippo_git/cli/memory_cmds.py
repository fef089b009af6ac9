"""`remember`, `recall`, `outcome`, `forget`, `inspect`, `conflicts`, `resolve`: quick memories.

Each command parses its options, calls one function of `hippo_git.memories`, and renders.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import click

from hippo_git.cli.render import emit_json, json_option, say
from hippo_git.config import load_config

if TYPE_CHECKING:
    from hippo_git.dream.memory_proposals import ProposedMemory


def _tier_option(f: click.decorators.FC) -> click.decorators.FC:
    for tier in ("inferred", "observed", "verified"):
        f = click.option(f"--{tier}", "confidence", flag_value=tier, help=f"Confidence tier: {tier}.")(f)
    return f


@click.command("remember")
@click.argument("text")
@click.option("--tag", "tags", multiple=True, help="A tag (repeatable).")
@click.option("--error", is_flag=True, help="A failure to avoid: decays half as fast.")
@click.option("--pin", is_flag=True, help="Never decays.")
@_tier_option
@click.option(
    "--global", "global_", is_flag=True, help="Keep it in your personal store, recalled everywhere."
)
@json_option
def remember_cmd(
    text: str,
    tags: tuple[str, ...],
    error: bool,
    pin: bool,
    confidence: str | None,
    global_: bool,
    as_json: bool,
) -> None:
    """Remember TEXT as a memory note under notes_dir/memories/ (staged), and print its id.

    Repeats of a kept memory (same words, or nearly) are reported, not written twice.
    """
    from hippo_git.memories.service import remember_text

    result = remember_text(
        None if global_ else load_config(),
        text,
        tags=tags,
        error=error,
        pin=pin,
        confidence=confidence or "observed",
    )
    if as_json:
        emit_json(result.as_dict())
        return
    if result.status == "written":
        click.echo(result.memory.id)
        say(f"remembered in {result.path}" + (" (staged; commit it)" if result.store == "workspace" else ""))
    elif result.status == "rejected":
        click.echo(result.memory.id)
        say(f"not remembered: this value was rejected when a conflict was resolved ({result.duplicate_of})")
    else:
        click.echo(result.duplicate_of)
        say(f"not remembered twice: {result.status} of {result.duplicate_of} ({result.path})")


@click.command("recall")
@click.argument("query")
@click.option(
    "--budget",
    "budget",
    type=click.IntRange(min=1),
    help="The most tokens to print (about 4 characters each).",
)
@click.option("--limit", type=click.IntRange(min=1), default=10, show_default=True, help="The most items.")
@click.option("--no-notes", is_flag=True, help="Only memories, no notes.")
@click.option("--why", is_flag=True, help="Show the parts of each score.")
@json_option
def recall_cmd(query: str, budget: int | None, limit: int, no_notes: bool, why: bool, as_json: bool) -> None:
    """Recall the memories and notes that match QUERY, best first.

    Ranked by relevance × strength (half-life decay, extended by each recall) × recency ×
    confidence. Tiers: verified, observed, inferred, stale (not recalled for 30 days), note.
    """
    from hippo_git.cli.recall_fast import recall_json, recall_lines
    from hippo_git.memories.service import recall_here

    items = recall_here(query, budget_tokens=budget, limit=limit, notes=not no_notes)
    if as_json:
        click.echo(recall_json(items, why))
    elif not items:
        say("nothing recalled")
    else:
        click.echo("\n".join(recall_lines(items, why)))


@click.command("outcome")
@click.option("--good", "good", flag_value=True, default=None, help="The recalled memories helped.")
@click.option("--bad", "good", flag_value=False, help="The recalled memories misled.")
@click.argument("ids", nargs=-1)
@json_option
def outcome_cmd(good: bool | None, ids: tuple[str, ...], as_json: bool) -> None:
    """Strengthen (--good) or weaken (--bad) memories: IDS, or the last recalled ones."""
    from hippo_git.errors import UsageError
    from hippo_git.memories.service import outcome_here

    if good is None:
        raise UsageError("say --good or --bad")
    done = outcome_here(list(ids), good=good)
    if as_json:
        emit_json({"outcome": "good" if good else "bad", "ids": done})
        return
    for memory_id in done:
        click.echo(memory_id)
    say(f"{'strengthened' if good else 'weakened'} {len(done)} memories")


@click.command("forget")
@click.argument("memory_id")
@json_option
def forget_cmd(memory_id: str, as_json: bool) -> None:
    """Forget the memory MEMORY_ID (an id or a unique prefix): the file is removed and staged."""
    from hippo_git.memories.manage import forget
    from hippo_git.memories.service import here_and_home

    cfg, home = here_and_home()
    done = forget(cfg, home, memory_id)
    if as_json:
        emit_json(done.as_dict())
        return
    click.echo(done.id)
    say(f"forgot {done.path}" + (" (staged; commit it)" if done.staged else ""))


@click.command("inspect")
@click.argument("memory_id")
@json_option
def inspect_cmd(memory_id: str, as_json: bool) -> None:
    """Everything about one memory: text, git history, receipts, usage, conflicts."""
    from hippo_git.memories.manage import inspect
    from hippo_git.memories.service import here_and_home

    cfg, home = here_and_home()
    found = inspect(cfg, home, memory_id)
    if as_json:
        emit_json(found.as_dict())
        return
    m = found.memory
    click.echo(f"{m.id}  [{m.confidence}]  {found.store}: {m.path}")
    click.echo(f"created {m.created}  half-life {m.half_life:g} days  pinned {m.pinned}  source {m.source}")
    if m.tags:
        click.echo("tags: " + ", ".join(m.tags))
    click.echo("")
    click.echo(m.text)
    click.echo("")
    click.echo("usage: " + ", ".join(f"{k}={v}" for k, v in found.usage.items()))
    for h in found.history:
        click.echo(f"commit {h['commit'][:12]} {h['date'][:10]} {h['author']}: {h['subject']}")
    for r in found.receipts:
        click.echo(
            f"receipt {r.get('kind')} {r.get('verdict')} by {(r.get('reviewer') or {}).get('persona')}"
        )
    for c in found.conflicts:
        click.echo(f"conflict {c['id']} ({c['kind']}): {c['detail']}")


@click.command("conflicts")
@json_option
def conflicts_cmd(as_json: bool) -> None:
    """List memories that contradict each other (same subject, negation, changed value)."""
    from hippo_git.memories.manage import list_conflicts
    from hippo_git.memories.service import here_and_home

    cfg, home = here_and_home()
    found = list_conflicts(cfg, home)
    if as_json:
        emit_json([c.as_dict() for c in found])
        return
    if not found:
        say("no conflicts")
        return
    for c in found:
        click.echo(f"{c.id}  {c.kind}: {c.detail}")
        for m in (c.a, c.b):
            click.echo(f"  {m.id}  [{m.confidence}] {m.created[:10]}  {m.text}")


@click.command("resolve")
@click.argument("ident")
@click.option("--keep", required=True, help="The memory id (or note path) to keep.")
@click.option("--forget", "forget_loser", is_flag=True, help="Also remove the losing memory's file.")
@json_option
def resolve_cmd(ident: str, keep: str, forget_loser: bool, as_json: bool) -> None:
    """Settle the conflict IDENT (its c-… id, or one memory's id) by keeping one side, in a commit.

    The other's value is recorded as rejected, so no dream, capture or import brings it back.
    Keeping a memory over a note also takes the note's contradicting statement out of the note.
    """
    from hippo_git.memories.manage import resolve
    from hippo_git.memories.service import here_and_home

    cfg, home = here_and_home()
    done = resolve(cfg, home, ident, keep, forget_loser=forget_loser)
    if as_json:
        emit_json(done.as_dict())
        return
    click.echo(done.conflict)
    say(f"kept {done.kept}, rejected {done.rejected}" + (" (forgotten)" if done.forgotten else ""))
    if done.edited:
        say(f"took the contradicting statement out of {done.edited}")


def _report(done: list[ProposedMemory], as_json: bool, dry_run: bool) -> None:
    if as_json:
        emit_json([d.as_dict() for d in done])
        return
    for d in done:
        click.echo(f"{d.memory.id}  {_state(d):24} {' '.join(d.memory.text.split())[:100]}")
    new = sum(1 for d in done if d.status == "proposed")
    say(f"{new} memories proposed" + (" (dry run: nothing written)" if dry_run else ""))


def _state(d: ProposedMemory) -> str:
    """proposed (confirmed, applied) | proposed (unreviewed) | duplicate | rejected …"""
    if d.status != "proposed" or d.commit is None:
        return d.status
    verdict = {"confirm": "confirmed", "reject": "rejected"}.get(d.verdict or "", "unreviewed")
    return f"proposed ({verdict}{', applied' if d.applied else ''})"


@click.command("capture")
@click.option("--stdin", "from_stdin", is_flag=True, help="Read the conversation text from stdin.")
@click.option(
    "--file", "file", type=click.Path(dir_okay=False, path_type=str), help="Read it from this file."
)
@click.option("--dry-run", is_flag=True, help="List what would be remembered; write nothing.")
@json_option
def capture_cmd(from_stdin: bool, file: str | None, dry_run: bool, as_json: bool) -> None:
    """Propose as memories the decisions, rules, errors and preferences stated in raw conversation text.

    Found by patterns, with no model; reviewed like an agent's memory; repeats and rejected
    values are skipped.
    """
    import sys

    from hippo_git.dream.memory_harvest import capture_memories
    from hippo_git.errors import HippoError, UsageError

    if from_stdin == bool(file):
        raise UsageError("give exactly one of --stdin or --file F")
    if file:
        try:
            text = open(file, encoding="utf-8", errors="replace").read()  # noqa: SIM115
        except OSError as exc:
            raise HippoError(f"cannot read {file}: {exc.strerror}") from None
    else:
        text = sys.stdin.read()
    _report(capture_memories(load_config(), text, dry_run=dry_run), as_json, dry_run)


@click.command("learn")
@click.option(
    "--git", "from_git", is_flag=True, required=True, help="Learn from fix, revert and bug commits."
)
@click.option(
    "--days", type=click.IntRange(min=1), default=30, show_default=True, help="How far back to look."
)
@click.option(
    "--repo",
    "repos",
    multiple=True,
    type=click.Path(file_okay=False, path_type=str),
    help="Another repository to read (repeatable; default: this one).",
)
@click.option("--dry-run", is_flag=True, help="List what would be remembered; write nothing.")
@json_option
def learn_cmd(from_git: bool, days: int, repos: tuple[str, ...], dry_run: bool, as_json: bool) -> None:
    """Propose as memories the lessons of recent fix, revert and bug commits (subject, body, files).

    Reviewed like an agent's memory; repeats and rejected values are skipped.
    """
    from pathlib import Path

    from hippo_git.dream.memory_harvest import learn_memories

    done = learn_memories(load_config(), [Path(r).resolve() for r in repos], days, dry_run=dry_run)
    _report(done, as_json, dry_run)


@click.command("watch-cmd", context_settings={"ignore_unknown_options": True})
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
@json_option
def watch_cmd(argv: tuple[str, ...], as_json: bool) -> None:
    """Run a command (after --); when it fails, propose the failure as a memory and exit with its status."""
    from hippo_git.dream.memory_harvest import watch_memories

    status, kept = watch_memories(load_config(), list(argv), to_stderr=as_json)
    if as_json:
        emit_json({"status": status, "memory": kept.as_dict() if kept else None})
    elif kept is not None:
        say(f"remembered the failure as {kept.memory.id}: {_state(kept)}")
    click.get_current_context().exit(status)


@click.command("import")
@click.argument("source", type=click.Path(path_type=str))
@click.option("--tag", "tags", multiple=True, help="A tag for every imported memory (repeatable).")
@click.option("--dry-run", is_flag=True, help="List what would be proposed; write nothing.")
@json_option
def import_cmd(source: str, tags: tuple[str, ...], dry_run: bool, as_json: bool) -> None:
    """Import memories from SOURCE as proposals (reviewed like an agent's).

    Understands a ChatGPT memory export (JSON or text), CLAUDE.md and AGENTS.md (without
    hippo's own block), .cursorrules and .cursor/rules/*.mdc, a conversation as JSON Lines
    (one turn a line: text, speaker, time, conversation), any Markdown (headings become tags)
    and any text file. Each memory keeps its origin and place there (recall ranks it with its
    neighbours) and, when the source dates it, its time. Duplicates are skipped; a malformed
    file writes nothing.
    """
    from pathlib import Path

    from hippo_git.dream.memory_proposals import import_memories

    kind, done = import_memories(load_config(), Path(source), tags=tags, dry_run=dry_run)
    if as_json:
        emit_json({"source": source, "kind": kind, "memories": [d.as_dict() for d in done]})
        return
    for d in done:
        click.echo(f"{d.memory.id}  {_state(d):24} {' '.join(d.memory.text.split())[:100]}")
    new = sum(1 for d in done if d.status == "proposed")
    say(f"{kind}: {new} memories proposed" + (" (dry run: nothing written)" if dry_run else ""))


@click.command("sleep")
@click.option("--dry-run", is_flag=True, help="Show what would be proposed; write nothing.")
@json_option
def sleep_cmd(dry_run: bool, as_json: bool) -> None:
    """Tidy the memories through reviewed proposals: merge three or more close duplicates into one, and
    propose removing decayed, unpinned memories nobody recalled. Nothing is deleted silently."""
    from hippo_git.dream.memory_sleep import sleep

    plan, done = sleep(load_config(), dry_run=dry_run)
    if as_json:
        emit_json({**plan.as_dict(), "proposals": [d.as_dict() for d in done]})
        return
    for keeper, others, _ in plan.merges:
        click.echo(f"merge {', '.join(o.id for o in others)} into {keeper.id}")
    for m in plan.retire:
        click.echo(f"retire {m.id}  {' '.join(m.text.split())[:80]}")
    for d in done:
        state = d.verdict or "unreviewed"
        click.echo(f"  {d.memory.id}: {d.status} ({state}{', applied' if d.applied else ''})")
    if not plan.merges and not plan.retire:
        say("nothing to tidy")
    elif dry_run:
        say("dry run: nothing proposed")
