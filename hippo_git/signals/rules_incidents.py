"""The rollup's incidents inside one session: a person's corrections, reverts of the agent's own
edits, blocked and failed steps, and destructive commands. `FORMAT_VERSION` in `rollup.py` must
be bumped whenever a rule here changes what it finds."""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import replace
from functools import lru_cache

from hippo_git.signals import rollup_parse as rp
from hippo_git.signals import rules_vocab as v
from hippo_git.signals.rollup_commands import git_sub, norm_command
from hippo_git.signals.rollup_facts import Command, Edit, EditRow, Incident, Turn, excerpt
from hippo_git.signals.rules_text import folds, holds
from hippo_git.transcripts.model import ANSWER, ERROR, PROMPT, TOOL_CALL, TOOL_OUTPUT

_DATABASE_TOOL = re.compile(r"sql|query|database")


def incident(
    at: Turn | Command | EditRow, cause: int | None, rule: str, text: str, **extra: str | None
) -> Incident:
    """An incident shown at `at` (kind and default summary from the rule's name)."""
    kind, summary = v.RULES[rule]
    return Incident(
        at.seq, cause, at.ts, kind, rule, extra.pop("summary", None) or summary, excerpt(text), **extra
    )


def meaningful_failure(c: Command) -> bool:
    """A non-zero exit that means a failure: exit 1 of grep, diff or test only answers "no"."""
    if not c.failed:
        return False
    if c.exit != 1:
        return True
    for words in rp.segments(c.command):
        prog = rp.program(words)
        if prog in v.NO_MATCH or (prog == "git" and git_sub(words)[0] in ("diff", "grep")):
            return False
    return True


def person_text(turn: Turn) -> str | None:
    """A prompt's words as the person typed them, or None when the harness wrote it."""
    text = v.TAG_BLOCK.sub("", turn.text).strip()
    if (
        not text
        or text.startswith(v.INJECTED)
        or text.startswith("/")
        or (text.startswith("<") and text.endswith(">"))
    ):
        return None
    return text


def is_correction(text: str) -> bool:
    head = text[:400]
    if v.CORRECTION_START.match(head) is not None:
        return True
    if not holds(head.lower(), v.CORRECTION_WORDS) and not folds(head):
        return False
    return v.CORRECTION_ANYWHERE.search(head) is not None


def corrections(turns: Sequence[Turn], cmds: Sequence[Command], eds: Sequence[Edit]) -> list[Incident]:
    """A person correcting the agent (the cause: the agent's last turn before it), and the agent
    reverting its own edit after a person's prompt (the cause: that edit)."""
    found: list[Incident] = []
    last_agent: Turn | None = None
    last_answer: Turn | None = None
    prompts: list[int] = []  # a person's prompts
    for turn in turns:
        if turn.kind == ANSWER:
            last_agent = last_answer = turn
        elif turn.kind == TOOL_CALL:
            last_agent = turn
        elif turn.kind == PROMPT:
            text = person_text(turn)
            cause = last_answer or last_agent
            if text and cause is not None and is_correction(text):
                found.append(incident(turn, cause.seq, "person_correction", text))
            if text:
                last_answer = last_agent = None
                prompts.append(turn.seq)
    for c in cmds:
        if "revert" not in c.categories:
            continue
        for e in reversed(eds):
            prompted = any(e.seq < p < c.seq for p in prompts)
            if e.seq < c.seq and prompted and os.path.basename(e.path) in c.command:
                found.append(incident(c, e.seq, "revert_edit", c.command, path=e.path))
                break
    return found


def failed_steps(
    turns: Sequence[Turn], cmds: Sequence[Command], calls: rp.Calls | None = None
) -> list[Incident]:
    """Permission denials and refusals (blocked), tool and harness errors, and a command that failed
    again and again without succeeding in between."""
    found: list[Incident] = []
    by_out = {out.seq: call for call, out in (calls or rp.Calls(turns)).paired.items()}
    shell_outputs = {c.out_seq for c in cmds}
    for turn in turns:
        if turn.kind not in (TOOL_OUTPUT, ERROR):
            continue
        cause = by_out.get(turn.seq)
        head = turn.text[:600]
        if (turn.kind == ERROR or turn.is_error or turn.seq in shell_outputs or len(head) < 300) and _blocked(
            head
        ):
            found.append(incident(turn, cause, "permission_denied", head))
        elif turn.kind == ERROR:
            found.append(incident(turn, None, "harness_error", head))
        elif (turn.is_error or head.startswith("<tool_use_error>")) and turn.seq not in shell_outputs:
            found.append(incident(turn, cause, "tool_error", head))
    streaks: dict[str, list[Command]] = {}
    for c in cmds:
        if c.exit == 0:
            if streaks:  # most commands succeed with no failure open to close
                _close_streak(streaks.pop(norm_command(c.command), []), found)
        elif meaningful_failure(c):
            streaks.setdefault(norm_command(c.command), []).append(c)
    for streak in streaks.values():
        _close_streak(streak, found)
    return sorted(found, key=lambda i: i.seq or 0)


