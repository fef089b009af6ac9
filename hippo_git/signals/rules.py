"""The rollup's rules: per-session facts, claims beside their evidence, and incidents. No model.

Every rule is a pure function over a session's indexed (redacted) turns, so each is tested on
small transcripts written for it and on the real corpus. `analyse` runs them all for one session;
`overlapping_edits` and `redone_edits` find what only shows across sessions.
`FORMAT_VERSION` in `rollup.py` must be bumped whenever a rule here changes what it finds.
"""

from __future__ import annotations

import hashlib
import heapq
import os
import re
from bisect import bisect_right
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, replace
from functools import lru_cache
from itertools import groupby, islice
from operator import attrgetter

from hippo_git.signals import rollup_parse as rp
from hippo_git.signals import rules_vocab as v
from hippo_git.signals.rollup_commands import command_categories, git_sub, norm_command
from hippo_git.signals.rollup_facts import (
    Claim,
    Command,
    Edit,
    EditRow,
    Incident,
    PullRequest,
    SessionFacts,
    SessionSpan,
    Turn,
    Wait,
    epoch,
    excerpt,
)
from hippo_git.transcripts.model import ANSWER, ERROR, PROMPT, SYSTEM, TOOL_CALL, TOOL_OUTPUT

WAIT_SECONDS = 300  # a gap between turns longer than this is a wait, not work
_ENDED = re.compile(r"exit|exited|completed", re.I)
_PR_MERGE = re.compile(r"\b(gh|glab)\s+(pr|mr)\s+merge\b")
_DATABASE_TOOL = re.compile(r"sql|query|database")


def incident(
    at: Turn | Command | EditRow, cause: int | None, rule: str, text: str, **extra: str | None
) -> Incident:
    """An incident shown at `at` (kind and default summary from the rule's name)."""
    kind, summary = v.RULES[rule]
    return Incident(
        at.seq, cause, at.ts, kind, rule, extra.pop("summary", None) or summary, excerpt(text), **extra
    )


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


# --- claims and their evidence ------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
_BULLET = re.compile(r"^\s*(?:[-*+>]|\d+[.)]|#+)\s+")
_MARKER = re.compile(r"^[^\w`\"'(\[]+")


def _prose_lines(text: str) -> Iterator[str]:
    """The lines of an answer that are prose: not in a fenced block, not indented code."""
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced and not line.startswith("    "):
            yield line


def _sentences(line: str) -> list[str]:
    body = _BULLET.sub("", line).replace("**", "").strip()
    body = _MARKER.sub("", body)  # ✅ and other markers before the words
    return [s.strip() for s in _SENTENCE.split(body) if s.strip()]


def _prose(text: str) -> Iterable[str]:
    for line in _prose_lines(text):
        yield from _sentences(line)


def _holds(low: str, words: Sequence[str]) -> bool:
    for word in words:  # noqa: SIM110 (`any()` over a generator takes a third longer)
        if word in low:
            return True
    return False


# Characters that `re.I` matches to an ASCII letter but `str.lower` keeps apart (ſ s, ı İ i, K k):
# where one shows, a pattern can match a text whose lower case lacks the words it needs.
_FOLDS_TO_ASCII = re.compile("[\u0130\u0131\u017f\u212a]")


def _folds(text: str) -> bool:
    return not text.isascii() and _FOLDS_TO_ASCII.search(text) is not None


def _mentions_claim(text: str) -> bool:
    return _holds(text.lower(), v.CLAIM_WORDS)


def find_claims(text: str) -> list[tuple[str, str]]:
    """(kind, sentence) for each thing an answer says it did; one per kind."""
    found: dict[str, str] = {}
    if not _mentions_claim(text):
        return []
    for line in _prose_lines(text):
        # A sentence is a piece of its line without `**`: a line without a claim word has none.
        if not _mentions_claim(line.replace("**", "")):
            continue
        for sentence in _sentences(line):
            low = sentence.lower()
            if not _holds(low, v.CLAIM_WORDS) or v.INTENT.search(sentence):
                continue
            every = _folds(sentence)
            for kind, pattern in v.CLAIM_PATTERNS.items():
                if kind in found or not (every or v.CLAIM_KIND_WORDS[kind].search(low)):
                    continue
                m = pattern.search(sentence)
                if m is not None and not v.NEGATED.search(sentence[: m.end()]):
                    found[kind] = sentence
    return list(found.items())


