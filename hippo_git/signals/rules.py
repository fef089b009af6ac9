"""The rollup's rules: per-session facts (work time, commands, edits, PRs), and `analyse`, which runs
every per-session rule for one session. No model.

Every rule is a pure function over a session's indexed (redacted) turns, so each is tested on
small transcripts written for it and on the real corpus. Claims beside their evidence are in
`rules_claims.py`, incidents inside a session in `rules_incidents.py`, and what only shows across
sessions (`overlapping_edits`, `redone_edits`) in `rules_cross.py`; their words and patterns in
`rules_vocab.py`. `FORMAT_VERSION` in `rollup.py` must be bumped whenever a rule changes what it finds.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Sequence
from dataclasses import replace
from itertools import islice

from hippo_git.signals import rollup_parse as rp
from hippo_git.signals import rules_vocab as v
from hippo_git.signals.rollup_commands import command_categories
from hippo_git.signals.rollup_facts import (
    Command,
    Edit,
    PullRequest,
    SessionFacts,
    Turn,
    Wait,
    epoch,
    excerpt,
)
from hippo_git.signals.rules_claims import claims
from hippo_git.signals.rules_incidents import corrections, destructive, failed_steps, person_text
from hippo_git.signals.rules_text import prose
from hippo_git.transcripts.model import ANSWER, PROMPT, SYSTEM, TOOL_CALL

WAIT_SECONDS = 300  # a gap between turns longer than this is a wait, not work
_ENDED = re.compile(r"exit|exited|completed", re.I)
_PR_MERGE = re.compile(r"\b(gh|glab)\s+(pr|mr)\s+merge\b")


# --- work time and waits ------------------------------------------------------------------------


def work_time(turns: Sequence[Turn], wait_seconds: float = WAIT_SECONDS) -> tuple[float, float, list[Wait]]:
    """(active seconds, wall seconds, waits): gaps longer than `wait_seconds` are waits, not work."""
    work = 0.0
    waits: list[Wait] = []
    first = last = None
    for turn in turns:
        t = epoch(turn.ts)
        if t is None:
            continue
        if last is None:
            first = last = t
            continue
        gap = t - last
        if gap > wait_seconds:
            waits.append(Wait(turn.seq, turn.ts, gap, turn.kind == PROMPT))
        elif gap > 0:
            work += gap
        if t > last:
            last = t
    wall = (last - first) if first is not None and last is not None else 0.0
    return work, wall, waits


# --- tool calls, commands and edits -------------------------------------------------------------


def commands(turns: Sequence[Turn], session: str = "", calls: rp.Calls | None = None) -> list[Command]:
    """Every shell command run, with the exit status its output (or a later poll) reports."""
    calls = calls or rp.Calls(turns)
    found: list[Command] = []
    background: dict[str, int] = {}  # handle → index in found
    for turn in turns:
        if turn.kind == SYSTEM and found and found[-1].out_seq == turn.seq - 1:
            # OpenCode reports a failed command in a notice right after its output.
            code = rp.exit_status(turn.text, False) if "exit code" in turn.text else None
            if code:
                found[-1] = replace(found[-1], exit=code)
            continue
        if turn.kind != TOOL_CALL:
            continue
        poll = rp.tool_key(turn.tool) in rp.POLL_TOOLS
        if not poll and not rp.is_shell(turn.tool):
            continue  # runs no command (its fields are read only if another rule needs them)
        out = calls.paired.get(turn.seq)
        if poll:
            if not background or out is None:
                continue  # nothing it could report the end of
            handle = rp.poll_handle(calls.fields(turn))
            if handle in background:
                code = rp.exit_status(out.text, out.is_error)
                if code is not None and (code != 0 or _ENDED.search(out.text[:600])):
                    i = background[handle]
                    found[i] = replace(found[i], out_seq=out.seq, exit=code)
            continue
        command = rp.command_of(turn.tool, calls.fields(turn))
        if command is None:
            continue
        code = rp.exit_status(out.text, out.is_error) if out is not None else None
        handle = rp.background_handle(out.text) if out is not None else None
        if handle is not None:
            code = None
            background[handle] = len(found)
        found.append(
            Command(
                turn.seq,
                out.seq if out else None,
                turn.ts,
                command,
                command_categories(command),
                code,
                session,
            )
        )
    return found


def _digest(text: str) -> str:
    flat = " ".join(text.split())
    return hashlib.sha256(flat.encode("utf-8")).hexdigest()[:20] if len(flat) >= 40 else ""


def absolute(path: str, cwd: str | None) -> str:
    if not os.path.isabs(path) and cwd and os.path.isabs(cwd):
        path = os.path.join(cwd, path)
    return os.path.normpath(path) if path else path


def edits(turns: Sequence[Turn], cwd: str | None = None, calls: rp.Calls | None = None) -> list[Edit]:
    """Files an edit/write/patch tool call changed, with the lines it added and removed."""
    found: list[Edit] = []
    calls = calls or rp.Calls(turns)
    for turn in turns:
        if turn.kind != TOOL_CALL:
            continue
        if not turn.edited and "*** Begin Patch" not in turn.text:
            continue  # neither an edit tool's call nor a patch
        out = calls.paired.get(turn.seq)
        if out is not None and out.is_error:
            continue  # a refused or failed edit changed nothing
        fields = calls.fields(turn)
        command = rp.command_of(turn.tool, fields)
        if command is not None and "*** Begin Patch" not in command:
            continue
        patch = command or next((v for v in fields.values() if "*** Begin Patch" in v), "")
        if patch:
            files, added, removed = rp.patch_counts(patch)
            for path in files:
                found.append(Edit(turn.seq, turn.ts, absolute(path, cwd), added, removed, _digest(patch)))
            continue
        if not turn.edited or not turn.paths:
            continue
        added, removed, new = rp.edit_counts(fields)
        for path in turn.paths:
            found.append(Edit(turn.seq, turn.ts, absolute(path, cwd), added, removed, _digest(new)))
    return found


def pull_requests(
    turns: Sequence[Turn], cmds: Sequence[Command], calls: rp.Calls | None = None
) -> list[PullRequest]:
    """PRs opened (`gh pr create` and PR-creating tools, with the URL they print) and merged."""
    found: list[PullRequest] = []
    by_seq: dict[int, Turn] | None = None  # made only for a session that runs a PR command
    for c in cmds:
        if c.failed or c.out_seq is None or not ("pr_create" in c.categories or "merge" in c.categories):
            continue
        if by_seq is None:
            by_seq = {t.seq: t for t in turns}
        out = by_seq.get(c.out_seq)
        if out is None:
            continue
        urls = v.PR_URL.findall(out.text) or v.PR_URL.findall(c.command)
        if "pr_create" in c.categories and urls:
            found.append(PullRequest(c.seq, c.ts, "opened", urls[-1]))
        if "merge" in c.categories and _PR_MERGE.search(c.command):
            found.append(PullRequest(c.seq, c.ts, "merged", urls[-1] if urls else c.command[:200]))
    paired = (calls or rp.Calls(turns)).paired
    for call in turns:
        if call.kind != TOOL_CALL or call.seq not in paired:
            continue
        tool = rp.tool_key(call.tool)
        out = paired[call.seq]
        if tool in ("create_pull_request", "merge_pull_request") and not out.is_error:
            urls = v.PR_URL.findall(out.text)
            if urls:
                action = "opened" if tool.startswith("create") else "merged"
                found.append(PullRequest(call.seq, call.ts, action, urls[0]))
    return sorted(found, key=lambda p: p.seq)


# --- one session ---------------------------------------------------------------------------------


def task_of(turns: Sequence[Turn]) -> str:
    for turn in turns:
        if turn.kind == PROMPT:
            text = person_text(turn)
            if text:
                return excerpt(text, 300)
    return ""


def analyse(
    turns: Sequence[Turn],
    *,
    cwd: str | None = None,
    delegated: Sequence[Command] = (),
    session: str = "",
    calls: rp.Calls | None = None,
    cmds: list[Command] | None = None,
) -> SessionFacts:
    """Every per-session fact of one session's turns (in seq order). `calls` and `cmds`: what
    `rp.Calls(turns)` and `commands(turns, session)` give, when the caller has them already."""
    facts = SessionFacts()
    calls = calls or rp.Calls(turns)
    facts.work_seconds, facts.wall_seconds, facts.waits = work_time(turns)
    facts.commands = commands(turns, session, calls) if cmds is None else cmds
    facts.edits = edits(turns, cwd, calls)
    facts.prs = pull_requests(turns, facts.commands, calls)
    facts.claims = claims(turns, facts.commands, facts.edits, delegated)
    facts.incidents = sorted(
        corrections(turns, facts.commands, facts.edits)
        + failed_steps(turns, facts.commands, calls)
        + destructive(turns, facts.commands),
        key=lambda i: (i.seq if i.seq is not None else -1, i.kind),
    )
    facts.task = task_of(turns)
    last = next((t for t in reversed(turns) if t.kind == ANSWER and t.text.strip()), None)
    facts.outcome = excerpt(" ".join(islice(prose(last.text), 8)), 300) if last is not None else ""
    return facts
