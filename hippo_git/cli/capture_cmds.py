"""`watch` and `schedule`: live capture and the nightly job."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Any

import click

from hippo_git.cli.render import emit_json, json_option, say
from hippo_git.config import find_worktree_root, hippo_home
from hippo_git.errors import HippoError

_MANAGER = click.Choice(["systemd", "launchd", "cron"])


def _register_here(home: Path) -> Path | None:
    from hippo_git.capture.workspaces import register

    try:
        root = find_worktree_root(Path.cwd())
    except HippoError:
        return None
    if register(home, root):
        say(f"registered workspace {root}")
    return root


@click.group("watch", invoke_without_command=True)
@click.pass_context
def watch_group(ctx: click.Context) -> None:
    """Keep the index and notes current as transcripts and notes change (runs until stopped).

    Registers the current workspace; one watcher serves every registered workspace on the machine.
    """
    if ctx.invoked_subcommand is not None:
        return
    from hippo_git.capture.watcher import Watcher
    from hippo_git.capture.workspaces import registered

    home = hippo_home()
    _register_here(home)
    if not registered(home):
        raise HippoError(
            "no workspace is registered, so there is nothing to watch",
            hint="run `git hippo watch` (or `git hippo watch install`) inside a repository once",
        )
    watcher = Watcher(home, log=lambda msg: say(time.strftime("%Y-%m-%dT%H:%M:%S ") + msg))
    signal.signal(signal.SIGTERM, lambda *_: watcher.request_stop())
    say(f"watching (pid {os.getpid()}); stop with Ctrl-C")
    try:
        watcher.run()
    except KeyboardInterrupt:
        watcher.request_stop()
    say("watcher stopped")


@watch_group.command("install")
@click.option(
    "--manager", type=_MANAGER, help="Service manager to use (default: whichever this machine has)."
)
@click.option("--no-start", is_flag=True, help="Write the service files only; do not start the service.")
@json_option
def watch_install_cmd(manager: str | None, no_start: bool, as_json: bool) -> None:
    """Run the watcher as a user service (systemd user unit, launchd agent, or cron @reboot)."""
    from hippo_git.capture import service
    from hippo_git.capture.status import watch_spec

    home, env = hippo_home(), dict(os.environ)
    _register_here(home)
    chosen = manager or service.detect_manager(env)
    done = service.install(watch_spec(home, env), chosen, home=home, env=env, activate=not no_start)
    _report(done.as_dict(), as_json, f"watcher installed ({chosen})" + (", not started" if no_start else ""))


@watch_group.command("uninstall")
@click.option("--no-stop", is_flag=True, help="Remove the service files only; do not stop the service.")
@json_option
def watch_uninstall_cmd(no_stop: bool, as_json: bool) -> None:
    """Stop the watcher's user service and remove its files."""
    from hippo_git.capture import service
    from hippo_git.capture.status import WATCH

    home, env = hippo_home(), dict(os.environ)
    done = service.uninstall(WATCH, home=home, env=env, activate=not no_stop)
    _report(
        done.as_dict() if done else {"manager": None},
        as_json,
        "watcher uninstalled" if done else "not installed",
    )


@watch_group.command("status")
@json_option
def watch_status_cmd(as_json: bool) -> None:
    """Whether the watcher runs, when it last ingested, and what waits in the outbox."""
    from hippo_git.capture.status import age_text, watch_status

    status = watch_status(hippo_home(), dict(os.environ))
    if as_json:
        emit_json(status.as_dict())
        return
    data = status.as_dict()
    beat = data["heartbeat"] or {}
    click.echo(f"running: {'yes, pid ' + str(status.pid) if status.running else 'no'}")
    click.echo(f"installed: {data['installed']['manager'] if status.installed else 'no'}")
    if beat:
        last = beat["last_ingest_age_s"]
        click.echo(
            f"heartbeat: {age_text(beat['beat_age_s'])} ago; last ingest: "
            f"{age_text(last) + ' ago' if last is not None else 'never'}; errors: {beat['errors']}"
        )
    oldest = f", oldest {age_text(status.oldest_s)} old" if status.oldest_s is not None else ""
    click.echo(f"outbox: {status.outbox} pending{oldest}")
    click.echo("workspaces: " + (", ".join(status.workspaces) or "none registered"))


