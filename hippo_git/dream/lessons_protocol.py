"""The lesson-drafting request (`task: "lesson"`) and the reply hippo accepts.

A drafting run sees the turns a lesson rests on (a person's correction and the agent turn it
corrected, or the same command failing in several sessions) and the lessons note as it is, all
fenced as untrusted data, and answers `{"lessons": [{"rule", "evidence", "rationale"}]}`. The
review of a draft uses the dream's own review request and verdict parser (`protocol.py`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from pydantic import BaseModel, ConfigDict, ValidationError

from hippo_git.dream.evidence import NoteText, TurnRef
from hippo_git.dream.packs import Pass
from hippo_git.dream.prompt import Block, Section, render
from hippo_git.dream.protocol import reply_items

MAX_RULE = 600

LESSON_REPLY = """\
Print one JSON object and nothing else:

{"lessons": [
  {"rule": "<one or two sentences future agents should follow; quote the person's own words verbatim in double quotes>",
   "evidence": ["<turn id as labelled, e.g. 3f2c…#12>"], "rationale": "<one sentence: what went wrong>"}
]}

Rules hippo checks in code (a lesson that breaks one is dropped):
- `evidence` names only turn ids shown above; `rule` is at most 600 characters.
- Draft at most one lesson. If no lasting rule follows from these turns, print {"lessons": []}."""


class LessonItem(BaseModel):
    model_config = ConfigDict(extra="ignore")

    rule: str
    evidence: list[str]
    rationale: str = ""


@dataclass
class LessonReply:
    """A model's parsed lesson reply: the lessons read, the items rejected, or why none could be read."""

    lessons: list[LessonItem] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    unparsed: str | None = None


def lesson_request(p: Pass, kind: str, turns: list[TurnRef], note: NoteText, *, notes_dir: str) -> str:
    """The request of a drafting run for one candidate lesson. The header names the turns hippo's
    rules found to be a person's correction (`corrections`), so offline models can quote them."""
    sections = [
        Section(
            "The lessons note",
            "The note kept lessons go into, as it is now. Do not draft a rule it already states.",
            (Block(note.meta(), note.text),),
        ),
        Section(
            "Evidence turns",
            "What happened, turn by turn. Cite turns by their `id`.",
            tuple(Block(t.meta(), t.text) for t in turns),
        ),
    ]
    header = {
        "task": "lesson",
        "pass": p.full_name,
        "kind": kind,
        "heuristic": list(p.spec.heuristic),
        "corrections": [t.id for t in turns if kind == "correction" and t.kind == "prompt"],
        "notes_dir": notes_dir,
    }
    text, _ = render(header, p.prompt, sections, LESSON_REPLY)
    return text


def parse_lesson_reply(stdout: str, shown: set[str]) -> LessonReply:
    """The lessons of a drafting run's reply; those citing turns not shown, or empty, are dropped."""
    out = LessonReply()
    items, out.unparsed = reply_items(stdout, "lessons")
    if items is None:
        return out
    for n, item in enumerate(items, 1):
        try:
            lesson = LessonItem.model_validate(item)
        except ValidationError as exc:
            first = exc.errors()[0]
            out.errors.append(
                f"lesson {n}: {'.'.join(str(x) for x in first['loc']) or 'item'}: {first['msg']}"
            )
            continue
        rule = lesson.rule.strip()
        unknown = [e for e in lesson.evidence if e not in shown]
        if not rule or "\0" in rule or len(rule) > MAX_RULE:
            out.errors.append(
                f"lesson {n}: the rule is empty, holds NUL characters or is longer than {MAX_RULE}"
            )
        elif not lesson.evidence or unknown:
            out.errors.append(f"lesson {n}: evidence {unknown[:1] or '[]'} was not in the prompt")
        else:
            out.lessons.append(
                LessonItem(rule=rule, evidence=lesson.evidence, rationale=lesson.rationale[:1000])
            )
    return out
