"""Memories found without a model: in raw conversation text, in fix/revert/bug commits, in a
failed command.

- `capture`: sentences that state a decision ("we decided to…", "let's go with…"), a rule
  ("always…", "never…", "make sure to…"), an error ("error: …", "… failed because …") or a
  preference ("I prefer…", "please don't…") become memories. Code blocks are skipped.
- `learn --git`: each fix, revert or bug commit becomes a lesson: its subject, the first
  paragraph of its body, and the files it changed.
- `watch-cmd`: a command that fails becomes an error memory: the command, its exit status and
  the tail of its output (redacted when the memory is made).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

MAX_SENTENCE = 400
MIN_SENTENCE = 12
TAIL_LINES = 12
TAIL_CHARS = 1500

_FENCE = re.compile(r"^\s*(```|~~~)")
_SPEAKER = re.compile(
    r"^\s*(?:[>*-]\s*)?(?:\*\*)?(?:user|human|assistant|ai|claude|me|you|[A-Z][\w .-]{0,20})(?:\*\*)?\s*:\s+",
    re.I,
)
# kind → patterns that mark a sentence as one worth keeping (checked in this order)
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "decision",
        re.compile(
            r"\b(we|i|team)\s+(decided|agreed|chose|settled on|will go with|are going with)\b|"
            r"\blet'?s\s+(go with|use|stick with|switch to)\b|\bdecision\s*:",
            re.I,
        ),
    ),
    (
        "error",
        re.compile(
            r"^\s*(error|fatal|exception|traceback)\b[:\s]|\b(failed|fails|breaks|crashed)\s+(because|when|if|with)\b|"
            r"\bthe (fix|cause|root cause) (was|is)\b",
            re.I,
        ),
    ),
    (
        "preference",
        re.compile(
            r"\bI\s+(prefer|like|want|don'?t like|hate)\b|\b(please|pls)\s+(don'?t|do not|always|never|use|avoid)\b|"
            r"\b(my|our) preference\b",
            re.I,
        ),
    ),
    (
        "rule",
        re.compile(
            r"^\s*(?:\w+,\s*)?(always|never|don'?t|do not|make sure( to)?|remember to|be sure to|avoid)\b|"
            r"\b(must|must not|should never|should always)\b|\brule\s*:",
            re.I,
        ),
    ),
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z\"'(`])")
LESSON_SUBJECT = re.compile(
    r"^(fix|fixes|fixed|hotfix|bugfix|revert|bug)\b|\b(fix(es|ed)?|bug|regression|revert)\b", re.I
)


@dataclass(frozen=True)
class Found:
    """A memory candidate found without a model, with its kind and where it was found."""

    kind: str  # decision | rule | error | preference | lesson | failure
    text: str
    where: str  # line number, commit, or command

    def as_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "text": self.text, "where": self.where}


def _lines_outside_code(text: str) -> Iterator[tuple[int, str]]:
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if _FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced and line.strip():
            yield n, line


def classify(sentence: str) -> str | None:
    for kind, pattern in PATTERNS:
        if pattern.search(sentence):
            return kind
    return None


def find_in_text(text: str) -> list[Found]:
    """The decisions, rules, errors and preferences stated in raw conversation text."""
    found: list[Found] = []
    seen: set[str] = set()
    for n, line in _lines_outside_code(text):
        line = _SPEAKER.sub("", line, count=1).strip()
        for sentence in _SENTENCE_END.split(line):
            sentence = sentence.strip().strip("*_ ")
            if not MIN_SENTENCE <= len(sentence) <= MAX_SENTENCE or sentence.endswith("?"):
                continue
            kind = classify(sentence)
            key = sentence.lower()
            if kind is None or key in seen:
                continue
            seen.add(key)
            found.append(Found(kind, sentence, f"line {n}"))
    return found


def lesson_of(subject: str, body: str, files: list[str], sha: str) -> Found | None:
    """A lesson from one commit when it is a fix, revert or bug commit; else None."""
    if not LESSON_SUBJECT.search(subject):
        return None
    para = body.strip().split("\n\n", 1)[0].strip() if body.strip() else ""
    para = " ".join(line for line in para.splitlines() if not re.match(r"^[\w-]+: ", line))
    text = subject.strip().rstrip(".") + "."
    if para:
        text += " " + " ".join(para.split())[:600]
    if files:
        shown = ", ".join(files[:8]) + (f" and {len(files) - 8} more" if len(files) > 8 else "")
        text += f" (files: {shown})"
    return Found("lesson", text, sha[:12])


def lessons_from_git(repo: Path, days: int) -> list[Found]:
    """Lessons from the fix/revert/bug commits of the last `days` days in `repo`, oldest first."""
    from hippo_git.git.commits import commits_in_range

    found: list[Found] = []
    for commit in commits_in_range(repo, f"--since={int(days)}.days.ago"):
        if len(commit.parents) > 1:
            continue  # a merge says nothing of its own
        subject, _, body = commit.message.partition("\n")
        item = lesson_of(subject, body, [c.path for c in commit.changes], commit.sha)
        if item is not None:
            found.append(item)
    return found


@dataclass(frozen=True)
class CommandRun:
    """A command run with its output passed through to the person: argv, exit status, the output's tail."""

    argv: tuple[str, ...]
    status: int
    tail: str


def run_watched(argv: list[str], cwd: Path, *, to_stderr: bool = False) -> CommandRun:
    """Run `argv`, passing its output through to the person (stdout, or stderr when stdout carries
    data), and keep the tail of it."""
    import subprocess
    import sys
    from collections import deque

    from hippo_git.errors import HippoError

    if not argv:
        raise HippoError(
            "no command to watch", hint="give it after --, e.g. `git hippo watch-cmd -- make test`"
        )
    try:
        proc = subprocess.Popen(argv, cwd=cwd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    except OSError as exc:
        raise HippoError(f"cannot run {argv[0]!r}: {exc.strerror}", hint="check the command name") from None
    tail: deque[str] = deque(maxlen=TAIL_LINES)
    assert proc.stdout is not None
    out = sys.stderr.buffer if to_stderr else sys.stdout.buffer
    for raw in proc.stdout:
        out.write(raw)
        out.flush()
        tail.append(raw.decode("utf-8", "replace").rstrip("\n"))
    status = proc.wait()
    return CommandRun(tuple(argv), status, "\n".join(tail)[-TAIL_CHARS:])


def failure_text(run: CommandRun) -> str:
    import shlex

    command = shlex.join(run.argv)
    return f"`{command}` failed with exit status {run.status}. Output ended with:\n{run.tail}".rstrip()
