"""The contract records of dreaming: proposals, receipts, and proposal-commit trailers (DESIGN §3).

These are files/git objects other people's tools read, so they are versioned: a change of shape
bumps `RECEIPT_VERSION` and the readers keep accepting older lines.
"""

from __future__ import annotations

import functools
import hashlib
import json
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

RECEIPTS_REF = "refs/notes/hippo/receipts"
PROPOSALS_PREFIX = "refs/heads/hippo/proposals/"
RECEIPT_VERSION = 1
NULL_BLOB = "0" * 40  # the "before" of a note that did not exist

EVIDENCE_RE = re.compile(r"^[^#\s]+#\d+$")  # "<session id>#<turn seq>"


class Proposal(BaseModel):
    """One note change proposed by a model. `path` is relative to the repository root."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    op: Literal["replace", "append"]
    path: str = Field(min_length=1, max_length=400)
    old: str | None = None  # replace: the exact text to replace (must occur once in the note)
    new: str = Field(max_length=200_000)
    evidence: tuple[str, ...] = Field(min_length=1)
    rationale: str = Field(default="", max_length=4000)
    pass_name: str = ""  # "<pack>/<pass>", set by hippo, never by the model

    def canonical(self) -> str:
        body = {
            "op": self.op,
            "path": self.path,
            "old": self.old,
            "new": self.new,
            "evidence": list(self.evidence),
            "pass": self.pass_name,
        }
        return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)

    @property
    def id(self) -> str:
        return hashlib.sha256(self.canonical().encode("utf-8")).hexdigest()


class Reviewer(BaseModel):
    model_config = ConfigDict(extra="ignore", frozen=True)

    persona: str  # persona name, e.g. "core/skeptic"
    persona_sha256: str
    argv: tuple[str, ...]
    heuristic: bool = False  # the built-in offline model, labelled as such


class Receipt(BaseModel):
    """One line of the git note on a proposal (or revert) commit in refs/notes/hippo/receipts."""

    model_config = ConfigDict(extra="ignore", frozen=True)

    version: int = RECEIPT_VERSION
    kind: Literal["review", "revert"]
    proposal: str  # proposal id (sha256)
    commit: str  # the proposal commit (review) or the revert commit (revert)
    verdict: Literal["confirm", "reject"]
    path: str
    before: str  # blob id of the note before the change (NULL_BLOB when new)
    after: str  # blob id of the note after the change
    patch_id: str  # `git patch-id --stable` of the proposal commit
    reviewer: Reviewer
    time: str  # ISO-8601 UTC
    reason: str = ""
    run: str = ""

    def line(self) -> str:
        return json.dumps(
            self.model_dump(mode="json"), sort_keys=True, separators=(",", ":"), ensure_ascii=False
        )


def parse_receipts(note_text: str) -> list[Receipt]:
    """Every well-formed receipt line of a note; other lines (a teammate's newer version...) are skipped."""
    out: list[Receipt] = []
    for line in note_text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            out.append(Receipt.model_validate_json(line))
        except ValidationError:
            continue
    return out


# --- trailers -------------------------------------------------------------------------------------

TRAILER_KEYS = ("Hippo-Proposal", "Hippo-Pass", "Hippo-Evidence", "Hippo-Before", "Hippo-Run")
# Optional: a confirmed proposal replayed onto a newer target tip names the commit it came from.
OPTIONAL_TRAILER_KEYS = ("Hippo-Replayed-From",)
_TRAILER_RE = re.compile(r"^(Hippo-[A-Za-z]+(?:-[A-Za-z]+)*): (.+)$", re.M)
_HEX40 = re.compile(r"^[0-9a-f]{40}$")
_HEX64 = re.compile(r"^[0-9a-f]{64}$")


class Trailers(BaseModel):
    model_config = ConfigDict(frozen=True)

    proposal: str
    pass_name: str
    evidence: tuple[str, ...]
    before: str
    run: str
    replayed_from: str | None = None


def commit_message(proposal: Proposal, before: str, run_id: str) -> str:
    """Subject, the rationale quoted as untrusted text, then the trailers."""
    subject = f"hippo: {proposal.op} {proposal.path} ({proposal.pass_name})"
    quoted = "\n".join("> " + line for line in (proposal.rationale or "(no rationale given)").splitlines())
    trailers = [
        f"Hippo-Proposal: {proposal.id}",
        f"Hippo-Pass: {proposal.pass_name}",
        f"Hippo-Evidence: {', '.join(proposal.evidence)}",
        f"Hippo-Before: {before}",
        f"Hippo-Run: {run_id}",
    ]
    return (
        f"{subject}\n\nRationale from the model (untrusted text):\n{quoted}\n\n" + "\n".join(trailers) + "\n"
    )


def replayed_message(original: str, replayed_from: str) -> str:
    """The message of a proposal commit replayed onto a newer tip: the original plus one trailer
    naming the commit it was copied from (replacing any such trailer the original had)."""
    kept = [line for line in original.rstrip("\n").split("\n") if not line.startswith("Hippo-Replayed-From:")]
    return "\n".join(kept) + f"\nHippo-Replayed-From: {replayed_from}\n"


@functools.lru_cache(maxsize=4096)  # apply reads every commit of a run again on each chunk
def parse_trailers(message: str) -> Trailers | None:
    """The trailers of a proposal commit, or None when any is missing or malformed."""
    last_para = message.rstrip().rsplit("\n\n", 1)[-1]
    found: dict[str, str] = {}
    for key, value in _TRAILER_RE.findall(last_para):
        if key in found:
            return None  # a repeated trailer is forged or broken
        found[key] = value.strip()
    if not set(TRAILER_KEYS) <= set(found) <= set(TRAILER_KEYS) | set(OPTIONAL_TRAILER_KEYS):
        return None
    replayed = found.get("Hippo-Replayed-From")
    if replayed is not None and not _HEX40.match(replayed):
        return None
    evidence = tuple(e.strip() for e in found["Hippo-Evidence"].split(","))
    if not _HEX64.match(found["Hippo-Proposal"]) or not _HEX40.match(found["Hippo-Before"]):
        return None
    if not evidence or not all(EVIDENCE_RE.match(e) for e in evidence):
        return None
    return Trailers(
        proposal=found["Hippo-Proposal"],
        pass_name=found["Hippo-Pass"],
        evidence=evidence,
        before=found["Hippo-Before"],
        run=found["Hippo-Run"],
        replayed_from=replayed,
    )
