"""`git hippo schedule`: a nightly job that keeps every registered workspace's memory moving.

The job (`git hippo schedule run`, started by a systemd timer, a launchd agent or cron) replays
the outbox, then runs for each registered workspace: `ingest`, `dream` (which opens a pull
request instead of applying when `dream.apply = "pull-request"`), `lessons scan`, and
`learn --git` when this hippo_git has that command. Each step runs as its own process, so one
failing step is recorded and the next still runs. Output goes to `$HIPPO_HOME/logs/schedule.log`;
the result of the last run to `$HIPPO_HOME/capture/schedule-last.json`, which `doctor` shows.
"""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippo_git.capture import service, steps
from hippo_git.capture.heartbeat import capture_dir
from hippo_git.capture.workspaces import registered
from hippo_git.errors import UsageError
from hippo_git.files import write_json_atomic

NAME = "schedule"
STEPS: tuple[tuple[str, ...], ...] = (("ingest",), ("dream",), ("lessons", "scan"), ("learn", "--git"))
OPTIONAL = {"learn"}  # run only when this hippo_git has the command
STEP_TIMEOUT_S = 3 * 3600
DEFAULT_AT = "06:15"


def parse_at(text: str) -> tuple[int, int]:
    hour, sep, minute = text.partition(":")
    if (
        sep
        and hour.isdigit()
        and minute.isdigit()
        and int(hour) < 24
        and int(minute) < 60
        and len(minute) == 2
    ):
        return int(hour), int(minute)
    raise UsageError(f"--at {text!r} is not a time of day", hint="give it as HH:MM, e.g. --at 06:15")


def log_path(home: Path) -> Path:
    return home / "logs" / "schedule.log"


def last_run_path(home: Path) -> Path:
    return capture_dir(home) / "schedule-last.json"


def schedule_spec(home: Path, env: Mapping[str, str], at: tuple[int, int]) -> service.ServiceSpec:
    keep = {k: env[k] for k in ("HIPPO_HOME", "XDG_DATA_HOME", "PATH") if env.get(k)}
    return service.ServiceSpec(
        name=NAME,
        description="hippo_git nightly: ingest, dream, lessons scan, learn",
        argv=service.self_argv("schedule", "run"),
        log=log_path(home),
        env=keep,
        at=at,
    )


@dataclass
class StepResult:
    """One command the nightly schedule ran in one workspace, its exit status and time."""

    workspace: str
    command: str
    status: int | None  # exit status; None: skipped
    seconds: float
    note: str = ""


@dataclass
class ScheduleRun:
    """One nightly schedule run: its steps, whether all went well, and outbox items replayed."""

    started: str
    finished: str = ""
    ok: bool = True
    steps: list[StepResult] = field(default_factory=list)
    replayed: int = 0

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")


def _has_command(name: str, argv0: tuple[str, ...], cwd: Path) -> bool:
    proc = subprocess.run([*argv0, name, "--help"], cwd=cwd, capture_output=True, text=True, timeout=120)
    return proc.returncode == 0


def run_schedule(home: Path, env: Mapping[str, str], *, argv0: tuple[str, ...] | None = None) -> ScheduleRun:
    """Run the nightly steps for every registered workspace; never stops at a failing step."""
    base = argv0 or service.self_argv()
    run = ScheduleRun(started=_now())
    run.replayed = len(steps.replay(home).done)
    log = log_path(home)
    log.parent.mkdir(parents=True, exist_ok=True)
    optional: dict[str, bool] = {}
    with log.open("a", encoding="utf-8") as out:
        out.write(f"=== {run.started} schedule run\n")
        for root in registered(home):
            for step in STEPS:
                command = " ".join(step)
                if step[0] in OPTIONAL:
                    if step[0] not in optional:
                        optional[step[0]] = _has_command(step[0], base, root)
                    if not optional[step[0]]:
                        run.steps.append(StepResult(str(root), command, None, 0.0, "no such command here"))
                        continue
                out.write(f"--- {_now()} {root}: git hippo {command}\n")
                out.flush()
                started = time.monotonic()
                try:
                    proc = subprocess.run(
                        [*base, *step],
                        cwd=root,
                        stdout=out,
                        stderr=out,
                        env=dict(env),
                        timeout=STEP_TIMEOUT_S,
                    )
                    status, note = proc.returncode, ""
                except subprocess.TimeoutExpired:
                    status, note = -1, f"stopped after {STEP_TIMEOUT_S} s"
                run.steps.append(
                    StepResult(str(root), command, status, round(time.monotonic() - started, 1), note)
                )
                run.ok = run.ok and status == 0
        run.finished = _now()
        out.write(f"=== {run.finished} {'ok' if run.ok else 'FAILED'}\n")
    write_json_atomic(last_run_path(home), run.as_dict())
    return run


def last_run(home: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(last_run_path(home).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None