@watch_group.command("replay")
@json_option
def watch_replay_cmd(as_json: bool) -> None:
    """Replay the outbox now: the writes that failed, in order."""
    from hippo_git.capture.steps import replay

    result = replay(hippo_home())
    if as_json:
        emit_json(result.as_dict())
        return
    say(f"replayed {len(result.done)} item(s)")
    if result.failed:
        raise HippoError(
            f"outbox item {result.failed} failed again: {result.error}",
            hint="fix the cause (disk space, index lock) and run `git hippo watch replay`",
        )


@click.group("schedule")
def schedule_group() -> None:
    """A nightly job: ingest, dream, lessons scan and learn for every registered workspace."""


@schedule_group.command("install")
@click.option("--at", "at", default="06:15", show_default=True, metavar="HH:MM", help="Time of day to run.")
@click.option("--manager", type=_MANAGER, help="Scheduler to use (default: whichever this machine has).")
@click.option("--no-start", is_flag=True, help="Write the job's files only; do not enable it.")
@json_option
def schedule_install_cmd(at: str, manager: str | None, no_start: bool, as_json: bool) -> None:
    """Install the nightly job (systemd timer, launchd agent or crontab line)."""
    from hippo_git.capture import service
    from hippo_git.team.schedule import parse_at, schedule_spec

    home, env = hippo_home(), dict(os.environ)
    when = parse_at(at)
    _register_here(home)
    chosen = manager or service.detect_manager(env)
    done = service.install(schedule_spec(home, env, when), chosen, home=home, env=env, activate=not no_start)
    _report(done.as_dict(), as_json, f"nightly job installed for {at} ({chosen})")


@schedule_group.command("uninstall")
@click.option("--no-stop", is_flag=True, help="Remove the job's files only.")
@json_option
def schedule_uninstall_cmd(no_stop: bool, as_json: bool) -> None:
    """Remove the nightly job."""
    from hippo_git.capture import service
    from hippo_git.team.schedule import NAME

    done = service.uninstall(NAME, home=hippo_home(), env=dict(os.environ), activate=not no_stop)
    _report(
        done.as_dict() if done else {"manager": None},
        as_json,
        "nightly job removed" if done else "not installed",
    )


@schedule_group.command("status")
@json_option
def schedule_status_cmd(as_json: bool) -> None:
    """Whether the nightly job is installed, and how its last run went."""
    from hippo_git.capture import service
    from hippo_git.team.schedule import NAME, last_run, log_path

    home = hippo_home()
    found = service.installed(NAME, home=home, env=dict(os.environ))
    last = last_run(home)
    if as_json:
        emit_json(
            {"installed": found.as_dict() if found else None, "last_run": last, "log": str(log_path(home))}
        )
        return
    click.echo(f"installed: {found.manager if found else 'no'}")
    if last is None:
        click.echo("last run: never")
    else:
        failed = [s for s in last.get("steps", []) if s.get("status") not in (0, None)]
        click.echo(
            f"last run: {last.get('started')} {'ok' if last.get('ok') else 'FAILED'}"
            + (f" ({len(failed)} step(s) failed)" if failed else "")
        )
    click.echo(f"log: {log_path(home)}")


@schedule_group.command("run")
@json_option
def schedule_run_cmd(as_json: bool) -> None:
    """Run the nightly steps now, for every registered workspace (what the job runs)."""
    from hippo_git.team.schedule import run_schedule

    result = run_schedule(hippo_home(), dict(os.environ))
    if as_json:
        emit_json(result.as_dict())
    else:
        for step in result.steps:
            state = (
                "skipped" if step.status is None else ("ok" if step.status == 0 else f"exit {step.status}")
            )
            click.echo(f"{step.workspace}\tgit hippo {step.command}\t{state}")
    if not result.ok:
        raise HippoError("some nightly steps failed", hint="see $HIPPO_HOME/logs/schedule.log")


def _report(data: dict[str, Any], as_json: bool, message: str) -> None:
    if as_json:
        emit_json(data)
        return
    say(message)
    for path in data.get("files") or []:
        click.echo(path)
    if data.get("crontab"):
        click.echo(data["crontab"])
