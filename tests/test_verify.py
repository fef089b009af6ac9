"""`git hippo verify`: every tampering of a dream pull request fails with its reason."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hippo_git.dream.records import NULL_BLOB, Proposal, Receipt, Reviewer, commit_message
from hippo_git.git.objects import GitStore
from hippo_git.team.setup import init_workspace
from hippo_git.team.verify import verify
from tests.conftest import git, make_repo, run_cli


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_repo(
        tmp_path / "ws", files={"notes/build.md": "# Build\n\nRun make.\n", "src/app.py": "x = 1\n"}
    )
    init_workspace(root, install_hooks=False)
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "hippo set up")
    git(root, "checkout", "-q", "-b", "hippo/proposals/r1")
    return root


def _blob(root: Path, rev: str, path: str) -> str:
    return git(root, "rev-parse", "-q", "--verify", f"{rev}:{path}", check=False) or NULL_BLOB


def propose(
    root: Path,
    path: str = "notes/build.md",
    text: str = "\nUse `make -j4`.\n",
    *,
    verdict: str = "confirm",
    extra: dict[str, str] | None = None,
    receipt: bool = True,
    before_override: str | None = None,
) -> tuple[str, Proposal]:
    before = _blob(root, "HEAD", path)
    target = root / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text((target.read_text() if target.exists() else "") + text)
    for name, content in (extra or {}).items():
        (root / name).write_text(content)
    git(root, "add", "-A")
    proposal = Proposal(
        op="append", path=path, new=text, evidence=("s1#3",), rationale="seen in s1", pass_name="core/facts"
    )
    (root / ".git" / "MSG").write_text(commit_message(proposal, before, "r1"))
    git(root, "commit", "-q", "-F", ".git/MSG")
    sha = git(root, "rev-parse", "HEAD")
    if receipt:
        write_receipt(
            root,
            sha,
            proposal,
            verdict=verdict,
            before=before_override or before,
            after=_blob(root, sha, path),
        )
    return sha, proposal


def write_receipt(
    root: Path,
    sha: str,
    proposal: Proposal,
    *,
    verdict: str,
    before: str,
    after: str,
    patch_id: str | None = None,
) -> None:
    line = Receipt(
        kind="review",
        proposal=proposal.id,
        commit=sha,
        verdict=verdict,  # type: ignore[arg-type]
        path=proposal.path,
        before=before,
        after=after,
        patch_id=patch_id or GitStore(root).patch_id(sha),
        reviewer=Reviewer(persona="core/skeptic", persona_sha256="0" * 64, argv=("scripted",)),
        time="2026-01-02T03:04:05Z",
        reason="supported by s1#3" if verdict == "confirm" else "not in the evidence",
        run="r1",
    ).line()
    git(root, "notes", "--ref=hippo/receipts", "append", "-m", line, sha)


def _reasons(root: Path) -> list[str]:
    return [c.reason for c in verify(root).checks]


def test_a_clean_dream_branch_verifies(ws: Path) -> None:
    propose(ws)
    propose(ws, "notes/new.md", "# New\n\nA fact.\n")
    report = verify(ws)
    assert report.ok and [c.reason for c in report.checks] == ["confirmed by core/skeptic"] * 2
    proc = run_cli(["verify", "--json"], cwd=ws)
    assert proc.returncode == 0 and json.loads(proc.stdout)["ok"] is True


def test_a_second_file_fails(ws: Path) -> None:
    propose(ws, extra={"src/app.py": "x = 2\n"})
    assert _reasons(ws) == ["changes 2 files; a proposal changes exactly one note"]


def test_a_non_note_file_fails(ws: Path) -> None:
    propose(ws, "src/app.py", "y = 3\n")
    assert _reasons(ws) == ["changes src/app.py, which is not a note under notes/"]
    git(ws, "reset", "-q", "--hard", "HEAD~1")
    propose(ws, "notes/.hidden.md", "z\n")
    assert _reasons(ws) == ["changes notes/.hidden.md, which is not a note under notes/"]


def test_a_missing_receipt_fails(ws: Path) -> None:
    propose(ws, receipt=False)
    [reason] = _reasons(ws)
    assert reason.startswith("no receipt for proposal") and "git hippo sync" in reason


def test_a_reject_receipt_fails(ws: Path) -> None:
    propose(ws, verdict="reject")
    assert _reasons(ws) == ["the review rejected it: not in the evidence"]


def test_a_wrong_before_blob_fails(ws: Path) -> None:
    propose(ws, before_override="1" * 40)
    assert _reasons(ws) == ["the note's before blob differs from the receipt's"]


def test_content_edited_after_review_fails(ws: Path) -> None:
    propose(ws)
    (ws / "notes/build.md").write_text((ws / "notes/build.md").read_text() + "sneaky line\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "--amend", "--no-edit")
    assert _reasons(ws) == ["the note's content differs from what was reviewed (edited after review?)"]


def test_forged_trailers_fail(ws: Path) -> None:
    _, proposal = propose(ws)
    # A hand-made commit reusing a real proposal id: the receipt's blobs do not match it.
    (ws / "notes/build.md").write_text("# Build\n\nRun rm -rf /.\n")
    git(ws, "add", "-A")
    before = _blob(ws, "HEAD", "notes/build.md")
    (ws / ".git/MSG").write_text(commit_message(proposal, before, "r1"))
    git(ws, "commit", "-q", "-F", ".git/MSG")
    assert _reasons(ws)[1] == "the note's before blob differs from the receipt's"
    # Malformed trailers are not a proposal commit at all.
    (ws / "notes/build.md").write_text("# Build\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "-m", "hippo: append notes/build.md\n\nHippo-Proposal: abc\nHippo-Run: r1")
    assert _reasons(ws)[2] == "not a proposal commit: Hippo-* trailers missing or malformed"
    proc = run_cli(["verify"], cwd=ws)
    assert proc.returncode == 1
    assert proc.stdout.count("FAIL") == 2 and proc.stdout.count("ok ") == 1


def test_rebase_and_merge_rewrites_still_verify(ws: Path) -> None:
    sha, _ = propose(ws)
    git(ws, "checkout", "-q", "main")
    (ws / "src/app.py").write_text("x = 5\n")
    git(ws, "commit", "-q", "-am", "unrelated work")
    git(ws, "checkout", "-q", "-b", "merged")
    git(ws, "-c", "core.hooksPath=/dev/null", "cherry-pick", sha)
    rewritten = git(ws, "rev-parse", "HEAD")
    assert rewritten != sha
    report = verify(ws, "main..HEAD")
    assert report.ok, report.as_dict()


def test_github_format_is_a_markdown_summary(ws: Path) -> None:
    propose(ws)
    propose(ws, "notes/other.md", "x\n", verdict="reject")
    proc = run_cli(["verify", "--format", "github"], cwd=ws)
    assert proc.returncode == 1
    assert proc.stdout.startswith("### hippo verify: 1 of 2 failed")
    assert "| ✅ |" in proc.stdout and "| ❌ |" in proc.stdout
