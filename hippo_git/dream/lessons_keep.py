"""`git hippo lessons keep ID [--note NAME]`: a person keeps a lesson; it goes into a note exactly
the way a dream change does — a proposal commit on its own `hippo/proposals/lessons-…` run, the
review receipt from the review that confirmed the lesson at scan time, the apply gate and the
compare-and-swap fast-forward — so it carries a receipt and `git hippo revert` undoes it.
"""

from __future__ import annotations

import secrets
from datetime import UTC, datetime
from typing import Any

from hippo_git.config import Config
from hippo_git.dream.apply import confirm, fast_forward
from hippo_git.dream.lessons_inbox import Lesson, pending, save
from hippo_git.dream.proposals import commit_proposal, proposals_ref
from hippo_git.dream.quotes import quotes_in
from hippo_git.dream.receipts import write_receipt
from hippo_git.dream.records import Proposal
from hippo_git.dream.validate import path_problems
from hippo_git.errors import HippoError, UsageError
from hippo_git.git.objects import GitStore, now_iso

NEW_NOTE_HEADING = "# Lessons\n\nRules learnt from corrections and repeated failures in agent sessions.\n\n"


def note_path(cfg: Config, name: str | None, default: str) -> str:
    """`--note NAME` as a repo-relative note path: `ci` → `notes/ci.md`; `notes/x.md` stays."""
    if not name:
        return default
    notes_dir = cfg.notes_dir.strip("/")
    path = name.strip().removeprefix("./")
    if not path.startswith(notes_dir + "/"):
        path = f"{notes_dir}/{path}"
    if not path.endswith(".md"):
        path += ".md"
    problems = path_problems(path, cfg.root, notes_dir)
    if problems:
        raise UsageError(
            f"--note {name!r}: {problems[0]}", hint=f"name a note under {notes_dir}/, e.g. --note lessons"
        )
    return path


def lesson_proposal(lesson: Lesson, path: str, current: str | None) -> Proposal:
    """The append that writes the lesson's reviewed entry at the end of the note (a new note gets
    a heading first)."""
    new = lesson.entry if current is not None else NEW_NOTE_HEADING + lesson.entry
    rationale = f"{lesson.rationale} (a lesson kept by a person from the lessons inbox: {lesson.id})".strip()
    return Proposal(
        op="append",
        path=path,
        new=new,
        evidence=tuple(lesson.evidence),
        rationale=rationale,
        pass_name=lesson.pass_name,
    )


def keep(cfg: Config, lesson_id: str, *, note: str | None = None) -> dict[str, Any]:
    """Write a pending lesson into a note through proposal → receipt → gate → fast-forward."""
    lesson = pending(cfg, lesson_id)
    path = note_path(cfg, note, lesson.note)
    store = GitStore(cfg.root)
    tip = store.ref_target(f"refs/heads/{cfg.target_branch}")
    if tip is None:
        raise HippoError(
            f"the target branch {cfg.target_branch!r} has no commits", hint="commit the notes first"
        )
    data = store.read_at(tip, path)
    current = None if data is None else data.decode("utf-8", "replace")
    said = [q for q in quotes_in(lesson.entry) if current and q in current]
    if said:
        raise HippoError(
            f"{path} already says this lesson", hint=f"dismiss it: `git hippo lessons dismiss {lesson.id}`"
        )
    proposal = lesson_proposal(lesson, path, current)
    run_id = f"lessons-{datetime.now(UTC):%Y%m%d-%H%M%S}-{secrets.token_hex(2)}"
    pc = commit_proposal(cfg.root, proposals_ref(run_id), tip, proposal, run_id)
    review = lesson.review
    receipt = pc.receipt(
        "confirm", review.reviewer, reason=review.reason or "confirmed when the lesson was drafted"
    )
    write_receipt(cfg.root, receipt, store=store)
    gate = confirm(cfg.root, cfg.target_branch, [pc.commit], store=store)
    if gate.refused:
        raise HippoError(
            f"the lesson did not pass the apply gate: {gate.refused[0].reason}", hint="run it again"
        )
    result = fast_forward(
        cfg.root, cfg.target_branch, gate.confirmed, store=store, retry=f"git hippo lessons keep {lesson.id}"
    )
    landed = result.applied[0].commit if result.applied else pc.commit
    save(
        cfg,
        lesson.model_copy(
            update={
                "status": "kept",
                "decided": now_iso(),
                "kept_in": path,
                "proposal": proposal.id,
                "commit": landed,
            }
        ),
    )
    return {
        "lesson": lesson.id,
        "path": path,
        "proposal": proposal.id,
        "commit": landed,
        "run": run_id,
        "target": cfg.target_branch,
        "worktree": result.worktree,
    }
