"""`git hippo packs test NAME`: run a pack's fixtures and check the proposals they lead to.

A fixture (`tests/<case>.toml` in the pack) gives the notes, sessions and turns a pass is shown,
the model's reply (`model = "scripted"` with `reply`, or the built-in `"heuristic"`), optionally
the reviewer's reply, and the proposals expected after validation and review. The case goes
through the same code as a dream (prompt, reply parsing, validation, review prompt and verdict),
in a scratch folder, with no git and no index.
"""

from __future__ import annotations

import hashlib
import tempfile
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from hippo_git.dream import gather, heuristic
from hippo_git.dream.evidence import NoteText, SessionBrief, TurnRef
from hippo_git.dream.packs import Pack, PackError
from hippo_git.dream.protocol import parse_propose_reply, parse_review_reply, propose_request, review_request
from hippo_git.dream.runner import InProcessModel, heuristic_argv
from hippo_git.dream.validate import check


class _Note(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    text: str


class _Session(BaseModel):
    model_config = ConfigDict(extra="forbid")
    id: str
    task: str = ""
    notes_touched: list[str] = Field(default_factory=list)


class _Turn(BaseModel):
    model_config = ConfigDict(extra="forbid")
    session: str
    seq: int
    kind: str
    text: str
    error: bool = False
    tool: str | None = None


class _Expect(BaseModel):
    model_config = ConfigDict(extra="forbid")
    op: Literal["append", "replace"]
    path: str
    contains: list[str] = Field(default_factory=list)
    evidence: list[str] | None = None
    verdict: Literal["confirm", "reject"] | None = None


class _Refused(BaseModel):
    model_config = ConfigDict(extra="forbid")
    path: str
    reason: str


class Case(BaseModel):
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    description: str
    pass_name: str = Field(alias="pass")
    model: Literal["heuristic", "scripted"] = "heuristic"
    reply: str = ""
    review_reply: str | None = None
    notes_dir: str = "notes"
    notes: list[_Note] = Field(default_factory=list)
    sessions: list[_Session] = Field(default_factory=list)
    turns: list[_Turn] = Field(default_factory=list)
    reverted: dict[str, list[str]] = Field(default_factory=dict)
    expect: list[_Expect] = Field(default_factory=list)
    expect_refused: list[_Refused] = Field(default_factory=list)


@dataclass
class CaseResult:
    """The outcome of one pack fixture: whether the proposals it led to were as expected, and what was not."""

    name: str
    description: str
    ok: bool
    problems: list[str] = field(default_factory=list)
    proposals: list[dict[str, object]] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "case": self.name,
            "description": self.description,
            "ok": self.ok,
            "problems": self.problems,
            "proposals": self.proposals,
        }


def _blob_id(text: str) -> str:
    data = text.encode("utf-8")
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def load_case(path: Path) -> Case:
    try:
        return Case.model_validate(tomllib.loads(path.read_text(encoding="utf-8")))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PackError(f"{path}: {exc}") from None
    except ValidationError as exc:
        first = exc.errors()[0]
        key = ".".join(str(p) for p in first["loc"]) or "(file)"
        raise PackError(f"{path}: key {key!r}: {first['msg']}") from None


def _heuristic_answer(prompt: str) -> str:
    return heuristic.answer(prompt)[1]


def run_case(pack: Pack, name: str, case: Case) -> CaseResult:
    p = pack.get_pass(case.pass_name)
    result = CaseResult(name=name, description=case.description.strip(), ok=True)
    with tempfile.TemporaryDirectory(prefix="hippo-packtest-") as tmp:
        root = Path(tmp)
        notes: dict[str, NoteText] = {}
        touched = {
            n: [s.id for s in case.sessions if n in s.notes_touched]
            for s in case.sessions
            for n in s.notes_touched
        }
        for note in case.notes:
            target = root / note.path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(note.text, encoding="utf-8")
            if note.path in touched:
                notes[note.path] = NoteText(
                    note.path, note.text, _blob_id(note.text), tuple(touched[note.path])
                )
        ev = gather.ChunkEvidence(
            sessions=[SessionBrief(id=s.id, task=s.task) for s in case.sessions],
            touched=touched,
            turns=[
                TurnRef(t.session, t.seq, t.kind, t.text, tool=t.tool, is_error=t.error) for t in case.turns
            ],
        )
        shown = gather.pass_input(p, ev, notes, lambda path: case.reverted.get(path, []))
        proposer = InProcessModel(heuristic_argv(), _heuristic_answer) if case.model == "heuristic" else None
        stdout = (
            proposer(propose_request(p, shown, notes_dir=case.notes_dir)).stdout if proposer else case.reply
        )
        reply = parse_propose_reply(stdout, p.full_name)
        if reply.unparsed:
            result.problems.append(f"the reply was not read: {reply.unparsed}")
        found: list[tuple[str, str, str, list[str], str | None]] = []  # op, path, new, evidence, verdict
        refused: list[tuple[str, list[str]]] = []
        for proposal in reply.proposals:
            reasons = check(proposal, shown, root=root, notes_dir=case.notes_dir, ops=p.spec.ops)
            if reasons:
                refused.append((proposal.path, reasons))
                result.proposals.append({"path": proposal.path, "refused": reasons})
                continue
            shown_note = shown.note(proposal.path)
            assert shown_note is not None  # validation checked that it was shown
            turns = shown.turns_by_id()
            prompt = review_request(
                p, proposal, shown_note, [turns[e] for e in proposal.evidence if e in turns]
            )
            answer = case.review_reply if case.review_reply is not None else _heuristic_answer(prompt)
            verdict, why, _ = parse_review_reply(answer)
            found.append((proposal.op, proposal.path, proposal.new, list(proposal.evidence), verdict))
            result.proposals.append(
                {
                    "op": proposal.op,
                    "path": proposal.path,
                    "new": proposal.new,
                    "evidence": list(proposal.evidence),
                    "verdict": verdict,
                    "reason": why,
                }
            )
    result.problems += _compare(case, found, refused)
    result.ok = not result.problems
    return result


def _compare(
    case: Case, found: list[tuple[str, str, str, list[str], str | None]], refused: list[tuple[str, list[str]]]
) -> list[str]:
    problems = []
    left = list(found)
    for n, want in enumerate(case.expect, 1):
        match = next(
            (
                f
                for f in left
                if f[0] == want.op
                and f[1] == want.path
                and all(c in f[2] for c in want.contains)
                and (want.evidence is None or sorted(want.evidence) == sorted(f[3]))
                and (want.verdict is None or want.verdict == f[4])
            ),
            None,
        )
        if match is None:
            problems.append(f"expected proposal {n} ({want.op} {want.path}) was not made")
        else:
            left.remove(match)
    problems += [f"unexpected proposal: {f[0]} {f[1]}: {f[2].strip()[:80]!r}" for f in left]
    for want_r in case.expect_refused:
        if not any(
            path == want_r.path and any(want_r.reason in r for r in reasons) for path, reasons in refused
        ):
            problems.append(f"expected {want_r.path} to be refused with {want_r.reason!r}")
    return problems


def run_pack_tests(pack: Pack) -> list[CaseResult]:
    """Every fixture of the pack, in name order."""
    folder = pack.root / "tests"
    cases = sorted(folder.glob("*.toml")) if folder.is_dir() else []
    if not cases:
        raise PackError(f"{folder}: the pack has no test fixtures (tests/*.toml)")
    out = []
    for path in cases:
        case = load_case(path)
        out.append(run_case(pack, path.stem, case))
    return out
