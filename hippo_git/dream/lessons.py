"""`git hippo lessons scan` (also run after each dream): rules learnt from what went wrong.

Candidates come from the rollup: a person's correction of an agent, and the same command failing
in two or more sessions. Each candidate not drafted before is drafted into a rule by one model run
(`task: "lesson"`, the lessons pack's prompt, the same isolated model command as dreaming), checked
in code like any proposal (`validate.check`: note path, evidence, size, text a human reverted), and
reviewed by a second run with the dream's review request and verdict. A confirmed lesson goes to
the inbox; `lessons_keep.keep` later writes it into a note through proposal → receipt → apply.
"""

from __future__ import annotations

import hashlib
import re
import secrets
import sqlite3
from collections.abc import Callable, Mapping
from dataclasses import asdict, dataclass, field
from datetime import datetime
from typing import Any

from hippo_git.config import Config
from hippo_git.dream.evidence import NoteText, PassInput, TurnRef
from hippo_git.dream.lessons_inbox import (
    Lesson,
    LessonReview,
    LessonTurn,
    drafter_key,
    known_values,
    save,
    save_scanned,
    scanned,
)
from hippo_git.dream.lessons_protocol import lesson_request, parse_lesson_reply
from hippo_git.dream.packs import Pass, find_pack
from hippo_git.dream.protocol import parse_review_reply, review_request
from hippo_git.dream.records import Proposal, Reviewer
from hippo_git.dream.revert import reverted_texts
from hippo_git.dream.runner import Model, ModelRunError, default_model_command, is_heuristic, make_model
from hippo_git.dream.validate import check
from hippo_git.errors import HippoError
from hippo_git.git.objects import GitStore, now_iso
from hippo_git.index.sessions import TurnRow, get_turns, session_filters
from hippo_git.signals.rollup_commands import norm_command
from hippo_git.signals.rollup_facts import Command, excerpt
from hippo_git.signals.rules_incidents import meaningful_failure

PACK = "lessons"
LESSONS_NOTE = "lessons.md"
MAX_CANDIDATES = 10  # drafted per scan (two model calls each); the rest wait for the next scan
SESSIONS_PER_FAILURE = 3  # sessions whose failing run is shown for a repeated failure
PASSES = {"correction": "corrections", "repeated_failure": "failures"}  # candidate kind → pass


@dataclass(frozen=True)
class Candidate:
    """Something that went wrong more than once (a correction, a repeated failure), to draft a lesson from."""

    kind: str  # "correction" | "repeated_failure"
    value: str  # sha256 of the normalised correction or failing command
    turns: tuple[TurnRef, ...]  # what the drafting run is shown
    sessions: tuple[str, ...]
    when: str  # newest time it happened, for ordering


@dataclass
class ScanReport:
    """What a lessons scan did: candidates found, lessons drafted, refused, rejected and sent to the inbox."""

    model: list[str] = field(default_factory=list)
    heuristic: bool = False
    candidates: int = 0
    already_drafted: int = 0
    drafted: int = 0
    no_rule: int = 0  # the drafting run found no rule
    refused: list[str] = field(default_factory=list)  # drafts that failed the checks in code, with why
    rejected: int = 0  # drafts the review rejected
    inbox: list[str] = field(default_factory=list)  # ids of the lessons added to the inbox
    left: int = 0  # candidates left for the next scan (cap per scan)
    stopped: str | None = None  # why the scan stopped early (the model failed)

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)

    def lines(self) -> list[str]:
        out = [
            f"{self.candidates} candidates ({self.already_drafted} drafted before), {self.drafted} drafted: "
            f"{len(self.inbox)} confirmed into the inbox, {self.rejected} rejected by review, "
            f"{len(self.refused)} refused by the checks, {self.no_rule} without a rule"
        ]
        out += [f"refused: {why}" for why in self.refused]
        if self.left:
            out.append(f"{self.left} candidates left for the next scan")
        if self.stopped:
            out.append(f"stopped: {self.stopped}")
        if self.inbox:
            out.append(f"new in the inbox: {', '.join(self.inbox)} (`git hippo lessons inbox`)")
        return out


def normalise(text: str) -> str:
    return re.sub(r"[\s.!?,;:]+$", "", " ".join(text.lower().split()))


def value_of(kind: str, text: str) -> str:
    return hashlib.sha256(f"{kind}\n{normalise(text)}".encode()).hexdigest()


def _ref(row: TurnRow) -> TurnRef:
    return TurnRef(row.session_id, row.seq, row.kind, row.text, row.ts, row.tool, row.is_error)


def _scope_sql(scope: tuple[list[str], list[str]] | None) -> tuple[str, list[Any]]:
    if scope is None:
        return "", []
    where, params = session_filters(cwds=scope[0], session_ids=scope[1])
    return " AND " + " AND ".join(where), params


