"""The `git hippo` command group: lazy command loading and the one place errors become exit codes.

Commands are imported only when used, so the agent-hook path (`git hippo hook ...`,
`git hippo context`) never pays for the imports of commands it does not run.
"""

from __future__ import annotations

import importlib
import importlib.util
import os
import sys
import traceback
from datetime import UTC, datetime
from typing import Any

import click

from hippo_git import __version__
from hippo_git.cli.render import FullHelpGroup, full_help
from hippo_git.errors import HippoError

# command name → (module under hippo_git.cli, attribute)
COMMANDS: dict[str, tuple[str, str]] = {
    "init": ("setup_cmds", "init_cmd"),
    "hooks": ("setup_cmds", "hooks_group"),
    "config": ("setup_cmds", "config_group"),
    "hook": ("hook_cmds", "hook_cmd"),
    "ingest": ("index_cmds", "ingest_cmd"),
    "search": ("search_cmds", "search_cmd"),
    "embed": ("embed_cmds", "embed_cmd"),
    "sessions": ("index_cmds", "sessions_group"),
    "notes": ("notes_cmds", "notes_group"),
    "context": ("notes_cmds", "context_cmd"),
    "brief": ("notes_cmds", "brief_cmd"),
    "session": ("notes_cmds", "session_group"),
    "agent": ("agent_cmds", "agent_group"),
    "mcp": ("agent_cmds", "mcp_cmd"),
    "dream": ("dream_cmds", "dream_cmd"),
    "apply": ("dream_cmds", "apply_cmd"),
    "proposals": ("dream_cmds", "proposals_cmd"),
    "receipts": ("dream_cmds", "receipts_cmd"),
    "revert": ("dream_cmds", "revert_cmd"),
    "settle": ("settle_cmds", "settle_cmd"),
    "packs": ("pack_cmds", "packs_group"),
    "registry": ("pack_cmds", "registry_group"),
    "model": ("dream_cmds", "model_group"),
    "sync": ("team_cmds", "sync_cmd"),
    "verify": ("team_cmds", "verify_cmd"),
    "ci": ("team_cmds", "ci_group"),
    "doctor": ("team_cmds", "doctor_cmd"),
    "demo": ("team_cmds", "demo_cmd"),
    "serve": ("web_cmds", "serve_cmd"),
    "overview": ("signals_cmds", "overview_cmd"),
    "fleet": ("signals_cmds", "fleet_cmd"),
    "incidents": ("signals_cmds", "incidents_cmd"),
    "xray": ("signals_cmds", "xray_cmd"),
    "card": ("signals_cmds", "card_cmd"),
    "lessons": ("signals_cmds", "lessons_group"),
    "watch": ("capture_cmds", "watch_group"),
    "schedule": ("capture_cmds", "schedule_group"),
    "remember": ("memory_cmds", "remember_cmd"),
    "recall": ("memory_cmds", "recall_cmd"),
    "outcome": ("memory_cmds", "outcome_cmd"),
    "forget": ("memory_cmds", "forget_cmd"),
    "inspect": ("memory_cmds", "inspect_cmd"),
    "conflicts": ("memory_cmds", "conflicts_cmd"),
    "resolve": ("memory_cmds", "resolve_cmd"),
    "capture": ("memory_cmds", "capture_cmd"),
    "learn": ("memory_cmds", "learn_cmd"),
    "watch-cmd": ("memory_cmds", "watch_cmd"),
    "import": ("memory_cmds", "import_cmd"),
    "sleep": ("memory_cmds", "sleep_cmd"),
    "graph": ("recall_cmds", "graph_cmd"),
    "eval": ("recall_cmds", "eval_cmd"),
}


def _available(name: str) -> bool:
    module = COMMANDS[name][0]
    return importlib.util.find_spec(f"hippo_git.cli.{module}") is not None


def _log_unexpected(exc: BaseException) -> str | None:
    """Write the traceback to $HIPPO_HOME/logs/errors.log; return the log path."""
    from hippo_git.config import hippo_home

    try:
        logs = hippo_home() / "logs"
        logs.mkdir(parents=True, exist_ok=True)
        path = logs / "errors.log"
        with path.open("a", encoding="utf-8") as fh:
            fh.write(f"--- {datetime.now(UTC).isoformat()} git hippo {' '.join(sys.argv[1:])}\n")
            fh.write("".join(traceback.format_exception(exc)))
        return str(path)
    except OSError:
        return None


class HippoGroup(FullHelpGroup):
    def list_commands(self, ctx: click.Context) -> list[str]:
        return sorted({*super().list_commands(ctx), *(name for name in COMMANDS if _available(name))})

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        direct = super().get_command(ctx, cmd_name)
        if direct is not None:
            return direct
        if cmd_name not in COMMANDS or not _available(cmd_name):
            return None
        module, attr = COMMANDS[cmd_name]
        command: click.Command = getattr(importlib.import_module(f"hippo_git.cli.{module}"), attr)
        return full_help(command)

    def invoke(self, ctx: click.Context) -> Any:
        try:
            return super().invoke(ctx)
        except HippoError as exc:
            click.echo(exc.for_person(), err=True, nl=False)
            ctx.exit(exc.exit_code)
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            ctx.exit(130)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except BrokenPipeError:
            ctx.exit(1)
        except Exception as exc:
            if os.environ.get("HIPPO_DEBUG"):
                raise
            where = _log_unexpected(exc)
            click.echo(f"error: unexpected {type(exc).__name__}: {exc}", err=True)
            click.echo(
                "hint: run `git hippo doctor`; please report this"
                + (f" with the traceback in {where}" if where else ""),
                err=True,
            )
            ctx.exit(3)


@click.group(cls=HippoGroup, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "--version", "-V", prog_name="git hippo", message="%(prog)s %(version)s")
def cli() -> None:
    """A memory for AI coding agents, kept in this git repository.

    Transcripts are indexed locally; knowledge lives as Markdown notes with [[links]];
    `dream` proposes note changes that a second model run reviews before they land.
    """


def main() -> None:
    if sys.argv[1:2] != ["hook"]:  # the agent hooks stay as light as they are
        from hippo_git.cli.manpage import ensure_man_page

        ensure_man_page()
    cli.main(prog_name="git hippo")