def claims(
    turns: Sequence[Turn], cmds: Sequence[Command], eds: Sequence[Edit], delegated: Sequence[Command] = ()
) -> list[Claim]:
    """Each claim beside the last run of its check after the last change that could alter it:
    in this session (by turn order) or in a delegated session (by time)."""
    out: list[Claim] = []
    edit_seqs = sorted({e.seq for e in eds})
    commit_seqs = sorted(c.seq for c in cmds if "commit" in c.categories)
    for turn in turns:
        if turn.kind != ANSWER:
            continue
        for kind, sentence in find_claims(turn.text):
            marks = commit_seqs if kind == "pushed" else [] if kind == "merged" else edit_seqs
            since = max((s for s in marks if s < turn.seq), default=-1)
            since_ts = next((e.ts for e in reversed(eds) if e.seq == since), None)
            wanted = v.EVIDENCE[kind]
            runs = [c for c in cmds if since < c.seq < turn.seq and wanted & set(c.categories)]
            runs += [c for c in delegated if wanted & set(c.categories) and _between(c.ts, since_ts, turn.ts)]
            if kind == "fixed":
                runs += _reruns(cmds, since, turn.seq)
            done = [c for c in runs if c.exit is not None]
            if not done:
                out.append(Claim(turn.seq, turn.ts, kind, excerpt(sentence), "unchecked"))
                continue
            own = [c for c in done if c in cmds]
            last = own[-1] if own else max(done, key=lambda c: epoch(c.ts) or 0.0)
            status = "contradicted" if last.failed else "checked"
            out.append(Claim(turn.seq, turn.ts, kind, excerpt(sentence), status, last))
    return out


def _between(ts: str | None, lo: str | None, hi: str | None) -> bool:
    t, a, b = epoch(ts), epoch(lo), epoch(hi)
    return t is not None and b is not None and t <= b and (a is None or t > a)


def _reruns(cmds: Sequence[Command], since: int, until: int) -> list[Command]:
    """Commands that failed earlier and ran again after the last edit: the check the fix was for."""
    failed = {norm_command(c.command) for c in cmds if c.failed and c.seq < until}
    return [c for c in cmds if since < c.seq < until and norm_command(c.command) in failed]


# --- incidents inside one session ---------------------------------------------------------------


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
    if not _holds(head.lower(), v.CORRECTION_WORDS) and not _folds(head):
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
    return _holds(head.lower(), v.BLOCK_WORDS) and v.BLOCK_PATTERNS.search(head) is not None


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
            found = v.DESTRUCTIVE_SQL.search(command)
            if found:
                return " ".join(found.group(0).split()).upper()[:40]
    return None


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
            hit = v.DESTRUCTIVE_SQL.search(turn.text)
            if hit:
                reason = " ".join(hit.group(0).split()).upper()[:40]
                found.append(
                    incident(
                        turn, turn.seq, "destructive_sql", turn.text, summary=f"destructive SQL: {reason}"
                    )
                )
    return found


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
    facts.outcome = excerpt(" ".join(islice(_prose(last.text), 8)), 300) if last is not None else ""
    return facts


# --- what only shows across sessions ------------------------------------------------------------
#
# Two unrelated sessions editing one file at overlapping times, and a session making a change
# another session had already made (work redone). Both read the rollup's stored edits a group at
# a time (`overlapping_edits`: one path's edits; `redone_edits`: the edits of files sharing one
# base name), so the rollup streams its edits table ordered by path or name and never holds it
# whole. Times are compared as epochs, parsed once per edit (the rollup stores them) and once per
# session (`windows`). Output stays bounded however many sessions touch one file: a (session,
# path) gets at most `PER_PATH` incidents of a rule, and one more that counts the rest. Overlaps
# are found by a sweep over each session's time on the path sorted by start, so only sessions
# whose times overlap are ever compared: O(n log n + k) for n sessions on the path and k pairs
# whose times overlap.

