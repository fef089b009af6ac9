"""Shared rendering: JSON to stdout, aligned tables, messages to stderr."""

from __future__ import annotations

import json
import sys
from collections.abc import Sequence
from typing import Any

import click


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def say(message: str) -> None:
    """A message for the person (stderr), never data."""
    click.echo(message, err=True)


def table(
    rows: Sequence[Sequence[Any]], headers: Sequence[str], *, max_width: int = 60, empty: str = ""
) -> None:
    """Print an aligned plain-text table to stdout; long cells are cut with an ellipsis.

    No rows: no header either, but the one line `empty` ("no X yet; try Y") on stderr."""
    if not rows:
        say(empty or "nothing to show")
        return

    def cell(value: Any) -> str:
        text = "" if value is None else str(value).replace("\n", " ")
        return text if len(text) <= max_width else text[: max_width - 1] + "…"

    body = [[cell(v) for v in row] for row in rows]
    widths = [len(h) for h in headers]
    for row in body:
        for i, value in enumerate(row):
            widths[i] = max(widths[i], len(value))
    click.echo("  ".join(h.upper().ljust(w) for h, w in zip(headers, widths)).rstrip())
    for row in body:
        click.echo("  ".join(v.ljust(w) for v, w in zip(row, widths)).rstrip())


json_option = click.option("--json", "as_json", is_flag=True, help="Print JSON for machines.")


def first_line(command: click.Command) -> str:
    """A command's one-line description, whole (click's own cuts it with "..." to fit the width)."""
    if command.short_help:
        return command.short_help
    paragraph = (command.help or "").strip().split("\n\n")[0]  # click cleaned the docstring already
    return " ".join(paragraph.replace("\b", "").split())


class FullHelpGroup(click.Group):
    """A group whose `-h` lists each command with its whole first line, wrapped rather than cut."""

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        return full_help(super().get_command(ctx, cmd_name))

    def format_commands(self, ctx: click.Context, formatter: click.HelpFormatter) -> None:
        rows = []
        for name in self.list_commands(ctx):
            command = self.get_command(ctx, name)
            if command is not None and not command.hidden:
                rows.append((name, first_line(command)))
        if rows:
            with formatter.section("Commands"):
                formatter.write_dl(rows)


def full_help(command: click.Command | None) -> click.Command | None:
    """A subgroup declared without cls=FullHelpGroup gets the same listing: the class adds behaviour
    only, no state, so the swap is safe."""
    if type(command) is click.Group:
        command.__class__ = FullHelpGroup
    return command


class ProgressBar:
    """A click progress bar on stderr for work that can take a while, started on the first report
    with more than `min_total` to do; shown only when a person watches a terminal (the summary
    lines say it all otherwise). Call it with (done, total); `close()` when the work ends."""

    def __init__(self, label: str, *, min_total: int = 1, show_pos: bool = False) -> None:
        self.label = label
        self.min_total = min_total
        self.show_pos = show_pos
        self.bar: Any = None
        self.shown = 0

    def __call__(self, done: int, total: int) -> None:
        if self.bar is None:
            if total <= self.min_total or not sys.stderr.isatty():
                return
            self.bar = click.progressbar(
                length=total, label=self.label, file=sys.stderr, show_pos=self.show_pos
            )
            self.bar.__enter__()
        self.bar.update(done - self.shown)
        self.shown = done

    def close(self) -> None:
        if self.bar is not None:
            self.bar.__exit__(None, None, None)
            self.bar = None