def _corrections(
    rollup: sqlite3.Connection, index: sqlite3.Connection, where: str, params: list[Any]
) -> list[Candidate]:
    """A person's correction, shown with the agent turn it corrects."""
    found = []
    rows = rollup.execute(
        "SELECT i.session_id, i.seq, i.cause, coalesce(i.ts, s.started, '') FROM incidents i"
        " JOIN sessions s ON s.id = i.session_id"
        f" WHERE i.kind = 'correction' AND i.rule = 'person_correction'{where}",
        params,
    )
    for sid, seq, cause, when in rows:
        turns = get_turns(index, sid, [s for s in (cause, seq) if s is not None])
        said = [t for t in turns if t.seq == seq]
        if said:
            value = value_of("correction", said[0].text)
            found.append(Candidate("correction", value, tuple(_ref(t) for t in turns), (sid,), when))
    return found


def _repeated_failures(
    rollup: sqlite3.Connection, index: sqlite3.Connection, where: str, params: list[Any]
) -> list[Candidate]:
    """The same command failing in two or more sessions, shown with its latest failing runs."""
    runs: dict[str, dict[str, tuple[int, int | None, str]]] = {}  # command → session → its latest failure
    rows = rollup.execute(
        "SELECT c.session_id, c.seq, c.out_seq, c.command, c.exit, coalesce(c.ts, '') FROM commands c"
        f" JOIN sessions s ON s.id = c.session_id WHERE c.exit IS NOT NULL AND c.exit != 0{where} ORDER BY 6 DESC",
        params,
    )
    for sid, seq, out_seq, command, code, ts in rows:
        if meaningful_failure(Command(seq, out_seq, ts, command, (), code)):
            runs.setdefault(norm_command(command), {}).setdefault(sid, (seq, out_seq, ts))
    found = []
    for command, by_session in runs.items():
        if len(by_session) < 2:
            continue
        shown = list(by_session.items())[:SESSIONS_PER_FAILURE]
        turns = [
            t
            for sid, (seq, out, _) in shown
            for t in get_turns(index, sid, [s for s in (seq, out) if s is not None])
        ]
        when = max(ts for _, _, ts in by_session.values())
        value = value_of("repeated_failure", command)
        found.append(
            Candidate("repeated_failure", value, tuple(_ref(t) for t in turns), tuple(by_session), when)
        )
    return found


def find_candidates(
    rollup: sqlite3.Connection, index: sqlite3.Connection, scope: tuple[list[str], list[str]] | None
) -> list[Candidate]:
    """Corrections people gave and commands that failed in several sessions, newest first; one
    candidate per value (the same correction in two sessions is one lesson)."""
    where, params = _scope_sql(scope)
    found: dict[str, Candidate] = {}
    newest_first = sorted(
        _corrections(rollup, index, where, params) + _repeated_failures(rollup, index, where, params),
        key=lambda c: c.when,
        reverse=True,
    )
    for c in newest_first:
        found.setdefault(c.value, c)
    return list(found.values())


def entry_text(p: Pass, rule: str, evidence: list[str]) -> str:
    template = (p.template or "- {label}: {text} ({evidence})").strip()
    text = (
        template.replace("{label}", "Lesson")
        .replace("{text}", " ".join(rule.split()))
        .replace("{evidence}", ", ".join(evidence))
    )
    return text.rstrip("\n") + "\n"


def lessons_note_path(cfg: Config) -> str:
    return f"{cfg.notes_dir.strip('/')}/{LESSONS_NOTE}"


