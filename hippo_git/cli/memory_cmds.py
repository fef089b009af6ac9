"""`remember`, `recall`, `outcome`, `forget`, `inspect`, `conflicts`, `resolve`: quick memories.

Each command parses its options, calls one function of `hippo_git.memories`, and renders.
"""

from __future__ import annotations

import click

from hippo_git.cli.render import emit_json, json_option, say, table
from hippo_git.config import load_config


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
    from hippo_git.memories.service import recall_here

    items = recall_here(query, budget_tokens=budget, limit=limit, notes=not no_notes)
    if as_json:
        emit_json([r.as_dict(why=True) if why else r.as_dict() for r in items])
        return
    if not items:
        say("nothing recalled")
        return
    for r in items:
        mark = "" if r.reviewed else " unreviewed"
        when = f" {r.created[:10]}" if r.created else ""
        head = f"{r.id}  [{r.tier}{mark}]{when}" + (f"  #{' #'.join(r.tags)}" if r.tags else "")
        click.echo(head if r.kind == "memory" else f"{r.path}  [note] {r.title}")
        text = r.text if r.kind == "memory" else r.text[:300]
        click.echo("  " + text.replace("\n", "\n  "))
        if why:
            click.echo(
                "  why: " + ", ".join(f"{k}={v:.3g}" for k, v in r.parts.items()) + f" → {r.score:.3g}"
            )


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


def _rows(items: list[dict[str, object]]) -> None:
    table(
        [(i["id"], i.get("tier", ""), i.get("store", ""), i.get("text", "")) for i in items],
        ["id", "tier", "store", "text"],
    )
