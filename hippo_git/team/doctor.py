"""`git hippo doctor`: every check green, red or not applicable, with what it saw and the fix.

The checks of the repository's git setup live here; those of the index, dreaming and agents in
`doctor_data.py`. Each check is a function (Context) -> list[Check]; one that raises is itself
reported red, so doctor always finishes.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.config import Config, load_config
from hippo_git.dream.records import RECEIPTS_REF
from hippo_git.errors import HippoError
from hippo_git.files import lock_state, pid_alive
from hippo_git.git import hookfiles
from hippo_git.git.repo import RepoInfo, config_get, config_get_all, discover, remotes, run_git
from hippo_git.git.staged import index_paths
from hippo_git.team.githooks import PER_PERSON, per_person
from hippo_git.team.setup import framework_runs_hippo, receipts_fetch_refspec

GREEN, RED, NA = "green", "red", "n/a"
MIN_GIT = (2, 30)


@dataclass(frozen=True)
class Check:
    """One doctor check: green, red or n/a, what it saw and the fix."""

    name: str
    status: str  # green | red | n/a
    saw: str
    fix: str = ""

    def as_dict(self) -> dict[str, str]:
        return {"check": self.name, "status": self.status, "saw": self.saw, "fix": self.fix}


@dataclass
class Context:
    """What the doctor checks share: where it started, the repository and config (or the config's error)."""

    start: Path
    info: RepoInfo | None = None
    cfg: Config | None = None
    cfg_error: HippoError | None = None
    probe: bool = True


@dataclass
class DoctorReport:
    """All the doctor's checks; ok when none is red."""

    checks: list[Check] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.status != RED for c in self.checks)

    def as_dict(self) -> dict[str, object]:
        return {"ok": self.ok, "checks": [c.as_dict() for c in self.checks]}


def check_git(ctx: Context) -> list[Check]:
    out = run_git(["--version"], cwd=ctx.start).stdout.strip()
    match = re.search(r"(\d+)\.(\d+)", out)
    version = (int(match.group(1)), int(match.group(2))) if match else (0, 0)
    if version >= MIN_GIT:
        return [Check("git version", GREEN, out)]
    return [Check("git version", RED, out, f"install git {MIN_GIT[0]}.{MIN_GIT[1]} or newer")]


def check_hooks(ctx: Context) -> list[Check]:
    assert ctx.info is not None
    info = ctx.info
    found: list[Check] = []
    default_dir = info.common_dir / "hooks"
    for hook in hookfiles.GIT_HOOKS:
        state = hookfiles.hook_state(info, hook)
        where = info.hooks_dir / hook
        if state.startswith("pre-commit+ours"):
            found.append(_beside_pre_commit(info, hook, state))
        elif state == "ours+pre-commit":
            found.append(
                Check(
                    f"hook {hook}",
                    RED,
                    f"the pre-commit framework's script is chained as {hook}.legacy, where it stops every "
                    'commit ("installed in migration mode")',
                    "git hippo init  (puts the framework's script back and runs hippo's checks from it)",
                )
            )
        elif state.startswith("ours"):
            chained = " (foreign hook chained as .legacy)" if state == "ours+legacy" else ""
            legacy = where.with_name(hook + ".legacy")
            if chained and not os.access(legacy, os.X_OK):
                found.append(
                    Check(
                        f"hook {hook}",
                        RED,
                        f"{legacy} is not executable, so it never runs",
                        f"chmod +x {legacy}",
                    )
                )
                continue
            found.append(Check(f"hook {hook}", GREEN, f"installed at {where}{chained}"))
        elif info.hooks_path_set and hookfiles.is_ours(default_dir / hook):
            found.append(
                Check(
                    f"hook {hook}",
                    RED,
                    f"core.hooksPath={info.hooks_dir} shadows hippo's hook in {default_dir}",
                    "git hippo init  (installs into core.hooksPath, chaining what is there)",
                )
            )
        elif state == "foreign" and hook == "pre-commit" and _framework_runs_hippo(info):
            found.append(_beside_pre_commit(info, hook, state))
        elif state == "foreign":
            found.append(
                Check(
                    f"hook {hook}",
                    RED,
                    f"{where} is another tool's hook; hippo's checks do not run",
                    "git hippo init  (keeps it as .legacy and chains it)",
                )
            )
        else:
            found.append(Check(f"hook {hook}", RED, f"no hook at {where}", "git hippo init"))
    return found


def _framework_runs_hippo(info: RepoInfo) -> bool:
    return hookfiles.is_pre_commit_framework(info.hooks_dir / "pre-commit") and framework_runs_hippo(
        info.workdir
    )


def _beside_pre_commit(info: RepoInfo, hook: str, state: str) -> Check:
    where = info.hooks_dir / hook
    shim = where.with_name(hook + ".legacy")
    by_config = state == "foreign"  # the framework runs hippo-lint itself, no shim
    if not by_config and not os.access(shim, os.X_OK):
        return Check(f"hook {hook}", RED, f"{shim} is not executable, so it never runs", f"chmod +x {shim}")
    script = where.read_text(encoding="utf-8", errors="replace")
    config = info.workdir / ".pre-commit-config.yaml"
    if "--skip-on-missing-config" not in script and not config.exists():
        return Check(
            f"hook {hook}",
            RED,
            f"the pre-commit framework's hook at {where} needs {config.name}, which is missing, so every "
            f"{hook} fails",
            "add a .pre-commit-config.yaml, or remove the framework's hook: pre-commit uninstall",
        )
    if by_config:
        return Check(
            f"hook {hook}",
            GREEN,
            f"the pre-commit framework's hook at {where} runs hippo's check (hippo-lint in {config.name})",
        )
    chained = f" (and the hook before it at {shim.name}.legacy)" if state.endswith("+legacy") else ""
    return Check(
        f"hook {hook}",
        GREEN,
        f"the pre-commit framework's hook at {where} runs hippo's checks from {shim.name}{chained}",
    )


