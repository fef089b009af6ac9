"""User services for the watcher and the nightly schedule: a systemd user unit (and timer), a
launchd agent, or a crontab line, whichever the machine has.

The files are written under the person's home (`~/.config/systemd/user/`, `~/Library/LaunchAgents/`);
a crontab line carries a marker comment so it can be found and removed again, and a copy is kept
under `$HIPPO_HOME/services/` so `status` and `doctor` know it is installed without asking cron.
Starting and stopping goes through the manager's own command (`systemctl --user`, `launchctl`,
`crontab`), only when `activate` is set: tests write the files into a temporary home and check them.
"""

from __future__ import annotations

import contextlib
import os
import plistlib
import shutil
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.errors import HippoError
from hippo_git.files import write_text_atomic

SYSTEMD, LAUNCHD, CRON = "systemd", "launchd", "cron"
MANAGERS = (SYSTEMD, LAUNCHD, CRON)
PREFIX = "hippo-git"
LABEL_PREFIX = "dev.hippo-git"


@dataclass(frozen=True)
class ServiceSpec:
    """A user service to install: its command, log, environment, and nightly time if it is a timer job."""

    name: str  # "watch" | "schedule"
    description: str
    argv: tuple[str, ...]
    log: Path
    env: Mapping[str, str] = field(default_factory=dict)
    at: tuple[int, int] | None = None  # (hour, minute): a nightly job; None: a long-running service


@dataclass
class Installed:
    """How a service is installed: the service manager, its files, and the commands run to (de)activate it."""

    manager: str
    files: list[Path]
    commands: list[list[str]] = field(default_factory=list)  # what was run to (de)activate it
    line: str = ""  # the crontab line

    def as_dict(self) -> dict[str, object]:
        return {
            "manager": self.manager,
            "files": [str(p) for p in self.files],
            "commands": [" ".join(c) for c in self.commands],
            "crontab": self.line or None,
        }


def self_argv(*args: str) -> tuple[str, ...]:
    """This hippo_git, run by absolute path (a service starts without the person's PATH)."""
    return (sys.executable, "-m", "hippo_git", *args)


def detect_manager(env: Mapping[str, str], platform: str = sys.platform) -> str:
    if platform == "darwin":
        return LAUNCHD
    if shutil.which("systemctl", path=env.get("PATH")) and os.path.isdir("/run/systemd/system"):
        return SYSTEMD
    if shutil.which("crontab", path=env.get("PATH")):
        return CRON
    raise HippoError(
        "found no service manager here (systemd, launchd or cron)",
        hint="run `git hippo watch` in a terminal, or from your own service manager",
    )


def _user_home(env: Mapping[str, str]) -> Path:
    return Path(env.get("HOME") or str(Path.home()))


def systemd_dir(env: Mapping[str, str]) -> Path:
    config = env.get("XDG_CONFIG_HOME") or str(_user_home(env) / ".config")
    return Path(config) / "systemd" / "user"


def launchd_path(name: str, env: Mapping[str, str]) -> Path:
    return _user_home(env) / "Library" / "LaunchAgents" / f"{LABEL_PREFIX}.{name}.plist"


def cron_copy(home: Path, name: str) -> Path:
    return home / "services" / f"{name}.cron"


def _sd_quote(arg: str) -> str:
    if arg and all(c.isalnum() or c in "/._-=:@+," for c in arg):
        return arg
    return '"' + arg.replace("\\", "\\\\").replace('"', '\\"') + '"'


def systemd_unit(spec: ServiceSpec) -> str:
    lines = ["[Unit]", f"Description={spec.description}", "", "[Service]"]
    lines.append("Type=oneshot" if spec.at else "Type=simple")
    lines.append("ExecStart=" + " ".join(_sd_quote(a) for a in spec.argv))
    for key, value in sorted(spec.env.items()):
        lines.append(f"Environment={_sd_quote(f'{key}={value}')}")
    if spec.at is None:
        lines += ["Restart=on-failure", "RestartSec=10"]
    lines += ["Nice=10", f"StandardOutput=append:{spec.log}", f"StandardError=append:{spec.log}"]
    if spec.at is None:
        lines += ["", "[Install]", "WantedBy=default.target"]
    return "\n".join(lines) + "\n"


def systemd_timer(spec: ServiceSpec) -> str:
    assert spec.at is not None
    hour, minute = spec.at
    return "\n".join(
        [
            "[Unit]",
            f"Description={spec.description} (timer)",
            "",
            "[Timer]",
            f"OnCalendar=*-*-* {hour:02d}:{minute:02d}:00",
            "Persistent=true",  # a run missed while the machine slept happens at wake
            f"Unit={PREFIX}-{spec.name}.service",
            "",
            "[Install]",
            "WantedBy=timers.target",
            "",
        ]
    )


def launchd_plist(spec: ServiceSpec) -> bytes:
    data: dict[str, object] = {
        "Label": f"{LABEL_PREFIX}.{spec.name}",
        "ProgramArguments": list(spec.argv),
        "StandardOutPath": str(spec.log),
        "StandardErrorPath": str(spec.log),
        "ProcessType": "Background",
    }
    if spec.env:
        data["EnvironmentVariables"] = dict(spec.env)
    if spec.at is None:
        data["RunAtLoad"] = True
        data["KeepAlive"] = {"SuccessfulExit": False}
    else:
        data["StartCalendarInterval"] = {"Hour": spec.at[0], "Minute": spec.at[1]}
    return plistlib.dumps(data)


