"""`apply`, `proposals`, `receipts`, `revert` (the git side of dreaming); `dream`, `packs`, `model` below."""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import click

from hippo_git.cli.render import FullHelpGroup, emit_json, json_option, say, table
from hippo_git.config import load_config


@click.command("apply")
@click.argument("run", required=False)
@json_option
def apply_cmd(run: str | None, as_json: bool) -> None:
    """Apply a dream run's confirmed proposals to the target branch (default: the latest run)."""
    from hippo_git.dream.apply import apply_run

    cfg = load_config()
    result = apply_run(cfg.root, cfg, run)
    if as_json:
        emit_json(result.as_dict())
        return
    for item in result.applied:
        how = f" (replayed from {item.replayed_from[:12]})" if item.replayed_from else ""
        click.echo(f"applied  {item.commit[:12]}  {item.path}{how}")
    for skipped in result.stale + result.refused:
        click.echo(
            f"{'stale' if skipped.stale else 'skipped':7}  {skipped.commit[:12]}  {skipped.path}: {skipped.reason}"
        )
    where = f"; updated the working tree in {result.worktree}" if result.worktree else ""
    moved = (
        f"{result.target} {(result.old or '')[:12]} -> {(result.new or '')[:12]}"
        if result.moved
        else f"{result.target} unchanged"
    )
    say(
        f"run {result.run}: {len(result.applied)} applied, {len(result.already)} already applied, "
        f"{len(result.stale)} stale, {len(result.refused)} not confirmed; {moved}{where}"
    )
    if result.stale:
        from hippo_git.dream.settle import settle_hint

        say(f"hint: the stale ones will not apply as they are: {settle_hint(result.run or 'RUN')}")


@click.command("proposals")
@click.argument("selector", required=False, metavar="[RUN|ID]")
@click.option("--runs", "list_runs", is_flag=True, help="List the dream runs instead.")
@click.option("--no-diff", is_flag=True, help="Leave the diffs out.")
@json_option
def proposals_cmd(selector: str | None, list_runs: bool, no_diff: bool, as_json: bool) -> None:
    """Show a run's proposals (default: the latest run), or one proposal, with diff and receipts."""
    from hippo_git.dream.views import proposals_view, runs_view

    root = load_config().root
    if list_runs:
        runs = runs_view(root)
        if as_json:
            emit_json(runs)
        else:
            table(
                [(r["run"], r["tip"][:12], r["proposals"]) for r in runs],
                ["run", "tip", "proposals"],
                empty="no dream runs yet; `git hippo dream` makes one",
            )
        return
    views = proposals_view(root, selector)
    if as_json:
        emit_json([v.as_dict() for v in views])
        return
    if not views:
        say("no dream runs yet; `git hippo dream` makes one")
    for v in views:
        click.echo(f"{v.status:10}  {v.proposal[:12]}  {v.commit[:12]}  {v.subject}")
        click.echo(f"  evidence: {', '.join(v.evidence)}   (+{v.added} -{v.removed})")
        for r in v.receipts:
            click.echo(
                f"  receipt: {r.kind} {r.verdict} by {r.reviewer.persona} on {r.commit[:12]}: {r.reason}"
            )
        if not no_diff:
            click.echo("".join(f"  {line}\n" for line in v.diff.splitlines()), nl=False)


@click.command("receipts")
@click.option("--proposal", metavar="ID", help="Only receipts of this proposal (id or prefix).")
@json_option
def receipts_cmd(proposal: str | None, as_json: bool) -> None:
    """List the review and revert receipts (refs/notes/hippo/receipts)."""
    from hippo_git.dream.views import receipts_view

    rows = receipts_view(load_config().root, proposal=proposal)
    if as_json:
        emit_json(rows)
        return
    table(
        [
            (r["time"], r["kind"], r["verdict"], r["proposal"][:12], r["on"][:12], r["path"], r["reason"])
            for r in rows
        ],
        ["time", "kind", "verdict", "proposal", "on", "path", "reason"],
        empty="no receipts yet; `git hippo dream` writes one for each review",
    )


@click.command("revert")
@click.argument("ident", metavar="ID")
@click.option("--force", is_flag=True, help="Revert even though the note changed since.")
@json_option
def revert_cmd(ident: str, force: bool, as_json: bool) -> None:
    """Revert an applied dream change (proposal or commit id) and record a revert receipt."""
    from hippo_git.dream.revert import revert

    result = revert(Path(load_config().root), ident, force=force)
    if as_json:
        emit_json(result.as_dict())
        return
    done = "reverted" if result.created else "already reverted"
    say(f"{done} {result.path}: {result.applied[:12]} by {result.revert_commit[:12]}")