def _blocked(head: str) -> bool:
    return holds(head.lower(), v.BLOCK_WORDS) and v.BLOCK_PATTERNS.search(head) is not None


def _close_streak(streak: list[Command], found: list[Incident]) -> None:
    if len(streak) >= 2:
        first = streak[0]
        codes = ", ".join(str(c.exit) for c in streak)
        summary = f"the same command failed {len(streak)} times in a row (exit {codes})"
        found.append(
            replace(
                incident(first, first.seq, "repeated_failure", first.command, summary=summary),
                seq=streak[-1].out_seq or streak[-1].seq,
            )
        )


def destructive_reason(command: str) -> str | None:
    """Why a command line destroys work or data that may not come back, or None."""
    for words in rp.segments(command):
        prog = rp.program(words)
        flags = [w for w in words[1:] if w.startswith("-") and not w.startswith("--")]
        if prog == "rm":
            recursive = any(set(f) & {"r", "R"} for f in flags) or "--recursive" in words
            force = any("f" in f for f in flags) or "--force" in words
            targets = [w for w in words[1:] if not w.startswith("-")]
            if recursive and force and targets and not all(v.SCRATCH.search(t) for t in targets):
                return "rm -rf"
        elif prog == "git":
            sub, rest = git_sub(words)
            if sub == "reset" and "--hard" in rest:
                return "git reset --hard"
            if sub == "push" and (
                any(a in ("-f", "--force", "--force-with-lease") or a.startswith("--force") for a in rest)
                or any(a.startswith("+") for a in rest)
            ):
                return "git push --force"
            if sub == "clean" and any("f" in a for a in rest if a.startswith("-") and not a.startswith("--")):
                return "git clean -f"
            if sub in ("checkout", "restore") and rest[-1:] == ["."]:
                return f"git {sub} . (discards all uncommitted changes)"
            if sub == "branch" and "-D" in rest:
                return "git branch -D"
            if sub in ("filter-branch", "filter-repo"):
                return f"git {sub}"
        elif prog == "terraform" and words[1:2] == ["destroy"]:
            return "terraform destroy"
        elif prog == "kubectl" and words[1:2] == ["delete"]:
            return "kubectl delete"
        elif prog in ("dropdb", "mkfs") or prog.startswith("mkfs."):
            return prog
        elif prog == "dd" and any(w.startswith("of=/dev/") for w in words):
            return "dd onto a device"
        if prog in v.SQL_CLIENTS:
            found = destructive_sql(command)
            if found:
                return found
    return None


def destructive_sql(text: str) -> str | None:
    """The destructive SQL statement's head (`DROP TABLE`, `DELETE FROM`, ...) in `text`, or None."""
    hit = v.DESTRUCTIVE_SQL.search(text)
    return " ".join(hit.group(0).split()).upper()[:40] if hit else None


@lru_cache(maxsize=1024)
def _database_tool(tool: str | None) -> bool:
    return _DATABASE_TOOL.search(rp.tool_key(tool)) is not None


def destructive(turns: Sequence[Turn], cmds: Sequence[Command]) -> list[Incident]:
    """Destructive shell commands, and destructive SQL sent through a database tool."""
    found = []
    for c in cmds:
        reason = destructive_reason(c.command)
        if reason:
            found.append(
                incident(c, c.seq, "destructive_command", c.command, summary=f"destructive command: {reason}")
            )
    for turn in turns:
        if turn.kind == TOOL_CALL and _database_tool(turn.tool):
            reason = destructive_sql(turn.text)
            if reason:
                found.append(
                    incident(
                        turn, turn.seq, "destructive_sql", turn.text, summary=f"destructive SQL: {reason}"
                    )
                )
    return found
