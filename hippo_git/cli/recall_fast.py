"""`git hippo recall` without click: its rendering, shared with the click command
(`memory_cmds.recall_cmd`), and `run_fast`, which answers the plain forms of the command before
click and the command group are imported.

An agent recalls at every prompt, and loading click and the group cost a cold recall over 10,000
memories about a fifth of its time. Anything this parser does not know (help, a bad value, a second
query argument) goes to the click command, which answers it with its usual messages.
"""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

from hippo_git.cli.plain_args import split_plain
from hippo_git.errors import HippoError

if TYPE_CHECKING:
    from hippo_git.memories.recall import Recalled

_FLAGS = {"--json": "as_json", "--why": "why", "--no-notes": "no_notes"}
_VALUES = {"--limit": "limit", "--budget": "budget"}


def recall_json(items: list[Recalled], why: bool) -> str:
    """What `recall --json` prints (the format of every command's `--json`)."""
    data = [r.as_dict(why=True) if why else r.as_dict() for r in items]
    return json.dumps(data, indent=2, ensure_ascii=False, default=str)


def recall_lines(items: list[Recalled], why: bool) -> list[str]:
    """The recalled items as `recall` prints them: a head line, the text indented, the score's parts."""
    lines: list[str] = []
    for r in items:
        mark = " unreviewed" if not r.reviewed else " awaiting apply" if r.store == "proposals" else ""
        when = f" {r.created[:10]}" if r.created else ""
        head = f"{r.id}  [{r.tier}{mark}]{when}" + (f"  #{' #'.join(r.tags)}" if r.tags else "")
        lines.append(head if r.kind == "memory" else f"{r.path}  [note] {r.title}")
        text = r.text if r.kind == "memory" else r.text[:300]
        lines.append("  " + text.replace("\n", "\n  "))
        if why:
            parts = ", ".join(f"{k}={v:.3g}" for k, v in r.parts.items())
            lines.append(f"  why: {parts} → {r.score:.3g}")
    return lines


def parse(argv: list[str]) -> dict[str, Any] | None:
    """The recall's options from the plain forms of its command line, or None for the click
    command to answer (help, an unknown option, a missing or bad value, not exactly one query)."""
    opts: dict[str, Any] = {"as_json": False, "why": False, "no_notes": False, "limit": "10", "budget": None}
    split = split_plain(argv, _FLAGS, _VALUES)
    if split is None:
        return None
    words, found = split
    opts.update(found)
    if len(words) != 1 or not words[0]:
        return None
    for key in ("limit", "budget"):
        if opts[key] is not None:
            if not str(opts[key]).isdigit() or int(opts[key]) < 1:
                return None
            opts[key] = int(opts[key])
    opts["query"] = words[0]
    return opts


def run_fast(argv: list[str]) -> int | None:
    """The exit status of `git hippo recall ARGV`, or None when the click command must answer."""
    opts = parse(argv)
    if opts is None:
        return None
    from hippo_git.memories.service import recall_here

    try:
        items = recall_here(
            opts["query"], budget_tokens=opts["budget"], limit=opts["limit"], notes=not opts["no_notes"]
        )
    except HippoError as exc:
        sys.stderr.write(exc.for_person())
        return exc.exit_code
    if opts["as_json"]:
        sys.stdout.write(recall_json(items, opts["why"]) + "\n")
    elif not items:
        sys.stderr.write("nothing recalled\n")
    else:
        sys.stdout.write("\n".join(recall_lines(items, opts["why"])) + "\n")
    return 0
