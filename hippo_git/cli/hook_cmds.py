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

from hippo_git.cli.fast_entry import agent_hook
from hippo_git.cli.fast_entry import neutral_output as neutral_output
from hippo_git.cli.git_hook_entry import GIT_HOOKS

HookFn = Callable[..., tuple[int, str, str]]


def _resolve(target: str) -> HookFn:
    module, _, attr = target.partition(":")
    fn: HookFn = getattr(importlib.import_module(module), attr)
    return fn


@click.command(
    "hook",
    context_settings={
        "ignore_unknown_options": True,  # a harness's own options reach the handler, not an error
        "allow_extra_args": True,
    },
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
        code, out, err = agent_hook(name)  # never fails the agent (`fast_entry.agent_hook`)
    if out:
        click.echo(out, nl=not out.endswith("\n"))
    if err:
        click.echo(err, err=True, nl=not err.endswith("\n"))
    sys.exit(code)
