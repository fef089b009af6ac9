"""`settle`: stale confirmed proposals of a dream run, re-proposed or discarded with a receipt."""

from __future__ import annotations

import os

import click

from hippo_git.cli.render import emit_json, json_option, say
from hippo_git.config import load_config


@click.command("settle")
@click.argument("run")
@click.option("--discard", is_flag=True, help="Drop the stale proposals instead of re-proposing them.")
@json_option
def settle_cmd(run: str, discard: bool, as_json: bool) -> None:
    """Settle a run's stale proposals: re-propose them onto the note as it is now, or discard them."""
    from hippo_git.dream.settle import settle

    result = settle(load_config(), run, discard=discard, env=dict(os.environ))
    if as_json:
        emit_json(result.as_dict())
        return
    for item in result.items:
        what = f" → {item.commit[:12]} {item.verdict}" if item.commit else ""
        done = ", applied" if item.applied else ""
        click.echo(f"{item.outcome:11}  {item.stale_commit[:12]}  {item.path}{what}{done}")
    if not result.items:
        say(f"run {run}: no stale proposals to settle")
        return
    new = f"; new run {result.new_run}" if result.new_run else ""
    say(f"run {run}: {len(result.items)} stale proposal(s) settled ({result.how}){new}")
