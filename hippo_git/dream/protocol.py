"""The model protocol: the requests hippo writes on a model's stdin and the replies it accepts.

A proposing run gets `task: "propose"` and answers `{"proposals": [...]}`; a reviewing run gets
`task: "review"` and answers exactly `{"verdict": "confirm" | "reject", "reason": "..."}`.
docs/model-protocol.md describes both for people who plug in their own model command. The reply
format text lives here in code, not in packs, so no pack can change what hippo accepts.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, ValidationError

from hippo_git.dream.evidence import NoteText, PassInput, TurnRef
from hippo_git.dream.packs import Pass
from hippo_git.dream.prompt import Block, Section, render
from hippo_git.dream.records import Proposal

PROPOSE_REPLY = """\
Print one JSON object and nothing else:

{"proposals": [
  {"op": "append", "path": "<a note path exactly as labelled>", "new": "<text to add at the end of the note>",
   "evidence": ["<turn id as labelled, e.g. 3f2c…#12>"], "rationale": "<one or two sentences>"},
  {"op": "replace", "path": "<note path>", "old": "<text copied exactly from the note, occurring once>",
   "new": "<replacement that quotes its evidence verbatim in double quotes>", "evidence": ["<turn id>"],
   "rationale": "<why>"}
]}

Rules hippo checks in code (a proposal that breaks one is dropped):
- `path` is one of the notes shown above; `evidence` names only turn ids shown above.
- A `replace` names `old` text that occurs exactly once in the note, and `new` quotes its evidence.
- A change is at most the note's `max_change_bytes` (see its label).
- Never bring back text listed under "Reverted by a human".
If nothing should change, print {"proposals": []}."""

REVIEW_REPLY = """\
Print exactly one JSON object and nothing else, either
{"verdict": "confirm", "reason": "<one sentence>"}
or
{"verdict": "reject", "reason": "<one sentence>"}
Anything else (no JSON, other words, other keys, a code fence) counts as a rejection."""

REVIEW_TASK = """\
Review ONE proposed change to a note. You see the note as it is now, the change, and the transcript
turns given as its evidence. You do not see why it was proposed. Confirm only when the evidence shown
supports the change, the change is correct and useful for future readers of the note, and the note
does not already say it. When in doubt, reject."""


def _header_pass(p: Pass) -> dict[str, Any]:
    return {
        "pass": p.full_name,
        "ops": list(p.spec.ops),
        "max_proposals": p.spec.max_proposals,
        "heuristic": list(p.spec.heuristic),
        "template": p.template or "",
    }


def propose_request(p: Pass, inp: PassInput, *, notes_dir: str) -> str:
    """The request of a proposing run for one pass over one chunk."""
    reads = set(p.spec.reads)
    about = (
        f"New notes (under `{notes_dir}/`) for topics that recur in this period's sessions, which touched "
        "no note: none exists yet, each is empty. Write a note's first content with one `append` (a "
        "`# Title` line, then entries), only when the evidence says something worth keeping about it."
        if "new_notes" in reads
        else f"The notes (under `{notes_dir}/`) that this period's sessions touched or cited, as they are now. "
        "Propose changes only to these."
    )
    sections = [Section("Notes", about, tuple(Block(n.meta(), n.text) for n in inp.notes))]
    if "sessions" in reads:
        sections.append(
            Section(
                "Sessions",
                "The agent sessions of this period.",
                tuple(Block(s.meta(), s.text()) for s in inp.sessions),
            )
        )
    if "human_confirmed" in reads:
        sections.append(
            Section(
                "Reverted by a human",
                "A person removed these texts from the notes after an earlier dream. Do not propose them again.",
                tuple(
                    Block({"type": "reverted", "path": path}, t)
                    for path, texts in sorted(inp.reverted.items())
                    for t in texts
                ),
            )
        )
    sections.append(
        Section(
            "Evidence turns",
            "What happened in those sessions, turn by turn. Cite turns by their `id`."
            + (
                f" ({inp.cut_turns} later turns were left out to fit the input budget.)"
                if inp.cut_turns
                else ""
            ),
            tuple(Block(t.meta(), t.text) for t in inp.turns),
        )
    )
    instructions = p.prompt
    if p.template:
        instructions += "\n\nShape of an appended entry (placeholders in braces):\n\n" + p.template.strip()
    allowed = " and ".join(f"`{op}`" for op in p.spec.ops)
    instructions += f"\n\nThis pass may use {allowed}; propose at most {p.spec.max_proposals} changes."
    text, _ = render(
        {"task": "propose", **_header_pass(p), "notes_dir": notes_dir}, instructions, sections, PROPOSE_REPLY
    )
    return text


def review_request(p: Pass, proposal: Proposal, note: NoteText, turns: list[TurnRef]) -> str:
    """The request of a reviewing run: the persona, the note, the change and its evidence only."""
    change = [
        Block({"type": "change", "op": proposal.op, "path": proposal.path, "part": "new"}, proposal.new)
    ]
    if proposal.op == "replace":
        change.insert(
            0,
            Block(
                {"type": "change", "op": proposal.op, "path": proposal.path, "part": "old"},
                proposal.old or "",
            ),
        )
    sections = [
        Section("The note", "The note as it is before the change.", (Block(note.meta(), note.text),)),
        Section(
            "The change",
            "append: `new` is added at the end of the note. replace: `old` is replaced by `new`.",
            tuple(change),
        ),
        Section(
            "Evidence turns",
            "The transcript turns the change cites.",
            tuple(Block(t.meta(), t.text) for t in turns),
        ),
    ]
    instructions = p.persona.strip() + "\n\n" + REVIEW_TASK
    header = {
        "task": "review",
        "pass": p.full_name,
        "persona": p.persona_name,
        "op": proposal.op,
        "path": proposal.path,
    }
    text, _ = render(header, instructions, sections, REVIEW_REPLY)
    return text


# --- replies ------------------------------------------------------------------------------------


class ProposalItem(BaseModel):
    """One proposal as a model writes it; hippo adds the pass name."""

    model_config = ConfigDict(extra="ignore")

    op: Literal["replace", "append"]
    path: str
    old: str | None = None
    new: str
    evidence: list[str]
    rationale: str = ""


class ReviewReply(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    verdict: Literal["confirm", "reject"]
    reason: str = ""


@dataclass
class ProposeReply:
    """A model's parsed propose reply: the proposals read, the items rejected, or why none could be read."""

    proposals: list[Proposal] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)  # items that were not proposals, with why
    unparsed: str | None = None  # why the whole reply was not read (None when it was)


