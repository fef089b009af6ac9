"""Service files for the watcher and the nightly job (systemd, launchd, cron), the nightly run,
and doctor's capture checks. Files go into a temporary HOME; no real service is touched."""

from __future__ import annotations

import configparser
import json
import os
import plistlib
import sys
import time
from pathlib import Path

from hippo_git.capture import outbox, service
from hippo_git.capture.heartbeat import Heartbeat
from hippo_git.capture.status import watch_spec
from hippo_git.capture.workspaces import register, registered
from hippo_git.config import load_config
from hippo_git.team.doctor import GREEN, NA, RED, Context
from hippo_git.team.doctor_capture import check_outbox, check_schedule, check_watcher
from hippo_git.team.schedule import last_run, log_path, run_schedule, schedule_spec
from tests.conftest import make_repo, run_cli


def _home() -> Path:
    return Path(os.environ["HIPPO_HOME"])


def _ini(path: Path) -> configparser.ConfigParser:
    parser = configparser.ConfigParser(strict=False, interpolation=None)
    parser.optionxform = str  # type: ignore[assignment,method-assign]
    parser.read_string(path.read_text())
    return parser


def test_systemd_watch_unit_has_what_systemd_needs() -> None:
    env = dict(os.environ)
    done = service.install(watch_spec(_home(), env), service.SYSTEMD, home=_home(), env=env, activate=False)
    [unit] = done.files
    assert unit == Path(env["HOME"]) / ".config" / "systemd" / "user" / "hippo-git-watch.service"
    ini = _ini(unit)
    assert ini["Unit"]["Description"]
    assert ini["Service"]["Type"] == "simple"
    exec_start = ini["Service"]["ExecStart"]
    assert exec_start.startswith(sys.executable) and exec_start.endswith("-m hippo_git watch")
    assert ini["Service"]["Restart"] == "on-failure"
    assert f"HIPPO_HOME={_home()}" in ini["Service"]["Environment"]
    assert ini["Install"]["WantedBy"] == "default.target"
    assert done.commands[-1] == ["systemctl", "--user", "enable", "--now", "hippo-git-watch.service"]


def test_systemd_schedule_service_and_timer() -> None:
    env = dict(os.environ)
    spec = schedule_spec(_home(), env, (6, 15))
    done = service.install(spec, service.SYSTEMD, home=_home(), env=env, activate=False)
    unit, timer = done.files
    svc = _ini(unit)
    assert svc["Service"]["Type"] == "oneshot"
    assert svc["Service"]["ExecStart"].endswith("-m hippo_git schedule run")
    assert "Install" not in svc  # started by its timer only
    tim = _ini(timer)
    assert tim["Timer"]["OnCalendar"] == "*-*-* 06:15:00"
    assert tim["Timer"]["Persistent"] == "true"
    assert tim["Timer"]["Unit"] == "hippo-git-schedule.service"
    assert tim["Install"]["WantedBy"] == "timers.target"
    assert done.commands[-1][-1] == "hippo-git-schedule.timer"


def test_launchd_plists() -> None:
    env = dict(os.environ)
    watch = service.install(watch_spec(_home(), env), service.LAUNCHD, home=_home(), env=env, activate=False)
    [path] = watch.files
    assert path == Path(env["HOME"]) / "Library" / "LaunchAgents" / "dev.hippo-git.watch.plist"
    data = plistlib.loads(path.read_bytes())
    assert data["Label"] == "dev.hippo-git.watch"
    assert data["ProgramArguments"] == [sys.executable, "-m", "hippo_git", "watch"]
    assert data["RunAtLoad"] is True and data["KeepAlive"] == {"SuccessfulExit": False}
    assert data["StandardErrorPath"] == str(_home() / "logs" / "watch.log")
    assert data["EnvironmentVariables"]["HIPPO_HOME"] == str(_home())
    nightly = service.install(
        schedule_spec(_home(), env, (23, 5)), service.LAUNCHD, home=_home(), env=env, activate=False
    )
    data = plistlib.loads(nightly.files[0].read_bytes())
    assert data["StartCalendarInterval"] == {"Hour": 23, "Minute": 5}
    assert data["ProgramArguments"][-2:] == ["schedule", "run"]
    assert "KeepAlive" not in data


def test_cron_lines_and_uninstall() -> None:
    env = dict(os.environ)
    nightly = service.install(
        schedule_spec(_home(), env, (6, 15)), service.CRON, home=_home(), env=env, activate=False
    )
    fields = nightly.line.split()
    assert fields[:5] == ["15", "6", "*", "*", "*"]
    assert f"HIPPO_HOME={_home()}" in fields
    assert nightly.line.endswith(f">> {log_path(_home())} 2>&1 # hippo-git:schedule")
    watch = service.install(watch_spec(_home(), env), service.CRON, home=_home(), env=env, activate=False)
    assert watch.line.startswith("@reboot ") and " -m hippo_git watch " in watch.line
    found = service.installed("schedule", home=_home(), env=env)
    assert found is not None and found.manager == service.CRON and found.line == nightly.line
    assert service.uninstall("schedule", home=_home(), env=env, activate=False) is not None
    assert service.installed("schedule", home=_home(), env=env) is None