class _Scan:
    def __init__(self, cfg: Config, model: Model, report: ScanReport) -> None:
        self.cfg = cfg
        self.model = model
        self.report = report
        self.store = GitStore(cfg.root)
        tip = self.store.ref_target(f"refs/heads/{cfg.target_branch}")
        if tip is None:
            raise HippoError(
                f"the target branch {cfg.target_branch!r} has no commits", hint="commit the notes first"
            )
        self.path = lessons_note_path(cfg)
        text = (self.store.read_at(tip, self.path) or b"").decode("utf-8", "replace")
        self.note = NoteText(path=self.path, text=text, blob=self.store.blob_at(tip, self.path))
        self.reverted = tuple(reverted_texts(cfg.root, self.path, store=self.store))
        pack = find_pack(cfg.hippo_dir, PACK)
        self.passes = {kind: pack.get_pass(name) for kind, name in PASSES.items()}
        self.calls = 0

    def call(self, prompt: str) -> str:
        if self.calls >= self.cfg.dream.max_model_calls and not is_heuristic(self.model.argv):
            raise ModelRunError(f"the scan reached dream.max_model_calls = {self.cfg.dream.max_model_calls}")
        self.calls += 1
        return self.model(prompt).stdout

    def draft(self, c: Candidate) -> tuple[str, Lesson | None]:
        """(outcome, lesson): outcome is "inbox", "no_rule", "refused: …" or "rejected"."""
        p = self.passes[c.kind]
        reply = parse_lesson_reply(
            self.call(lesson_request(p, c.kind, list(c.turns), self.note, notes_dir=self.cfg.notes_dir)),
            {t.id for t in c.turns},
        )
        if not reply.lessons:
            return "no_rule", None
        item = reply.lessons[0]
        proposal = Proposal(
            op="append",
            path=self.path,
            new=entry_text(p, item.rule, item.evidence),
            evidence=tuple(item.evidence),
            rationale=item.rationale,
            pass_name=p.full_name,
        )
        shown = PassInput(notes=(self.note,), turns=c.turns, reverted={self.path: self.reverted})
        reasons = check(proposal, shown, root=self.cfg.root, notes_dir=self.cfg.notes_dir, ops=("append",))
        if reasons:
            return "refused: " + "; ".join(reasons), None
        by_id = shown.turns_by_id()
        verdict, reason, _ = parse_review_reply(
            self.call(review_request(p, proposal, self.note, [by_id[e] for e in item.evidence]))
        )
        if verdict != "confirm":
            return "rejected", None
        argv = tuple(self.model.argv)
        reviewer = Reviewer(
            persona=p.persona_name, persona_sha256=p.persona_sha256, argv=argv, heuristic=is_heuristic(argv)
        )
        lesson = Lesson(
            id=c.value[:12], value=c.value, kind=c.kind,  # type: ignore[arg-type]
            rule=item.rule, rationale=item.rationale, evidence=item.evidence,
            turns=[LessonTurn(id=t.id, kind=t.kind, text=excerpt(t.text, 500)) for t in c.turns],
            sessions=list(c.sessions), pass_name=p.full_name, note=self.path, entry=proposal.new,
            review=LessonReview(verdict="confirm", reason=reason, reviewer=reviewer, time=now_iso()),
            drafted_by=list(argv), created=now_iso(),
        )  # fmt: skip
        return "inbox", lesson


def scan(
    cfg: Config,
    *,
    env: Mapping[str, str],
    now: datetime,
    model: Model | None = None,
    max_candidates: int = MAX_CANDIDATES,
    everywhere: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> ScanReport:
    """Draft, check and review a rule for each new correction and repeated failure of this
    workspace (every workspace with `everywhere`); confirmed lessons go to the inbox."""
    from hippo_git.index import db
    from hippo_git.signals.rollup import ensure_rollup
    from hippo_git.signals.rollup_views import workspace_scope

    if model is None:
        run_id = f"lessons-{now:%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
        argv = default_model_command(cfg.model_command, env.get("PATH"))
        model = make_model(argv, cfg.home, run_id, env, cfg.dream.model_timeout_s)
    report = ScanReport(model=list(model.argv), heuristic=is_heuristic(model.argv))
    try:
        index = db.connect(cfg.index_path, readonly=True)
    except db.IndexMissingError:
        report.stopped = "no transcript index yet (run `git hippo ingest`)"
        return report
    rollup = ensure_rollup(cfg)
    try:
        candidates = find_candidates(rollup, index, None if everywhere else workspace_scope(cfg))
    finally:
        rollup.close()
        index.close()
    report.candidates = len(candidates)
    pack = find_pack(cfg.hippo_dir, PACK)
    drafters = {kind: drafter_key(model.argv, pack.get_pass(name)) for kind, name in PASSES.items()}
    known = known_values(cfg, drafters)
    todo = [c for c in candidates if c.value not in known]
    report.already_drafted = len(candidates) - len(todo)
    report.left = max(0, len(todo) - max_candidates)
    if not todo:
        return report
    run = _Scan(cfg, model, report)
    seen = scanned(cfg)
    try:
        batch = todo[:max_candidates]
        for n, c in enumerate(batch):
            if progress is not None:
                progress(n, len(batch))
            try:
                outcome, lesson = run.draft(c)
            except ModelRunError as exc:
                report.stopped = exc.message
                report.left += 1
                break
            report.drafted += 1
            if lesson is not None:
                save(cfg, lesson)
                report.inbox.append(lesson.id)
                continue
            if outcome == "no_rule":
                report.no_rule += 1
            elif outcome == "rejected":
                report.rejected += 1
            else:
                report.refused.append(outcome.removeprefix("refused: "))
            seen[c.value] = {
                "outcome": outcome.split(":", 1)[0],
                "kind": c.kind,
                "time": now_iso(),
                "drafter": drafters[c.kind],
            }
        if progress is not None:
            progress(len(batch), len(batch))
    finally:
        save_scanned(cfg, seen)
    return report


def scan_after_dream(cfg: Config, *, env: Mapping[str, str], now: datetime, model: Model) -> ScanReport:
    """The scan a finished dream runs with its own model: a failure here is reported in the scan's
    report (and the next scan retries), never a failure of the dream."""
    try:
        return scan(cfg, env=env, now=now, model=model)
    except HippoError as exc:
        report = ScanReport(model=list(model.argv), heuristic=is_heuristic(model.argv))
        report.stopped = exc.message
        return report