def cron_line(spec: ServiceSpec) -> str:
    import shlex

    when = "@reboot" if spec.at is None else f"{spec.at[1]} {spec.at[0]} * * *"
    env = " ".join(f"{k}={shlex.quote(v)}" for k, v in sorted(spec.env.items()))
    command = " ".join(shlex.quote(a) for a in spec.argv)
    return f"{when} {env + ' ' if env else ''}{command} >> {shlex.quote(str(spec.log))} 2>&1 # {PREFIX}:{spec.name}"


def _run(argv: list[str], *, stdin: str | None = None, check: bool = True) -> str:
    try:
        proc = subprocess.run(argv, input=stdin, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise HippoError(f"`{' '.join(argv)}` failed: {exc}") from None
    if check and proc.returncode != 0:
        tail = (proc.stderr or proc.stdout).strip().splitlines()
        raise HippoError(f"`{' '.join(argv)}` failed: {tail[-1] if tail else proc.returncode}")
    return proc.stdout


def _crontab_without(name: str) -> list[str]:
    current = _run(["crontab", "-l"], check=False)
    return [line for line in current.splitlines() if not line.endswith(f"# {PREFIX}:{name}")]


def install(
    spec: ServiceSpec, manager: str, *, home: Path, env: Mapping[str, str], activate: bool
) -> Installed:
    """Write the service files for `manager` (and start them when `activate`)."""
    spec.log.parent.mkdir(parents=True, exist_ok=True)
    done = Installed(manager, [])
    if manager == SYSTEMD:
        unit = systemd_dir(env) / f"{PREFIX}-{spec.name}.service"
        write_text_atomic(unit, systemd_unit(spec))
        done.files.append(unit)
        target = unit.name
        if spec.at is not None:
            timer = unit.with_suffix(".timer")
            write_text_atomic(timer, systemd_timer(spec))
            done.files.append(timer)
            target = timer.name
        done.commands = [
            ["systemctl", "--user", "daemon-reload"],
            ["systemctl", "--user", "enable", "--now", target],
        ]
    elif manager == LAUNCHD:
        path = launchd_path(spec.name, env)
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".plist.hippo-tmp")
        tmp.write_bytes(launchd_plist(spec))
        os.replace(tmp, path)
        done.files.append(path)
        done.commands = [["launchctl", "bootstrap", f"gui/{os.getuid()}", str(path)]]
    elif manager == CRON:
        done.line = cron_line(spec)
        copy = cron_copy(home, spec.name)
        write_text_atomic(copy, done.line + "\n")
        done.files.append(copy)
    else:
        raise HippoError(f"unknown service manager {manager!r}", hint="one of: " + ", ".join(MANAGERS))
    if activate:
        try:
            if manager == CRON:
                lines = [*_crontab_without(spec.name), done.line]
                _run(["crontab", "-"], stdin="\n".join(lines) + "\n")
                done.commands = [["crontab", "-"]]
            else:
                for argv in done.commands:
                    _run(argv, check=argv[-1] != "daemon-reload")
        except HippoError as exc:
            for path in done.files:  # not started: leave no service that looks installed
                with contextlib.suppress(FileNotFoundError):
                    path.unlink()
            raise HippoError(
                exc.message, hint="`--no-start` writes the files only, to start them yourself"
            ) from None
    return done


def installed(name: str, *, home: Path, env: Mapping[str, str]) -> Installed | None:
    """How the service is installed, by the files it left, or None."""
    unit = systemd_dir(env) / f"{PREFIX}-{name}.service"
    if unit.exists():
        timer = unit.with_suffix(".timer")
        return Installed(SYSTEMD, [unit, *([timer] if timer.exists() else [])])
    plist = launchd_path(name, env)
    if plist.exists():
        return Installed(LAUNCHD, [plist])
    copy = cron_copy(home, name)
    if copy.exists():
        return Installed(CRON, [copy], line=copy.read_text(encoding="utf-8").strip())
    return None


def uninstall(name: str, *, home: Path, env: Mapping[str, str], activate: bool) -> Installed | None:
    """Stop and remove the service; None when it was not installed."""
    found = installed(name, home=home, env=env)
    if found is None:
        return None
    if activate:
        if found.manager == SYSTEMD:
            target = found.files[-1].name
            _run(["systemctl", "--user", "disable", "--now", target], check=False)
            found.commands.append(["systemctl", "--user", "disable", "--now", target])
        elif found.manager == LAUNCHD:
            _run(["launchctl", "bootout", f"gui/{os.getuid()}/{LABEL_PREFIX}.{name}"], check=False)
            found.commands.append(["launchctl", "bootout", f"gui/{os.getuid()}/{LABEL_PREFIX}.{name}"])
        else:
            _run(["crontab", "-"], stdin="\n".join(_crontab_without(name)) + "\n")
            found.commands.append(["crontab", "-"])
    for path in found.files:
        with contextlib.suppress(FileNotFoundError):
            path.unlink()
    if activate and found.manager == SYSTEMD:
        _run(["systemctl", "--user", "daemon-reload"], check=False)
    return found