def unwrap(stdout: str) -> str:
    """The model's text: `claude -p --output-format json` wraps it in {"type": "result", "result": ...}."""
    text = stdout.strip()
    if text.startswith("{") and '"result"' in text:
        try:
            data = json.loads(text)
        except ValueError:
            return text
        if isinstance(data, dict) and data.get("type") == "result" and isinstance(data.get("result"), str):
            return str(data["result"]).strip()
    return text


def find_json(text: str) -> Any:
    """The JSON value in a model's text: all of it, a ```json fence, or the outermost {...}."""
    try:
        return json.loads(text)
    except ValueError:
        pass
    fenced = re.search(r"```(?:json)?\s*\n(.*?)\n```", text, re.S)
    candidates = [fenced.group(1)] if fenced else []
    start, end = text.find("{"), text.rfind("}")
    if 0 <= start < end:
        candidates.append(text[start : end + 1])
    for candidate in candidates:
        try:
            return json.loads(candidate)
        except ValueError:
            continue
    raise ValueError("no JSON object found")


def reply_items(stdout: str, key: str, *, bare_list: bool = False) -> tuple[list[Any] | None, str | None]:
    """The list under `key` in a reply's JSON object (or the bare list itself, when allowed);
    (None, why not) when the reply has no such list."""
    try:
        data = find_json(unwrap(stdout))
    except ValueError:
        return None, "the reply holds no JSON object" if stdout.strip() else "the reply is empty"
    items = data.get(key) if isinstance(data, dict) else (data if bare_list else None)
    if not isinstance(items, list):
        return None, f'the reply is JSON but has no "{key}" list'
    return items, None


def parse_propose_reply(stdout: str, pass_name: str) -> ProposeReply:
    """Proposals from a proposing run's stdout. Prose around the JSON and unknown keys are ignored."""
    out = ProposeReply()
    items, out.unparsed = reply_items(stdout, "proposals", bare_list=True)
    if items is None:
        return out
    for n, item in enumerate(items, 1):
        try:
            got = ProposalItem.model_validate(item)
            out.proposals.append(
                Proposal(
                    op=got.op,
                    path=got.path,
                    old=got.old,  # kept on appends too, so validation refuses them
                    new=got.new,
                    evidence=tuple(got.evidence),
                    rationale=got.rationale[:4000],
                    pass_name=pass_name,
                )
            )
        except ValidationError as exc:
            first = exc.errors()[0]
            key = ".".join(str(x) for x in first["loc"]) or "item"
            out.errors.append(f"proposal {n}: {key}: {first['msg']}")
    return out


def parse_review_reply(stdout: str) -> tuple[Literal["confirm", "reject"], str, bool]:
    """(verdict, reason, well_formed). Only the exact JSON object confirms; anything else rejects."""
    text = unwrap(stdout)
    try:
        reply = ReviewReply.model_validate_json(text)
    except ValidationError:
        shown = text[:80].replace("\n", " ") or "(empty)"
        return "reject", f"the reviewer's reply was not the required JSON verdict: {shown!r}", False
    return reply.verdict, reply.reason[:1000], True