PER_PATH = 5  # incidents of one rule a (session, path) shows by name; the rest are counted

Found = tuple[str, Incident]  # (the session it belongs to, the incident)


@dataclass(frozen=True)
class Window:
    """A session as the cross-session rules see it: its family and its active time, as epochs."""

    id: str
    root: str  # subagents and forks are `root/...`
    parent: str | None
    start: float  # started, nudged back a moment so an edit at the first turn counts as inside
    end: float | None  # ended; None: unknown, so no edit is known to fall inside it


def window(span: SessionSpan) -> Window:
    started, ended = epoch(span.started), epoch(span.ended)
    start = started - 0.001 if started is not None else float("-inf")
    return Window(span.id, span.id.split("/", 1)[0], span.parent, start, ended)


def windows(spans: Iterable[SessionSpan]) -> dict[str, Window]:
    return {s.id: window(s) for s in spans}


def related(a: Window, b: Window) -> bool:
    """Delegation is not a clash: a session and its subagents (or forks) share their work."""
    return (
        a.root == b.root
        or a.parent == b.id
        or b.parent == a.id
        or (a.parent is not None and a.parent == b.parent)
    )


def at(row: EditRow) -> float | None:
    return row.at if row.at is not None else epoch(row.ts)


class _OnPath:
    """One session's edits of one path: their times sorted, and the rows in turn order."""

    __slots__ = ("win", "times", "rows", "first", "lo", "hi", "rank")

    def __init__(self, win: Window, rows: list[tuple[int, float, EditRow]]) -> None:
        assert win.end is not None
        self.win = win
        self.rows = sorted(rows, key=lambda e: e[0])
        self.times = sorted(t for _, t, _ in rows)
        self.first = self.times[0]  # of two sessions, the one that came to the path later shows the clash
        # When it can clash: its edits of the path and its active time.
        self.lo, self.hi = min(self.first, win.start), max(self.times[-1], win.end)
        self.rank = 0  # its place among the path's sessions by first edit

    def first_within(self, w: Window) -> EditRow:
        assert w.end is not None
        return next(r for _, t, r in self.rows if w.start < t <= w.end)


def _on_path(rows: Iterable[EditRow], wins: dict[str, Window]) -> list[_OnPath]:
    edits: dict[str, list[tuple[int, float, EditRow]]] = {}
    for row in rows:
        t = at(row) if row.ts else None
        win = wins.get(row.session)
        # A session with no known end has no time another session's edit could fall inside.
        if t is not None and win is not None and win.end is not None:
            edits.setdefault(row.session, []).append((row.seq, t, row))
    return [_OnPath(wins[sid], found) for sid, found in edits.items()]


def _within(times: list[float], w: Window) -> bool:
    """Whether one of `times` (sorted) falls inside `w`."""
    i = bisect_right(times, w.start)
    return i < len(times) and w.end is not None and times[i] <= w.end


