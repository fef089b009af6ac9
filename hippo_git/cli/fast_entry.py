"""What runs on every agent session, answered without click: `context` and the agent hooks.

`python -m hippo_git` and `git-hippo` start in `hippo_git.__main__`, which comes here first.
Importing click and the command group is a fifth of what a `context` costs, so when the
arguments are a plain form this parser knows, the answer comes from the same functions the
click commands call and is printed the same way. Anything else (help, a bad or missing value, an
option not known here) goes to the full command, which says what is wrong; so does an
unexpected error in `context`, which the full command then reports and logs.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple

# Agent hooks: function(event: str, payload_text: str, cwd: Path) -> (exit, stdout, stderr)
AGENT_HOOK_HANDLER = "hippo_git.agents.hooks:handle"

FORMATS = ("markdown", "json", "claude-hook")
FRAMINGS = ("observe", "suggest", "assert")
_ANSI = re.compile(r"\033\[[;?0-9]*[a-zA-Z]")  # what click.echo strips when not writing to a terminal


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


def agent_hook(name: str) -> tuple[int, str, str]:
    """(exit, stdout, stderr) of agent hook NAME: never a failure for the agent."""
    try:
        module, _, attr = AGENT_HOOK_HANDLER.partition(":")
        handle: Callable[..., tuple[int, str, str]] = getattr(importlib.import_module(module), attr)
        return handle(name, _read_payload(), Path.cwd())
    except (Exception, SystemExit) as exc:  # the last resort: an agent hook never fails the agent
        # (not even by SystemExit: exit 2 would block the agent's prompt in Claude Code). Ctrl-C
        # still ends it with 130: that is a person stopping it, not a failure.
        _log_quietly(exc)
        return 0, neutral_output(name), ""


def echo(text: str, *, err: bool = False, nl: bool = True) -> None:
    """`click.echo` for the fast path: the same bytes (ANSI codes stripped when not a terminal)."""
    stream = sys.stderr if err else sys.stdout
    if "\033" in text and not stream.isatty():
        text = _ANSI.sub("", text)
    stream.write(text + ("\n" if nl else ""))
    stream.flush()


def run_agent_hook(name: str) -> int:
    if os.environ.get("HIPPO_INTERNAL"):
        return 0  # inside hippo's own model runs the harness may still fire our hooks: no-op
    code, out, err = agent_hook(name)
    if out:
        echo(out, nl=not out.endswith("\n"))
    if err:
        echo(err, err=True, nl=not err.endswith("\n"))
    return code


class ContextArgs(NamedTuple):
    task: str | None = None
    budget: int | None = None
    claude_hook: bool = False
    as_json: bool = False
    fmt: str | None = None
    framing: str = "observe"


def parse_context_args(argv: list[str]) -> ContextArgs | None:
    """`context`'s options as the click command reads them, or None for anything less plain."""
    args = ContextArgs()
    i = 0
    while i < len(argv):
        if argv[i] in ("--claude-hook", "--json"):
            args = (
                args._replace(claude_hook=True) if argv[i] == "--claude-hook" else args._replace(as_json=True)
            )
            i += 1
            continue
        name, eq, value = argv[i].partition("=")
        if name not in ("--task", "--budget", "--format", "--framing"):
            return None
        if not eq:
            if i + 1 == len(argv) or argv[i + 1].startswith("-"):
                return None
            value = argv[i + 1]
        i += 1 if eq else 2
        if name == "--task":
            args = args._replace(task=value)
        elif name == "--budget":
            try:
                args = args._replace(budget=int(value))
            except ValueError:
                return None
        elif name == "--format" and value in FORMATS:
            args = args._replace(fmt=value)
        elif name == "--framing" and value in FRAMINGS:
            args = args._replace(framing=value)
        else:
            return None
    return args


def context_output(
    task: str | None, budget: int | None, claude_hook: bool, as_json: bool, fmt: str | None, framing: str
) -> str:
    """What `git hippo context` prints, the final newline included."""
    import json

    from hippo_git.config import load_config
    from hippo_git.memories.framing import context_extra
    from hippo_git.notes.context import build_context

    claude_hook = claude_hook or fmt == "claude-hook"
    cfg = load_config()
    block = build_context(cfg, task, budget, for_claude_hook=claude_hook, extra=context_extra(cfg, framing))
    if as_json or fmt == "json":
        return json.dumps(block.as_dict(), indent=2, ensure_ascii=False, default=str) + "\n"
    if claude_hook:
        return block.claude_hook() + "\n"
    return block.text if block.text.endswith("\n") else block.text + "\n"


def run_context(argv: list[str]) -> int | None:
    """The exit status of `context ARGV`, or None when the full command must answer."""
    from hippo_git.errors import HippoError

    opts = parse_context_args(argv)
    if opts is None:
        return None
    try:
        out = context_output(*opts)
    except HippoError as exc:
        echo(exc.for_person(), err=True, nl=False)
        return exc.exit_code
    except Exception:  # noqa: BLE001 - the full command reports and logs it
        return None
    try:
        echo(out, nl=False)
    except BrokenPipeError:
        return 1
    return 0