# --- dream run, packs, model ---


class _ChunkBar:
    """A progress bar over a dream's chunks (stderr), made once the number of chunks is known."""

    def __init__(self) -> None:
        self.bar: Any = None
        self.done = 0

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None and total > 1:
            self.bar = click.progressbar(length=total, label="dreaming", file=sys.stderr)
            self.bar.__enter__()
        if self.bar is not None:
            self.bar.update(done - self.done)
            self.done = done
            if done >= total:
                self.bar.__exit__(None, None, None)
                self.bar = None


def _when(text: str | None) -> datetime | None:
    if not text:
        return None
    from hippo_git.dream.gather import parse_time
    from hippo_git.index.sessions import parse_since

    return parse_time(parse_since(text))


@click.command("dream")
@click.option(
    "--since",
    metavar="WHEN",
    help="Start of the window (ISO date/time, or 7d, 12h…); default: where the last run stopped.",
)
@click.option("--until", metavar="WHEN", help="End of the window; default: now.")
@click.option("--pack", "packs", multiple=True, metavar="NAME", help="Run only this pack (repeatable).")
@click.option(
    "--dry-run", is_flag=True, help="Propose and validate only: no commits, reviews, receipts or state."
)
@click.option("--no-apply", is_flag=True, help="Commit and review, but leave applying to `git hippo apply`.")
@json_option
def dream_cmd(
    since: str | None, until: str | None, packs: tuple[str, ...], dry_run: bool, no_apply: bool, as_json: bool
) -> None:
    """Propose note changes from recent sessions, review them, and apply the confirmed ones.

    Memories agents or imports proposed that no reviewer has judged yet are reviewed too, and
    the core pack's sleep pass tidies the memories (as `git hippo sleep`).
    """
    from hippo_git.dream.memory_review import review_pending
    from hippo_git.dream.memory_sleep import sleep
    from hippo_git.dream.report import report_paths
    from hippo_git.dream.run import DreamOptions, dream

    cfg = load_config()
    opts = DreamOptions(
        since=_when(since), until=_when(until), packs=packs, dry_run=dry_run, no_apply=no_apply
    )
    report = dream(cfg, opts, env=dict(os.environ), now=datetime.now(UTC), on_chunk=_ChunkBar())
    memories = [] if dry_run else review_pending(cfg, apply=not no_apply)
    slept = sleep(cfg, apply=not no_apply)[1] if not dry_run and (not packs or "core" in packs) else []
    if as_json:
        emit_json(
            {
                **report.to_dict(),
                "memories": [m.as_dict() for m in memories],
                "sleep": [d.as_dict() for d in slept],
            }
        )
    else:
        if memories:
            ok = sum(m.verdict == "confirm" for m in memories)
            landed = sum(m.applied for m in memories)
            say(f"memories: {len(memories)} reviewed, {ok} confirmed, {landed} applied")
        if slept:
            landed = sum(d.applied for d in slept)
            say(
                f"sleep: {len(slept)} memory changes proposed, {landed} applied (`git hippo sleep --dry-run` shows why)"
            )
        t = report.totals()
        say(
            f"run {report.run}: {t['proposals']} proposals, {t['invalid']} refused by validation, "
            f"{t['confirmed']} confirmed, {t['rejected']} rejected, {t['applied']} applied, {t['stale']} stale "
            f"({t['model_calls']} model calls, {t['chunks']} chunks, {t['chunks_skipped']} skipped)"
        )
        if not t["proposals"]:
            for line in report.why_nothing():
                say(f"  skipped {line}")
        say(f"report: {report_paths(cfg.hippo_dir, report.run)[1]}")
    if report.status != "complete":
        say(f"{report.status}: {report.stopped}")
    elif report.stopped:
        say(report.stopped)
    if report.lessons_stopped:
        say(f"lessons scan stopped: {report.lessons_stopped}; `git hippo lessons scan` goes on")
    if report.hint:
        say(f"hint: {report.hint}")
    if report.status != "complete":
        sys.exit(1)


@click.group("model", cls=FullHelpGroup)
def model_group() -> None:
    """Built-in models that speak hippo's model protocol (see docs/model-protocol.md)."""


@model_group.command("heuristic")
def model_heuristic_cmd() -> None:
    """The built-in offline model: a request on stdin, JSON on stdout."""
    from hippo_git.dream.heuristic import answer

    code, out = answer(sys.stdin.read())
    click.echo(out)
    sys.exit(code)