def overlapping_edits(path: str, rows: Iterable[EditRow], wins: dict[str, Window]) -> Iterator[Found]:
    """For one path's edits: a session that edited it while an unrelated session was active that
    also edited it while this one was active (shown on the session that came to the file later).

    Each session's time on the path (its edits and its active time) holds any clash it has:
    sorted by start and swept, each session meets only those whose time is still open."""
    sessions = _on_path(rows, wins)
    if len(sessions) < 2:
        return
    for n, s in enumerate(sorted(sessions, key=lambda s: (s.first, s.win.id))):
        s.rank = n
    sessions.sort(key=lambda s: (s.lo, s.rank))
    open_: list[_OnPath] = []
    nearest: dict[int, list[tuple[int, _OnPath]]] = {}  # later rank → the PER_PATH latest earlier
    counts: dict[int, int] = {}
    for s in sessions:
        open_ = [o for o in open_ if o.hi >= s.lo]
        for o in open_:
            if related(o.win, s.win) or not (_within(o.times, s.win) and _within(s.times, o.win)):
                continue
            early, late = (o, s) if o.rank < s.rank else (s, o)
            heap = nearest.setdefault(late.rank, [])
            if len(heap) < PER_PATH:
                heapq.heappush(heap, (early.rank, early))
            elif early.rank > heap[0][0]:
                heapq.heapreplace(heap, (early.rank, early))
            counts[late.rank] = counts.get(late.rank, 0) + 1
        open_.append(s)
    by_rank = {s.rank: s for s in sessions}
    name = os.path.basename(path)
    for rank in sorted(nearest):
        late = by_rank[rank]
        for _, early in sorted(nearest[rank]):
            cause = late.first_within(early.win)
            other = early.win.id
            summary = f"{name} was edited by this session and {other} at overlapping times"
            yield late.win.id, _incident(cause, "overlapping_edits", summary, path, other)
        rest = counts[rank] - len(nearest[rank])
        if rest:
            summary = f"{name} was also edited at overlapping times by {_more(rest, 'session')}"
            yield late.win.id, _incident(late.rows[0][2], "overlapping_edits", summary, path, None)


def redone_edits(rows: Iterable[EditRow], wins: dict[str, Window]) -> Iterator[Found]:
    """For the edits of files sharing one base name: an edit making the same change (same digest
    of the new text) an unrelated session had made first. A (session, path) names at most
    `PER_PATH` of them, the earliest, and counts the rest in one more incident."""
    keyed = [(at(r) or 0.0, r) for r in rows if r.digest and r.ts]
    keyed.sort(key=lambda e: (e[1].digest, e[0], e[1].session, e[1].seq))
    redone: dict[tuple[str, str], list[tuple[float, EditRow, EditRow]]] = {}
    for _, same in groupby(keyed, key=lambda e: e[1].digest):
        first: EditRow | None = None
        for t, row in same:
            if first is None:
                first = row
            if first.session == row.session:
                continue
            a, b = wins.get(first.session), wins.get(row.session)
            if a is None or b is None or related(a, b):
                continue
            redone.setdefault((row.session, row.path), []).append((t, row, first))
    for (sid, path), found in sorted(redone.items()):
        found.sort(key=lambda e: (e[0], e[1].seq))
        name = os.path.basename(path)
        for _, row, earlier in found[:PER_PATH]:
            summary = f"made the same change to {name} that {earlier.session}#{earlier.seq} had made"
            yield sid, _incident(row, "redone_edit", summary, path, earlier.session)
        if len(found) > PER_PATH:
            row = found[PER_PATH][1]
            summary = f"made {_more(len(found) - PER_PATH, 'change')} to {name} that other sessions had made"
            yield sid, _incident(row, "redone_edit", summary, path, None)


def _more(n: int, noun: str) -> str:
    return f"{n} more {noun}{'s' if n != 1 else ''}"


def _incident(at_row: EditRow, rule: str, summary: str, path: str, other: str | None) -> Incident:
    return incident(at_row, at_row.seq, rule, path, summary=summary, path=path, other_session=other)


def cross_session(rows: Iterable[EditRow], spans: dict[str, SessionSpan]) -> list[Found]:
    """(session, incident) of both rules over `rows` held in memory (the rollup streams instead)."""
    wins = windows(spans.values())
    edits = list(rows)
    found: list[Found] = []
    for path, group in groupby(sorted(edits, key=attrgetter("path")), key=attrgetter("path")):
        found += overlapping_edits(path, group, wins)
    by_name = sorted(edits, key=lambda r: os.path.basename(r.path))
    for _, group in groupby(by_name, key=lambda r: os.path.basename(r.path)):
        found += redone_edits(group, wins)
    return found
