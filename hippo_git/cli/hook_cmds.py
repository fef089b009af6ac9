"""`git hippo hook NAME`: the entry point for git hooks and agent hooks.

Git hooks (pre-commit, post-merge) may block (pre-commit) and read no stdin. Agent hooks read
one JSON object on stdin, must be fast, must print only the harness's JSON shape, and must
never fail the agent: any error is logged to $HIPPO_HOME/logs/ and the hook exits 0.
"""

from __future__ import annotations

import importlib
import os
import sys
from collections.abc import Callable
from pathlib import Path

import click

from hippo_git.cli.git_hook_entry import GIT_HOOKS

# Agent hooks: function(event: str, payload_text: str, cwd: Path) -> (exit, stdout, stderr)
AGENT_HOOK_HANDLER = "hippo_git.agents.hooks:handle"

HookFn = Callable[..., tuple[int, str, str]]


def _resolve(target: str) -> HookFn:
    module, _, attr = target.partition(":")
    fn: HookFn = getattr(importlib.import_module(module), attr)
    return fn


def neutral_output(name: str) -> str:
    """What agent hook NAME prints when it has nothing to say, known without importing the handler
    (which may be what failed): Gemini and Cursor read JSON on stdout, always."""
    if name == "cursor-prompt":
        return '{"continue": true}'
    return "{}" if name.startswith(("gemini-", "cursor-")) else ""


def _read_payload() -> str:
    """stdin as text; a byte that is not UTF-8 becomes U+FFFD rather than an error."""
    stdin = sys.stdin
    if stdin is None or stdin.isatty():
        return ""
    buffer = getattr(stdin, "buffer", None)
    return buffer.read().decode("utf-8", errors="replace") if buffer is not None else stdin.read()


def _log_quietly(exc: BaseException) -> None:
    """Log for the person; a failure to log (an unusable $HIPPO_HOME) must not escape either."""
    try:
        from hippo_git.cli.main import _log_unexpected

        _log_unexpected(exc)
    except BaseException:  # nothing may leave the safety net
        pass


@click.command(
    "hook",
    context_settings={"ignore_unknown_options": True, "allow_extra_args": True},
)
@click.argument("name")
@click.argument("argv", nargs=-1, type=click.UNPROCESSED)
def hook_cmd(name: str, argv: tuple[str, ...]) -> None:
    """Run hook NAME (called by the installed git and agent hooks, not by people)."""
    if os.environ.get("HIPPO_INTERNAL"):
        # Inside hippo's own model runs: the harness may still fire our hooks; they must no-op.
        return
    cwd = Path.cwd()
    if name in GIT_HOOKS:
        code, out, err = _resolve(GIT_HOOKS[name])(cwd, list(argv))
    else:
        try:
            code, out, err = _resolve(AGENT_HOOK_HANDLER)(name, _read_payload(), cwd)
        except (Exception, SystemExit) as exc:  # the last resort: an agent hook never fails the agent
            # (not even by SystemExit: exit 2 would block the agent's prompt in Claude Code). Ctrl-C
            # still ends it with 130: that is a person stopping it, not a failure.
            _log_quietly(exc)
            code, out, err = 0, neutral_output(name), ""
    if out:
        click.echo(out, nl=not out.endswith("\n"))
    if err:
        click.echo(err, err=True, nl=not err.endswith("\n"))
    sys.exit(code)
