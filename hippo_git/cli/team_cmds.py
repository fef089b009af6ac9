"""`sync`, `verify`, `ci`, `doctor`: working as a team through git."""

from __future__ import annotations

import os
import shutil
import sys
from datetime import UTC, datetime
from pathlib import Path

import click

from hippo_git.cli.render import FullHelpGroup, emit_json, json_option, say

# Each command imports what it runs: `verify` in CI and `sync` in a burst must not pay for
# loading the dream and ingest machinery that `demo` needs.


@click.command("sync")
@click.argument("remote", required=False)
@click.option(
    "--proposals",
    "runs",
    multiple=True,
    metavar="RUN",
    help="Also fetch/push hippo/proposals/RUN (repeatable).",
)
@json_option
def sync_cmd(remote: str | None, runs: tuple[str, ...], as_json: bool) -> None:
    """Fetch, merge and push review receipts (and named proposals branches). Never forces."""
    from hippo_git.team.sync import sync

    result = sync(Path.cwd(), remote, runs)
    if as_json:
        emit_json(result.as_dict())
        return
    got = (
        "fetched and merged"
        if result.merged
        else ("fetched (nothing new)" if result.fetched else "none on the remote yet")
    )
    for line in result.configured:
        say(f"set up: {line}")
    say(f"receipts from {result.remote}: {got}")
    sent = "pushed" if result.pushed else "already there" if result.in_sync else "none here yet"
    say(f"receipts to {result.remote}: {sent}")
    if result.attempts > 1:
        say(f"(the remote moved; took {result.attempts} attempts, {result.waited:.1f} s of waiting)")
    for p in result.proposals:
        state = p.problem or (
            "pushed" if p.pushed else "fetched into a new local branch" if p.created_local else "up to date"
        )
        say(f"hippo/proposals/{p.run}: {state}")
    if any(p.problem for p in result.proposals):
        raise SystemExit(1)


@click.command("verify")
@click.argument("rev_range", metavar="[RANGE]", required=False)
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json", "github"]), default="text", show_default=True
)
@json_option
def verify_cmd(rev_range: str | None, fmt: str, as_json: bool) -> None:
    """Check that every commit in RANGE is a reviewed dream change (default: TARGET..HEAD)."""
    from hippo_git.team.verify import verify

    report = verify(Path.cwd(), rev_range)
    if as_json or fmt == "json":
        emit_json(report.as_dict())
    elif fmt == "github":
        click.echo(report.github_markdown(), nl=False)
    else:
        for c in report.checks:
            click.echo(f"{'ok  ' if c.ok else 'FAIL'} {c.sha[:10]} {c.subject}: {c.reason}")
        say(
            f"{len(report.checks)} commit(s) in {report.range}: "
            + ("all verified" if report.ok else "FAILED")
        )
    if not report.ok:
        raise SystemExit(1)


@click.group("ci", cls=FullHelpGroup)
def ci_group() -> None:
    """Set up CI checks for dream pull requests."""


@ci_group.command("install")
@click.argument("provider", type=click.Choice(["github"]))
@click.option(
    "--install",
    "spec",
    metavar="SPEC",
    help="pip requirement CI installs (default: ci.install, else the hippo_git running here: its git "
    "commit, wheel in the repository, or index version).",
)
@click.option("--force", is_flag=True, help="Overwrite a workflow file hippo did not write.")
def ci_install_cmd(provider: str, spec: str | None, force: bool) -> None:
    """Write .github/workflows/hippo-review.yml: verify pull requests from hippo/proposals/*."""
    from hippo_git.team.ci import install_github

    result = install_github(Path.cwd(), install=spec, force=force)
    say(f"{result.action} {result.path}")
    if result.action != "unchanged":
        say("commit it, then open dream pull requests with: git hippo sync --proposals RUN")


@click.command("doctor")
@click.option("--no-probe", is_flag=True, help="Skip the end-to-end ingest/search probe.")
@json_option
def doctor_cmd(no_probe: bool, as_json: bool) -> None:
    """Check the set-up, the notes, the index, dreaming and agents; say how to fix what is red."""
    from hippo_git.team.doctor import run_doctor

    report = run_doctor(Path.cwd(), probe=not no_probe)
    if as_json:
        emit_json(report.as_dict())
    else:
        marks = {"green": "ok  ", "red": "FAIL", "n/a": "n/a "}
        for c in report.checks:
            click.echo(f"{marks[c.status]} {c.name}: {c.saw}")
            if c.status == "red" and c.fix:
                click.echo(f"     fix: {c.fix}")
        reds = sum(c.status == "red" for c in report.checks)
        say("all green" if not reds else f"{reds} problem(s) found")
    if not report.ok:
        raise SystemExit(1)


@click.command("demo")
@click.argument("directory", type=click.Path(file_okay=False, path_type=Path), default="hippo-demo")
@json_option
def demo_cmd(directory: Path, as_json: bool) -> None:
    """Try hippo on built-in sample data: a scratch repo, sample sessions, ingest, dream, receipts."""
    from hippo_git.team.demo import DEMO_QUERY, run_demo

    result = run_demo(
        directory, env=dict(os.environ), now=datetime.now(UTC), step=(lambda _: None) if as_json else say
    )
    if as_json:
        emit_json(result.as_dict())
        return
    t = result.dream["totals"]
    click.echo(
        f"dream run {result.dream['run']}: {t['proposals']} proposals, {t['confirmed']} confirmed by the reviewer, "
        f"{t['applied']} applied to {result.workdir.name}/notes (each with a receipt)"
    )
    for change in result.changes:  # commit ids, as `git log` and `git show` know them
        click.echo(f"  {change['status']:<9} {change['commit']}  {change['subject']}")
    click.echo(f'search "{DEMO_QUERY}":')
    for hit in result.search:
        click.echo(f"  {hit['turn']} ({hit['kind']}): {' '.join(hit['snippet'].split())}")
    # In a fresh virtualenv `git hippo` may not be on PATH yet: name the executable that ran.
    prog = "git hippo" if shutil.which("git-hippo") else str(Path(sys.argv[0]).resolve())
    env = f"HIPPO_HOME={result.home}"
    click.echo("look around:")
    click.echo(f"  cd {result.workdir} && git log --notes=hippo/receipts --stat")
    if result.changes:
        click.echo(f"  cd {result.workdir} && git show {result.changes[0]['commit']}")
    click.echo(f"  cd {result.workdir} && {env} {prog} proposals")
    click.echo(f'  cd {result.workdir} && {env} {prog} context --task "run the tests"')
    learnt = result.learnt_lines()
    click.echo(
        f"what was learnt (git diff {result.before[:12]}..main -- notes/):" if learnt else "nothing learnt"
    )
    for note, lines in learnt.items():
        click.echo(f"  {note}:")
        for line in lines:
            click.echo(f"    + {line}" if line.strip() else "    +")
