"""Shared rendering: JSON to stdout, aligned tables, messages to stderr."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import click


def emit_json(data: Any) -> None:
    click.echo(json.dumps(data, indent=2, ensure_ascii=False, default=str))


def say(message: str) -> None:
    """A message for the person (stderr), never data."""
    click.echo(message, err=True)


def table(rows: Sequence[Sequence[Any]], headers: Sequence[str], *, max_width: int = 60) -> None:
    """Print an aligned plain-text table to stdout; long cells are cut with an ellipsis."""

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
