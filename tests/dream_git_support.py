"""Helpers for the git-side dream tests: a notes repo, scripted proposals and reviews."""

from __future__ import annotations

import subprocess
from collections.abc import Sequence
from pathlib import Path
from typing import Literal

from hippo_git.dream.proposals import ProposalBranch, ProposalCommit
from hippo_git.dream.receipts import write_receipt
from hippo_git.dream.records import Proposal, Reviewer
from hippo_git.git.objects import GitStore
from tests.conftest import git, make_repo

REVIEWER = Reviewer(persona="core/skeptic", persona_sha256="a" * 64, argv=("scripted-model",))

NOTES = {
    "notes/index.md": "# Index\n\nSee [[build]] and [[deploy]].\n",
    "notes/build.md": "# Build\n\nRun `make` to build.\nTests run with `make test`.\n",
    "notes/deploy.md": "# Deploy\n\nDeploy from the main branch.\n",
}


def notes_repo(path: Path) -> Path:
    return make_repo(path, files=dict(NOTES))


def prop(
    path: str, new: str, *, op: Literal["append", "replace"] = "append", old: str | None = None, turn: int = 1
) -> Proposal:
    return Proposal(
        op=op,
        path=path,
        old=old,
        new=new,
        evidence=(f"sess-1#{turn}",),
        rationale=f"seen in turn {turn}",
        pass_name="core/facts",
    )


THREE = [
    prop("notes/build.md", "- `make lint` runs ruff.", turn=1),
    prop("notes/deploy.md", "- Deploys need the release tag.", turn=2),
    prop("notes/build.md", "Run `make -j4` to build.", op="replace", old="Run `make` to build.", turn=3),
]


def propose(
    root: Path, run: str, proposals: Sequence[Proposal], store: GitStore | None = None
) -> list[ProposalCommit]:
    store = store or GitStore(root)
    tip = store.ref_target("refs/heads/main")
    branch = ProposalBranch(root, run, base=tip, store=store)
    return [branch.commit(p) for p in proposals]


def review(
    root: Path, pcs: Sequence[ProposalCommit], verdicts: Sequence[Literal["confirm", "reject"]] | None = None
) -> None:
    for pc, verdict in zip(pcs, verdicts or ["confirm"] * len(pcs)):
        write_receipt(root, pc.receipt(verdict, REVIEWER, reason=f"{verdict}ed by script"))


def receipt_lines(root: Path) -> list[str]:
    """Every line of every note under refs/notes/hippo/receipts (duplicates kept)."""
    listing = git(root, "notes", "--ref=hippo/receipts", "list")
    lines: list[str] = []
    for row in listing.splitlines():
        blob = row.split()[0]
        lines += [line for line in git(root, "cat-file", "-p", blob).splitlines() if line.strip()]
    return lines


def fsck_clean(root: Path) -> None:
    proc = subprocess.run(
        ["git", "fsck", "--strict", "--no-dangling"], cwd=root, capture_output=True, text=True
    )
    assert proc.returncode == 0 and not proc.stdout.strip(), proc.stdout + proc.stderr


def log_subjects(root: Path, rev: str = "main") -> list[str]:
    return git(root, "log", "--format=%s", rev).splitlines()
