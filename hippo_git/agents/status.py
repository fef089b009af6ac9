"""`git hippo agent status`: what is installed for each harness, and whether its hooks really ran.

Installed-ness is read from the harness's own files (so a teammate's committed set-up shows up
too); "ran" comes from the heartbeat each hook stamps under $HIPPO_HOME on this machine.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.agents import harness_files as af
from hippo_git.agents.install import MCP_TOML_TABLE, is_our_server, spec_for
from hippo_git.agents.spec import HARNESSES, MCP_NAME, HarnessSpec
from hippo_git.agents.state import read_heartbeat
from hippo_git.config import Config
from hippo_git.errors import HippoError


@dataclass
class HookStatus:
    """One hook as `agent status` sees it: installed or not, and how its last run went."""

    event: str  # the harness's event key
    command: str
    installed: bool
    last_run: str | None = None
    ok: bool | None = None
    detail: str = ""

    def as_dict(self) -> dict[str, object]:
        return {
            "event": self.event,
            "command": self.command,
            "installed": self.installed,
            "last_run": self.last_run,
            "ok": self.ok,
            "detail": self.detail,
        }


@dataclass
class HarnessStatus:
    """What is installed for one harness (hooks, instructions, MCP), its last ingest, and problems found."""

    harness: str
    hooks_file: str
    hooks: list[HookStatus] = field(default_factory=list)
    instructions: dict[str, object] | None = None  # {"file", "installed"}
    mcp: dict[str, object] = field(default_factory=dict)  # {"file", "installed"}
    ingest: dict[str, object] | None = None  # the last background ingest's heartbeat
    problems: list[str] = field(default_factory=list)

    @property
    def installed(self) -> bool:
        return (
            any(h.installed for h in self.hooks)
            or bool(self.instructions and self.instructions["installed"])
            or bool(self.mcp.get("installed"))
        )

    def as_dict(self) -> dict[str, object]:
        return {
            "harness": self.harness,
            "installed": self.installed,
            "hooks_file": self.hooks_file,
            "hooks": [h.as_dict() for h in self.hooks],
            "instructions": self.instructions,
            "mcp": self.mcp,
            "ingest": self.ingest,
            "problems": self.problems,
        }


def _read(root: Path, rel: str, problems: list[str]) -> str | None:
    try:
        return af.read_text(root / rel)
    except HippoError as exc:
        problems.append(exc.message)
        return None


def _hook_commands(spec: HarnessSpec, data: dict[str, Any]) -> set[str]:
    hooks = data.get("hooks")
    found: set[str] = set()
    if not isinstance(hooks, dict):
        return found
    for entries in hooks.values():
        if not af.is_list_of_dicts(entries):
            continue
        for entry in entries:
            handlers = [entry] if spec.hooks_style == "flat" else entry.get("hooks")
            if af.is_list_of_dicts(handlers):
                found |= {str(h.get("command")) for h in handlers}
    return found


def harness_status(cfg: Config, harness: str) -> HarnessStatus:
    spec = spec_for(harness)
    root = cfg.root
    status = HarnessStatus(harness, spec.hooks_file)
    problems = status.problems
    commands: set[str] = set()
    text = _read(root, spec.hooks_file, problems)
    try:
        hooks_data = af.load_json(root / spec.hooks_file, text)
        commands = _hook_commands(spec, hooks_data)
    except HippoError as exc:
        hooks_data = {}
        problems.append(exc.message)
    for hook in spec.hooks:
        item = HookStatus(hook.event, hook.command, hook.command in commands)
        beat = read_heartbeat(cfg.home, root, harness, hook.kind)
        if beat:
            item.last_run, item.ok, item.detail = (
                beat.get("time"),
                beat.get("ok"),
                str(beat.get("detail") or ""),
            )
        status.hooks.append(item)
    mcp_text = text if spec.mcp_file == spec.hooks_file else _read(root, spec.mcp_file, problems)
    try:
        if spec.mcp_style == "toml":
            entry = af.toml_get(af.load_toml(root / spec.mcp_file, mcp_text), MCP_TOML_TABLE)
        else:
            data = (
                hooks_data
                if spec.mcp_file == spec.hooks_file
                else af.load_json(root / spec.mcp_file, mcp_text)
            )
            servers = data.get("mcpServers")
            entry = servers.get(MCP_NAME) if isinstance(servers, dict) else None
        status.mcp = {"file": spec.mcp_file, "installed": is_our_server(entry)}
    except HippoError as exc:
        problems.append(exc.message)
        status.mcp = {"file": spec.mcp_file, "installed": False}
    instructions = spec.block_file or spec.rule_file
    if instructions:
        doc = _read(root, instructions, problems)
        try:
            present = af.has_block(root / instructions, doc)
        except HippoError as exc:
            problems.append(exc.message)
            present = False
        status.instructions = {"file": instructions, "installed": present}
    status.ingest = read_heartbeat(cfg.home, root, harness, "ingest")
    return status


def agent_status(cfg: Config, harnesses: tuple[str, ...] = HARNESSES) -> list[HarnessStatus]:
    return [harness_status(cfg, h) for h in harnesses]
