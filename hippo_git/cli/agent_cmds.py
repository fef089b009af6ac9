"""`git hippo agent install|uninstall|status` and `git hippo mcp`."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

import click

from hippo_git.agents.spec import HARNESSES
from hippo_git.cli.render import FullHelpGroup, emit_json, json_option, say, table
from hippo_git.config import load_config

if TYPE_CHECKING:
    from hippo_git.agents.install import AgentResult

harness_arg = click.argument("harness", type=click.Choice(HARNESSES))


@click.group("agent", cls=FullHelpGroup)
def agent_group() -> None:
    """Wire hippo into coding agents: hooks, instructions and the MCP server."""


def _render_changes(result: AgentResult, as_json: bool) -> None:
    if as_json:
        emit_json(result.as_dict())
        return
    table([(c.part, c.action, c.file) for c in result.changes], ["part", "action", "file"])
    for line in result.advice:
        say(f"note: {line}")


@agent_group.command("install")
@harness_arg
@click.option(
    "--mcp/--no-mcp", default=True, show_default=True, help="Also register the `git hippo mcp` server."
)
@json_option
def agent_install_cmd(harness: str, mcp: bool, as_json: bool) -> None:
    """Wire HARNESS up here: hooks, instructions and the MCP server.

    Your own settings in those files are kept; `agent uninstall` removes exactly what this adds.
    """
    from hippo_git.agents.install import install_agent

    _render_changes(install_agent(load_config(), harness, mcp=mcp), as_json)


@agent_group.command("uninstall")
@harness_arg
@json_option
def agent_uninstall_cmd(harness: str, as_json: bool) -> None:
    """Remove exactly what `agent install HARNESS` added."""
    from hippo_git.agents.install import uninstall_agent

    _render_changes(uninstall_agent(load_config(), harness), as_json)


@agent_group.command("status")
@click.argument("harness", type=click.Choice(HARNESSES), required=False)
@json_option
def agent_status_cmd(harness: str | None, as_json: bool) -> None:
    """Show what is installed per harness and when each hook last ran."""
    from hippo_git.agents.status import agent_status

    found = agent_status(load_config(), (harness,) if harness else HARNESSES)
    if as_json:
        emit_json([s.as_dict() for s in found])
        return
    rows: list[tuple[str, ...]] = []
    for s in found:
        if not s.installed and not s.problems and harness is None:
            rows.append((s.harness, "-", "not installed", ""))
            continue
        for h in s.hooks:
            ran = "never ran" if h.last_run is None else f"{h.last_run}{'' if h.ok else ' (failed)'}"
            rows.append((s.harness, f"hook {h.event}", "installed" if h.installed else "missing", ran))
        if s.instructions:
            rows.append(
                (s.harness, f"instructions {s.instructions['file']}", _yes(s.instructions["installed"]), "")
            )
        rows.append((s.harness, f"mcp {s.mcp['file']}", _yes(s.mcp["installed"]), ""))
        if s.ingest:
            rows.append(
                (
                    s.harness,
                    "background ingest",
                    "ok" if s.ingest.get("ok") else "failed",
                    str(s.ingest.get("time")),
                )
            )
        for problem in s.problems:
            say(f"{s.harness}: {problem}")
    table(rows, ["harness", "part", "state", "last run"], max_width=70)


def _yes(value: object) -> str:
    return "installed" if value else "missing"


@click.command("mcp")
def mcp_cmd() -> None:
    """Run the stdio MCP server (started by an agent harness, not by people)."""
    from hippo_git.agents.mcp_server import run_stdio

    # Harnesses start stdio servers in the project, and some also say where it is.
    start = next(
        (
            os.environ[k]
            for k in ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR")
            if os.environ.get(k)
        ),
        None,
    )
    run_stdio(Path(start) if start else Path.cwd())
