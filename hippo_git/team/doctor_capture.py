"""`doctor`'s checks of live capture: the watcher (red when installed but silent), the outbox (red
while anything waits), and the nightly job's last run."""

from __future__ import annotations

import os
import time
from collections.abc import Callable

from hippo_git.capture import outbox, service
from hippo_git.capture.status import age_text, watch_status
from hippo_git.team.doctor import GREEN, NA, RED, Check, Context
from hippo_git.team.schedule import NAME as SCHEDULE
from hippo_git.team.schedule import last_run


def check_watcher(ctx: Context) -> list[Check]:
    if ctx.cfg is None:
        return [Check("watcher", NA, "hippo.toml is not valid")]
    status = watch_status(ctx.cfg.home, dict(os.environ), scan_seconds=ctx.cfg.capture.scan_seconds)
    beat = status.heartbeat
    if status.silent:
        when = f"its last heartbeat was {age_text(time.time() - beat.beat)} ago" if beat else "it never ran"
        manager = status.installed.manager if status.installed else "?"
        return [
            Check(
                "watcher",
                RED,
                f"installed ({manager}) but silent: {when}",
                "git hippo watch status; restart it (git hippo watch install), or see $HIPPO_HOME/logs/watch.log",
            )
        ]
    if not status.running:
        return [Check("watcher", NA, "not installed (`git hippo watch install` keeps the index current)")]
    last = (
        f"last ingest {age_text(time.time() - beat.last_ingest)} ago"
        if beat and beat.last_ingest
        else "no ingest yet"
    )
    return [Check("watcher", GREEN, f"running (pid {status.pid}); {last}")]


def check_outbox(ctx: Context) -> list[Check]:
    if ctx.cfg is None:
        return [Check("outbox", NA, "hippo.toml is not valid")]
    items = outbox.waiting(ctx.cfg.home)
    if not items:
        return [Check("outbox", GREEN, "nothing pending")]
    age = outbox.oldest_age(ctx.cfg.home) or 0.0
    last = items[0].error or "interrupted"
    return [
        Check(
            "outbox",
            RED,
            f"{len(items)} write(s) pending, the oldest {age_text(age)} old ({last})",
            "fix the cause (disk space, a busy index), then: git hippo watch replay",
        )
    ]


def check_schedule(ctx: Context) -> list[Check]:
    if ctx.cfg is None:
        return [Check("nightly job", NA, "hippo.toml is not valid")]
    found = service.installed(SCHEDULE, home=ctx.cfg.home, env=dict(os.environ))
    run = last_run(ctx.cfg.home)
    if run is None:
        if found is None:
            return [Check("nightly job", NA, "not installed (`git hippo schedule install`)")]
        return [Check("nightly job", GREEN, f"installed ({found.manager}); no run yet")]
    steps = run.get("steps") or []
    failed = [
        f"{s.get('command')} (exit {s.get('status')})" for s in steps if s.get("status") not in (0, None)
    ]
    if failed:
        return [
            Check(
                "nightly job",
                RED,
                f"last run {run.get('started')} failed: " + ", ".join(failed[:4]),
                "see $HIPPO_HOME/logs/schedule.log; run it again with `git hippo schedule run`",
            )
        ]
    return [Check("nightly job", GREEN, f"last run {run.get('started')} ok, {len(steps)} step(s)")]


CAPTURE_CHECKS: list[Callable[[Context], list[Check]]] = [check_watcher, check_outbox, check_schedule]
