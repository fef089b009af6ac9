"""The rollup's rules: per-session facts, claims beside their evidence, and incidents. No model.

Every rule is a pure function over a session's indexed (redacted) turns, so each is tested on
small transcripts written for it and on the real corpus. `analyse` runs them all for one session;
`cross_session` finds what only shows across sessions (overlapping edits, redone work).
`FORMAT_VERSION` in `rollup.py` must be bumped whenever a rule here changes what it finds.
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Iterable, Sequence
from dataclasses import replace
from datetime import datetime

from hippo_git.index import rollup_parse as rp
from hippo_git.index import rules_vocab as v
from hippo_git.index.rollup_facts import (
    Claim,
    Command,
    Edit,
    EditRow,
    Incident,
    PullRequest,
    SessionFacts,
    SessionSpan,
    Wait,
    epoch,
    excerpt,
)
from hippo_git.index.rollup_parse import command_categories, git_sub, norm_command
from hippo_git.index.sessions import TurnRow
from hippo_git.transcripts.model import ANSWER, ERROR, PROMPT, SYSTEM, TOOL_CALL, TOOL_OUTPUT

WAIT_SECONDS = 300  # a gap between turns longer than this is a wait, not work


def incident(
    at: TurnRow | Command | EditRow, cause: int | None, rule: str, text: str, **extra: str | None
) -> Incident:
    """An incident shown at `at` (kind and default summary from the rule's name)."""
    kind, summary = v.RULES[rule]
    return Incident(
        at.seq, cause, at.ts, kind, rule, extra.pop("summary", None) or summary, excerpt(text), **extra
    )


# --- work time and waits ------------------------------------------------------------------------


def work_time(
    turns: Sequence[TurnRow], wait_seconds: float = WAIT_SECONDS
) -> tuple[float, float, list[Wait]]:
    """(active seconds, wall seconds, waits): gaps longer than `wait_seconds` are waits, not work."""
    work = 0.0
    waits: list[Wait] = []
    first = last = None
    for turn in turns:
        t = epoch(turn.ts)
        if t is None:
            continue
        if first is None:
            first = t
        if last is not None:
            gap = t - last
            if gap > wait_seconds:
                waits.append(Wait(turn.seq, turn.ts, gap, turn.kind == PROMPT))
            elif gap > 0:
                work += gap
        last = t if last is None else max(last, t)
    wall = (last - first) if first is not None and last is not None else 0.0
    return work, wall, waits


# --- tool calls, commands and edits -------------------------------------------------------------


def commands(turns: Sequence[TurnRow], session: str = "") -> list[Command]:
    """Every shell command run, with the exit status its output (or a later poll) reports."""
    paired = rp.pair_calls(turns)
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
        fields = rp.parse_fields(turn.text, turn.tool)
        out = paired.get(turn.seq)
        if rp.tool_key(turn.tool) in rp.POLL_TOOLS:
            handle = rp.poll_handle(fields)
            if handle in background and out is not None:
                code = rp.exit_status(out.text, out.is_error)
                if code is not None and (
                    code != 0 or re.search(r"exit|exited|completed", out.text[:600], re.I)
                ):
                    i = background[handle]
                    found[i] = replace(found[i], out_seq=out.seq, exit=code)
            continue
        command = rp.command_of(turn.tool, fields)
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


def edits(turns: Sequence[TurnRow], cwd: str | None = None) -> list[Edit]:
    """Files an edit/write/patch tool call changed, with the lines it added and removed."""
    found: list[Edit] = []
    paired = rp.pair_calls(turns)
    for turn in turns:
        if turn.kind != TOOL_CALL:
            continue
        out = paired.get(turn.seq)
        if out is not None and out.is_error:
            continue  # a refused or failed edit changed nothing
        fields = rp.parse_fields(turn.text, turn.tool)
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


def pull_requests(turns: Sequence[TurnRow], cmds: Sequence[Command]) -> list[PullRequest]:
    """PRs opened (`gh pr create` and PR-creating tools, with the URL they print) and merged."""
    by_seq = {t.seq: t for t in turns}
    found: list[PullRequest] = []
    for c in cmds:
        out = by_seq.get(c.out_seq) if c.out_seq is not None else None
        if c.failed or out is None:
            continue
        urls = v.PR_URL.findall(out.text) or v.PR_URL.findall(c.command)
        if "pr_create" in c.categories and urls:
            found.append(PullRequest(c.seq, c.ts, "opened", urls[-1]))
        if "merge" in c.categories and re.search(r"\b(gh|glab)\s+(pr|mr)\s+merge\b", c.command):
            found.append(PullRequest(c.seq, c.ts, "merged", urls[-1] if urls else c.command[:200]))
    for call, out in rp.pair_calls(turns).items():
        tool = rp.tool_key(by_seq[call].tool)
        if tool in ("create_pull_request", "merge_pull_request") and not out.is_error:
            urls = v.PR_URL.findall(out.text)
            if urls:
                action = "opened" if tool.startswith("create") else "merged"
                found.append(PullRequest(call, by_seq[call].ts, action, urls[0]))
    return sorted(found, key=lambda p: p.seq)


# --- claims and their evidence ------------------------------------------------------------------

_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")


def _prose(text: str) -> Iterable[str]:
    fenced = False
    for line in text.split("\n"):
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced or line.startswith("    "):
            continue
        body = re.sub(r"^\s*(?:[-*+>]|\d+[.)]|#+)\s+", "", line).replace("**", "").strip()
        body = re.sub(r"^[^\w`\"'(\[]+", "", body)  # ✅ and other markers before the words
        yield from (s.strip() for s in _SENTENCE.split(body) if s.strip())


def _mentions_claim(text: str) -> bool:
    low = text.lower()
    return any(word in low for word in v.CLAIM_WORDS)


def find_claims(text: str) -> list[tuple[str, str]]:
    """(kind, sentence) for each thing an answer says it did; one per kind."""
    found: dict[str, str] = {}
    if not _mentions_claim(text):
        return []
    for sentence in _prose(text):
        if not _mentions_claim(sentence) or v.INTENT.search(sentence):
            continue
        for kind, pattern in v.CLAIM_PATTERNS.items():
            m = pattern.search(sentence) if kind not in found else None
            if m is not None and not v.NEGATED.search(sentence[: m.end()]):
                found[kind] = sentence
    return list(found.items())


def claims(
    turns: Sequence[TurnRow], cmds: Sequence[Command], eds: Sequence[Edit], delegated: Sequence[Command] = ()
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


def person_text(turn: TurnRow) -> str | None:
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
    return v.CORRECTION.search(head) is not None


def corrections(turns: Sequence[TurnRow], cmds: Sequence[Command], eds: Sequence[Edit]) -> list[Incident]:
    """A person correcting the agent (the cause: the agent's last turn before it), and the agent
    reverting its own edit after a person's prompt (the cause: that edit)."""
    found: list[Incident] = []
    last_agent: TurnRow | None = None
    last_answer: TurnRow | None = None
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
    prompts = [t.seq for t in turns if t.kind == PROMPT and person_text(t)]
    for c in cmds:
        if "revert" not in c.categories:
            continue
        for e in reversed(eds):
            prompted = any(e.seq < p < c.seq for p in prompts)
            if e.seq < c.seq and prompted and os.path.basename(e.path) in c.command:
                found.append(incident(c, e.seq, "revert_edit", c.command, path=e.path))
                break
    return found


def failed_steps(turns: Sequence[TurnRow], cmds: Sequence[Command]) -> list[Incident]:
    """Permission denials and refusals (blocked), tool and harness errors, and a command that failed
    again and again without succeeding in between."""
    found: list[Incident] = []
    by_out = {out.seq: call for call, out in rp.pair_calls(turns).items()}
    shell_outputs = {c.out_seq for c in cmds}
    for turn in turns:
        if turn.kind not in (TOOL_OUTPUT, ERROR):
            continue
        cause = by_out.get(turn.seq)
        head = turn.text[:600]
        if v.BLOCK_PATTERNS.search(head) and (
            turn.kind == ERROR or turn.is_error or turn.seq in shell_outputs or len(head) < 300
        ):
            found.append(incident(turn, cause, "permission_denied", head))
        elif turn.kind == ERROR:
            found.append(incident(turn, None, "harness_error", head))
        elif (turn.is_error or head.startswith("<tool_use_error>")) and turn.seq not in shell_outputs:
            found.append(incident(turn, cause, "tool_error", head))
    streaks: dict[str, list[Command]] = {}
    for c in cmds:
        key = norm_command(c.command)
        if c.exit == 0:
            _close_streak(streaks.pop(key, []), found)
        elif meaningful_failure(c):
            streaks.setdefault(key, []).append(c)
    for streak in streaks.values():
        _close_streak(streak, found)
    return sorted(found, key=lambda i: i.seq or 0)


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


def destructive(turns: Sequence[TurnRow], cmds: Sequence[Command]) -> list[Incident]:
    """Destructive shell commands, and destructive SQL sent through a database tool."""
    found = []
    for c in cmds:
        reason = destructive_reason(c.command)
        if reason:
            found.append(
                incident(c, c.seq, "destructive_command", c.command, summary=f"destructive command: {reason}")
            )
    for turn in turns:
        if turn.kind == TOOL_CALL and re.search(r"sql|query|database", rp.tool_key(turn.tool)):
            hit = v.DESTRUCTIVE_SQL.search(turn.text)
            if hit:
                reason = " ".join(hit.group(0).split()).upper()[:40]
                found.append(
                    incident(
                        turn, turn.seq, "destructive_sql", turn.text, summary=f"destructive SQL: {reason}"
                    )
                )
    return found


# --- one session, and what only shows across sessions ------------------------------------------


def task_of(turns: Sequence[TurnRow]) -> str:
    for turn in turns:
        if turn.kind == PROMPT:
            text = person_text(turn)
            if text:
                return excerpt(text, 300)
    return ""


def analyse(
    turns: Sequence[TurnRow], *, cwd: str | None = None, delegated: Sequence[Command] = (), session: str = ""
) -> SessionFacts:
    """Every per-session fact of one session's turns (in seq order)."""
    facts = SessionFacts()
    facts.work_seconds, facts.wall_seconds, facts.waits = work_time(turns)
    facts.commands = commands(turns, session)
    facts.edits = edits(turns, cwd)
    facts.prs = pull_requests(turns, facts.commands)
    facts.claims = claims(turns, facts.commands, facts.edits, delegated)
    facts.incidents = sorted(
        corrections(turns, facts.commands, facts.edits)
        + failed_steps(turns, facts.commands)
        + destructive(turns, facts.commands),
        key=lambda i: (i.seq if i.seq is not None else -1, i.kind),
    )
    facts.task = task_of(turns)
    answers = [t for t in turns if t.kind == ANSWER and t.text.strip()]
    facts.outcome = excerpt(" ".join(list(_prose(answers[-1].text))[:8]), 300) if answers else ""
    return facts


def _related(a: SessionSpan, b: SessionSpan) -> bool:
    """Delegation is not a clash: a session and its subagents (or forks) share their work."""
    root_a, root_b = a.id.split("/", 1)[0], b.id.split("/", 1)[0]
    return (
        root_a == root_b
        or a.parent == b.id
        or b.parent == a.id
        or (a.parent is not None and a.parent == b.parent)
    )


def cross_session(rows: Sequence[EditRow], spans: dict[str, SessionSpan]) -> list[tuple[str, Incident]]:
    """(session, incident): two unrelated sessions editing one file while both were active, and a
    session making an edit another session had already made (work redone)."""
    found: list[tuple[str, Incident]] = []
    by_path: dict[str, dict[str, list[EditRow]]] = {}
    for row in rows:
        if row.ts:
            by_path.setdefault(row.path, {}).setdefault(row.session, []).append(row)
    for path, sessions in by_path.items():
        ids = sorted(sessions, key=lambda s: min(epoch(r.ts) or 0.0 for r in sessions[s]))
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                sa, sb = spans.get(a), spans.get(b)
                if sa is None or sb is None or _related(sa, sb):
                    continue
                in_a = [r for r in sessions[b] if _between(r.ts, _before(sa.started), sa.ended)]
                in_b = [r for r in sessions[a] if _between(r.ts, _before(sb.started), sb.ended)]
                if in_a and in_b:
                    cause = in_a[0]
                    summary = (
                        f"{os.path.basename(path)} was edited by this session and {a} at overlapping times"
                    )
                    found.append(
                        (
                            b,
                            incident(
                                cause,
                                cause.seq,
                                "overlapping_edits",
                                path,
                                summary=summary,
                                path=path,
                                other_session=a,
                            ),
                        )
                    )
    first_by_digest: dict[tuple[str, str], EditRow] = {}
    for row in sorted(
        (r for r in rows if r.digest and r.ts), key=lambda r: (epoch(r.ts) or 0.0, r.session, r.seq)
    ):
        key = (row.digest, os.path.basename(row.path))
        earlier = first_by_digest.setdefault(key, row)
        if earlier.session == row.session:
            continue
        sa, sb = spans.get(earlier.session), spans.get(row.session)
        if sa is None or sb is None or _related(sa, sb):
            continue
        summary = f"made the same change to {os.path.basename(row.path)} that {earlier.session}#{earlier.seq} had made"
        found.append(
            (
                row.session,
                incident(
                    row,
                    row.seq,
                    "redone_edit",
                    row.path,
                    summary=summary,
                    path=row.path,
                    other_session=earlier.session,
                ),
            )
        )
    return found


def _before(ts: str | None) -> str | None:
    """A start time nudged back a moment, so an edit at the very first turn counts as inside."""
    t = epoch(ts)
    return None if t is None else datetime.fromtimestamp(t - 0.001).astimezone().isoformat()
