"""Issue 12: the redactor that guards the index guards the notes too. A dream proposal whose new
text holds a secret is refused by validation (the report names the kind, never the value), and
the pre-commit check blocks a staged note holding one, of the new shapes as of the old."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hippo_git.dream.evidence import NoteText, PassInput, TurnRef
from hippo_git.dream.records import Proposal
from hippo_git.dream.validate import check, secret_problems
from hippo_git.team.setup import init_workspace
from tests.conftest import git
from tests.secret_cases import shape_cases, vendor_cases

NOTE = "# Deploy\n\nDeploy with make deploy.\n"
# (name of a case in tests/secret_cases.py, the kind the report names)
PLANTED = [("sql identified by", "password"), ("sendgrid", "sendgrid_key"), ("jwk private d", "secret")]


def _case_text(name: str) -> tuple[str, str]:
    case = next(c for c in shape_cases() + vendor_cases() if c.name == name)
    return case.text, case.secrets[0]


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "deploy.md").write_text(NOTE)
    (tmp_path / ".hippo").mkdir()
    (tmp_path / ".hippo" / "hippo.toml").write_text("")
    return tmp_path


def _shown() -> PassInput:
    return PassInput(
        notes=(NoteText("notes/deploy.md", NOTE, "0" * 40, ("s1",)),),
        turns=(TurnRef("s1", 0, "prompt", "We deploy with make deploy now."),),
        reverted={},
    )


@pytest.mark.parametrize(("name", "kind"), PLANTED)
def test_a_proposal_holding_a_secret_is_refused_naming_the_kind(root: Path, name: str, kind: str) -> None:
    text, secret = _case_text(name)
    proposal = Proposal(
        op="append", path="notes/deploy.md", new="- Deploy:\n" + text + "\n", evidence=("s1#0",)
    )
    reasons = check(proposal, _shown(), root=root, notes_dir="notes")
    assert f"the new text holds what looks like a secret ({kind})" in reasons, reasons
    assert all(secret not in r for r in reasons)
    clean = Proposal(
        op="append", path="notes/deploy.md", new="- Deploy with make deploy.\n", evidence=("s1#0",)
    )
    assert check(clean, _shown(), root=root, notes_dir="notes") == []


def test_an_author_email_is_no_reason_to_refuse() -> None:
    assert secret_problems("- Asked ada.lovelace@lovelace.dev about it.\n") == []


@pytest.mark.parametrize(("name", "kind"), PLANTED)
def test_the_pre_commit_check_blocks_a_staged_note_with_a_secret(repo: Path, name: str, kind: str) -> None:
    init_workspace(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up")
    text, secret = _case_text(name)
    (repo / "notes" / "deploy.md").write_text("# Deploy\n\n" + text + "\n")
    git(repo, "add", "notes/deploy.md")
    proc = subprocess.run(["git", "commit", "-q", "-m", "change"], cwd=repo, capture_output=True, text=True)
    assert proc.returncode == 1
    assert f"notes/deploy.md:3: looks like a secret ({kind})" in proc.stderr, proc.stderr
    assert secret not in proc.stderr + proc.stdout
