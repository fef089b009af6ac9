"""The lessons inbox: `.hippo/inbox/<id>.json`, one confirmed lesson per file, until a person
keeps or dismisses it. `.hippo/inbox/` is per person (ignored by git, DESIGN §1).

A lesson file is a versioned record (other tools may read it). Its `value` — a hash of the
normalised correction or failure it came from — is what "drafted before" means: a scan skips
every value that has a lesson file (pending, kept or dismissed) or is listed in `scanned.json`
(drafts that produced nothing or that review rejected), so nothing is drafted twice.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hippo_git.config import Config
from hippo_git.dream.packs import Pass
from hippo_git.dream.records import Reviewer
from hippo_git.errors import HippoError, UsageError
from hippo_git.files import write_json_atomic

LESSON_VERSION = 1
INBOX = "inbox"
SCANNED = "scanned.json"
_ID = re.compile(r"^[0-9a-f]{4,64}$")


class LessonTurn(BaseModel):
    model_config = ConfigDict(extra="ignore")

    id: str
    kind: str
    text: str  # an excerpt of the (redacted) indexed turn


class LessonReview(BaseModel):
    model_config = ConfigDict(extra="ignore")

    verdict: Literal["confirm", "reject"]
    reason: str = ""
    reviewer: Reviewer
    time: str


class Lesson(BaseModel):
    """`.hippo/inbox/<id>.json`, version 1."""

    model_config = ConfigDict(extra="ignore")

    version: Literal[1] = 1
    id: str
    value: str  # sha256 of the normalised correction / failure: never drafted again
    kind: Literal["correction", "repeated_failure"]
    status: Literal["pending", "kept", "dismissed"] = "pending"
    rule: str
    rationale: str = ""
    evidence: list[str] = Field(min_length=1)
    turns: list[LessonTurn] = Field(default_factory=list)
    sessions: list[str] = Field(default_factory=list)
    pass_name: str
    note: str  # the note the reviewed entry was written for (repo-relative)
    entry: str  # the text the reviewer confirmed, appended to the note on keep
    review: LessonReview
    drafted_by: list[str] = Field(default_factory=list)
    created: str
    decided: str | None = None
    kept_in: str | None = None  # the note path it went into
    proposal: str | None = None
    commit: str | None = None


def inbox_dir(cfg: Config) -> Path:
    return cfg.hippo_dir / INBOX


def _path(cfg: Config, lesson_id: str) -> Path:
    return inbox_dir(cfg) / f"{lesson_id}.json"


def save(cfg: Config, lesson: Lesson) -> None:
    write_json_atomic(_path(cfg, lesson.id), lesson.model_dump(mode="json"))


def list_lessons(cfg: Config, *, pending_only: bool = False) -> list[Lesson]:
    """Every readable lesson, oldest first (files that do not parse are skipped)."""
    folder = inbox_dir(cfg)
    try:
        names = sorted(os.listdir(folder))
    except OSError:
        return []
    found = []
    for name in names:
        if not name.endswith(".json") or name == SCANNED or name.startswith("."):
            continue
        try:
            lesson = Lesson.model_validate_json((folder / name).read_text(encoding="utf-8"))
        except (OSError, ValidationError):
            continue
        if not pending_only or lesson.status == "pending":
            found.append(lesson)
    return sorted(found, key=lambda item: (item.created, item.id))


def find_lesson(cfg: Config, prefix: str) -> Lesson:
    """The one lesson whose id is or starts with `prefix`."""
    prefix = prefix.strip().lower()
    if not _ID.match(prefix):
        raise UsageError(f"{prefix!r} is not a lesson id", hint="`git hippo lessons inbox` lists them")
    matches = [item for item in list_lessons(cfg) if item.id.startswith(prefix)]
    if not matches:
        raise HippoError(
            f"no lesson {prefix} in {inbox_dir(cfg)}", hint="`git hippo lessons inbox --all` lists them"
        )
    if len(matches) > 1:
        raise UsageError(f"lesson id {prefix} is ambiguous", hint="type more of the id")
    return matches[0]


def pending(cfg: Config, prefix: str) -> Lesson:
    lesson = find_lesson(cfg, prefix)
    if lesson.status != "pending":
        raise HippoError(
            f"lesson {lesson.id} was already {lesson.status}",
            hint="`git hippo lessons inbox` lists the pending ones",
        )
    return lesson


def dismiss(cfg: Config, prefix: str) -> Lesson:
    """Drop a pending lesson; its value stays recorded so no scan drafts it again."""
    from hippo_git.git.objects import now_iso

    lesson = pending(cfg, prefix).model_copy(update={"status": "dismissed", "decided": now_iso()})
    save(cfg, lesson)
    return lesson


def scanned(cfg: Config) -> dict[str, dict[str, str]]:
    """value → {"outcome", "time", "kind"} of candidates drafted without reaching the inbox."""
    try:
        data = json.loads((inbox_dir(cfg) / SCANNED).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict):
        return {}
    return {str(k): v for k, v in data.items() if isinstance(v, dict)}


def save_scanned(cfg: Config, data: dict[str, dict[str, str]]) -> None:
    write_json_atomic(inbox_dir(cfg) / SCANNED, dict(sorted(data.items())))


def drafter_key(argv: Sequence[str], p: Pass) -> str:
    """Who drafted: the model command with the pass's prompt and persona. A "no rule" answer is a
    judgement of that drafter only, so a better model or prompt looks at the candidate again."""
    data = json.dumps([list(argv), p.prompt, p.persona_sha256]).encode("utf-8")
    return hashlib.sha256(data).hexdigest()[:16]


def known_values(cfg: Config, drafters: Mapping[str, str] | None = None) -> set[str]:
    """Every value drafted before: in the inbox (any status) or in scanned.json. With `drafters`
    (kind → drafter key), a "no rule" memo holds only for the drafter that gave it."""
    held = {
        value
        for value, memo in scanned(cfg).items()
        if drafters is None
        or memo.get("outcome") != "no_rule"
        or memo.get("drafter") == drafters.get(str(memo.get("kind")))
    }
    return {item.value for item in list_lessons(cfg)} | held