def test_cli_schedule_install_status_uninstall(repo: Path) -> None:
    proc = run_cli(
        ["schedule", "install", "--at", "05:30", "--manager", "systemd", "--no-start", "--json"], repo
    )
    assert proc.returncode == 0, proc.stderr
    files = json.loads(proc.stdout)["files"]
    assert [Path(f).name for f in files] == ["hippo-git-schedule.service", "hippo-git-schedule.timer"]
    assert "OnCalendar=*-*-* 05:30:00" in Path(files[1]).read_text()
    status = json.loads(run_cli(["schedule", "status", "--json"], repo).stdout)
    assert status["installed"]["manager"] == "systemd" and status["last_run"] is None
    assert run_cli(["schedule", "uninstall", "--no-stop"], repo).returncode == 0
    assert not Path(files[0]).exists()
    bad = run_cli(["schedule", "install", "--at", "25:00", "--manager", "cron", "--no-start"], repo)
    assert (
        bad.returncode == 2 and bad.stderr.startswith("error: --at '25:00'") and "Traceback" not in bad.stderr
    )


def test_nightly_run_runs_each_step_per_workspace_and_doctor_shows_it(tmp_path: Path) -> None:
    ws = make_repo(tmp_path / "ws")
    assert run_cli(["init", "--no-hooks"], cwd=ws).returncode == 0
    register(_home(), ws)
    run = run_schedule(_home(), dict(os.environ), argv0=(sys.executable, "-m", "hippo_git"))
    commands = [(s.command, s.status) for s in run.steps]
    assert [c for c, _ in commands[:3]] == ["ingest", "dream", "lessons scan"]
    assert commands[3][0] == "learn --git"  # skipped (None) unless this hippo_git has `learn`
    assert all(status == 0 for _, status in commands[:3]), log_path(_home()).read_text()
    assert last_run(_home()) is not None and "git hippo dream" in log_path(_home()).read_text()
    ctx = Context(start=ws, cfg=load_config(ws))
    [check] = check_schedule(ctx)
    assert check.status == GREEN and "ok" in check.saw
    data = json.loads((_home() / "capture" / "schedule-last.json").read_text())
    data["steps"][1]["status"], data["ok"] = 1, False
    (_home() / "capture" / "schedule-last.json").write_text(json.dumps(data))
    [check] = check_schedule(ctx)
    assert check.status == RED and "dream (exit 1)" in check.saw


def test_doctor_is_red_when_the_watcher_is_installed_but_silent(repo: Path) -> None:
    ctx = Context(start=repo, cfg=load_config(repo))
    assert check_watcher(ctx)[0].status == NA
    env = dict(os.environ)
    service.install(watch_spec(_home(), env), service.SYSTEMD, home=_home(), env=env, activate=False)
    [check] = check_watcher(ctx)
    assert check.status == RED and "never ran" in check.saw
    beat = Heartbeat(pid=1, started=time.time() - 7200)
    beat.save(_home())
    data = json.loads((_home() / "capture" / "watch.json").read_text())
    data["beat"] = time.time() - 3 * 3600
    (_home() / "capture" / "watch.json").write_text(json.dumps(data))
    [check] = check_watcher(ctx)
    assert check.status == RED and "3.0 h ago" in check.saw


def test_doctor_is_red_while_the_outbox_holds_anything(repo: Path) -> None:
    ctx = Context(start=repo, cfg=load_config(repo))
    assert check_outbox(ctx)[0].status == GREEN
    item = outbox.put(_home(), "ingest", {"workspace": str(repo), "harness": "claude-code", "path": "/nope"})
    assert item is not None
    outbox.mark_failed(item, "OSError: [Errno 28] No space left on device")
    [check] = check_outbox(ctx)
    assert check.status == RED and "1 write(s) pending" in check.saw and "No space" in check.saw
    proc = run_cli(["watch", "replay"], repo)
    assert proc.returncode == 0, proc.stderr
    assert check_outbox(ctx)[0].status == GREEN


def test_watch_status_json(repo: Path) -> None:
    proc = run_cli(["watch", "status", "--json"], repo)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["running"] is False and data["installed"] is None and data["outbox"]["pending"] == 0


def test_watch_outside_any_workspace_with_none_registered_says_so(tmp_path: Path) -> None:
    proc = run_cli(["watch"], tmp_path)
    assert proc.returncode == 1 and proc.stderr.startswith("error: no workspace is registered")
    assert "Traceback" not in proc.stderr


def test_cli_watch_install_registers_the_workspace_and_writes_the_service(repo: Path) -> None:
    proc = run_cli(["watch", "install", "--manager", "launchd", "--no-start", "--json"], repo)
    assert proc.returncode == 0, proc.stderr
    [path] = json.loads(proc.stdout)["files"]
    assert plistlib.loads(Path(path).read_bytes())["ProgramArguments"][-1] == "watch"
    assert repo.resolve() in [p.resolve() for p in registered(_home())]
    assert (
        json.loads(run_cli(["watch", "status", "--json"], repo).stdout)["installed"]["manager"] == "launchd"
    )
    assert run_cli(["watch", "uninstall", "--no-stop"], repo).returncode == 0 and not Path(path).exists()