def check_receipts_config(ctx: Context) -> list[Check]:
    assert ctx.info is not None
    root = ctx.info.workdir
    found: list[Check] = []
    strategy = config_get(root, "notes.hippo/receipts.mergeStrategy")
    ok = strategy == "cat_sort_uniq"
    found.append(
        Check(
            "receipts merge strategy",
            GREEN if ok else RED,
            f"notes.hippo/receipts.mergeStrategy = {strategy}",
            "" if ok else "git hippo init",
        )
    )
    rewrite = RECEIPTS_REF in config_get_all(root, "notes.rewriteRef")
    found.append(
        Check(
            "receipts survive rebase",
            GREEN if rewrite else RED,
            "notes.rewriteRef " + ("includes" if rewrite else "lacks") + f" {RECEIPTS_REF}",
            "" if rewrite else "git hippo init",
        )
    )
    names = remotes(root)
    if not names:
        found.append(Check("receipts fetched from remotes", NA, "no remotes"))
    for remote in names:
        has = receipts_fetch_refspec(remote) in config_get_all(root, f"remote.{remote}.fetch")
        found.append(
            Check(
                f"receipts fetched from {remote}",
                GREEN if has else RED,
                f"remote.{remote}.fetch " + ("has" if has else "lacks") + " the receipts refspec",
                "" if has else f"git hippo sync {remote}  (sets the refspec up, then syncs)",
            )
        )
    return found


def check_workspace_files(ctx: Context) -> list[Check]:
    assert ctx.info is not None
    root = ctx.info.workdir
    found: list[Check] = []
    hippo = root / ".hippo"
    toml = hippo / "hippo.toml"
    if hippo.is_dir() and not toml.exists():
        others = sorted(p.name for p in hippo.iterdir())[:5]
        found.append(
            Check(
                "foreign .hippo/ store",
                RED,
                f".hippo/ exists without hippo.toml (holds {', '.join(others) or 'nothing'}): another tool's store?",
                "move it away, then git hippo init",
            )
        )
    if not toml.exists():
        found.append(Check("hippo.toml", RED, f"{toml} is missing", "git hippo init"))
        return found
    if ctx.cfg_error is not None:
        found.append(Check("hippo.toml", RED, ctx.cfg_error.message, ctx.cfg_error.hint or "fix the file"))
    else:
        found.append(Check("hippo.toml", GREEN, "valid"))
    ignore = hippo / ".gitignore"
    text = ignore.read_text(encoding="utf-8") if ignore.exists() else ""
    absent = [rule for rule in PER_PERSON if rule not in text.split()]
    if absent:
        found.append(
            Check(
                ".hippo/.gitignore",
                RED,
                "missing rules: " + ", ".join(absent),
                "git hippo init  (or add the rules by hand)",
            )
        )
    else:
        found.append(Check(".hippo/.gitignore", GREEN, "per-person files are ignored"))
    tracked = per_person(index_paths(root, ".hippo"))
    if tracked:
        found.append(
            Check(
                "per-person files tracked",
                RED,
                f"git tracks {len(tracked)}: {', '.join(tracked[:3])}",
                "git rm --cached " + " ".join(tracked),
            )
        )
    else:
        found.append(Check("per-person files tracked", GREEN, "none"))
    return found


def check_locks(ctx: Context) -> list[Check]:
    """A lock file alone is harmless (flock dies with its holder); one held by a pid that no longer
    runs here means another machine or container shares these files, or a process is wedged."""
    assert ctx.info is not None
    candidates = [*(ctx.info.workdir / ".hippo").glob("*.lock")]
    if ctx.cfg is not None:
        candidates += [*ctx.cfg.home.glob("*.lock")]
    held, stale = [], []
    for lock in candidates:
        is_held, pid = lock_state(lock)
        if is_held and pid is not None and not pid_alive(pid):
            stale.append(f"{lock} (pid {pid} is not running here)")
        elif is_held:
            held.append(f"{lock.name} by pid {pid}")
    if stale:
        return [
            Check(
                "stale lock files",
                RED,
                "; ".join(stale),
                "stop the hippo process that holds it (on another machine or container sharing this folder)",
            )
        ]
    return [Check("stale lock files", GREEN, "held now: " + ", ".join(held) if held else "none held")]


CHECKS: list[Callable[[Context], list[Check]]] = [
    check_git,
    check_hooks,
    check_receipts_config,
    check_workspace_files,
    check_locks,
]


def run_doctor(start: Path, *, probe: bool = True) -> DoctorReport:
    from hippo_git.team.doctor_capture import CAPTURE_CHECKS
    from hippo_git.team.doctor_data import DATA_CHECKS

    ctx = Context(start=start, probe=probe)
    report = DoctorReport()
    try:
        ctx.info = discover(start)
    except HippoError as exc:
        report.checks.append(Check("repository", RED, exc.message, exc.hint or ""))
        return report
    try:
        ctx.cfg = load_config(ctx.info.workdir)
    except HippoError as exc:
        ctx.cfg_error = exc
    for check in [*CHECKS, *DATA_CHECKS, *CAPTURE_CHECKS]:
        try:
            report.checks += check(ctx)
        except Exception as exc:  # a broken check is itself a finding; doctor must finish
            report.checks.append(
                Check(
                    check.__name__.removeprefix("check_").replace("_", " "),
                    RED,
                    f"the check failed: {type(exc).__name__}: {exc}",
                    "report this",
                )
            )
    return report
