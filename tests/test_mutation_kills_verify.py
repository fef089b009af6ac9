"""`verify`'s edges that mutation testing found unguarded (issue 21): merge and deleting commits,
the range forms, the report's JSON and Markdown, and a receipt for another note."""

from __future__ import annotations

from pathlib import Path

import pytest

from hippo_git.dream.records import Receipt, Reviewer, commit_message
from hippo_git.errors import UsageError
from hippo_git.git.objects import GitStore
from hippo_git.team.verify import CommitCheck, VerifyReport, verify
from tests.conftest import git
from tests.test_verify import _blob, propose, write_receipt, ws  # noqa: F401  (the fixture)


def test_a_merge_commit_is_not_a_proposal(ws: Path) -> None:  # noqa: F811
    propose(ws)
    git(ws, "checkout", "-q", "-b", "side", "main")
    (ws / "src/app.py").write_text("x = 9\n")
    git(ws, "commit", "-q", "-am", "side work")
    git(ws, "checkout", "-q", "hippo/proposals/r1")
    git(ws, "merge", "-q", "--no-edit", "side")
    checks = verify(ws, "main..HEAD").checks
    merge = [c for c in checks if c.subject.startswith("Merge")]
    assert [c.reason for c in merge] == ["a merge commit, not a proposal commit"]
    assert not merge[0].ok and merge[0].proposal is None


def test_a_proposal_that_deletes_its_note_fails(ws: Path) -> None:  # noqa: F811
    sha, proposal = propose(ws, receipt=False)
    before = _blob(ws, "HEAD~1", "notes/build.md")
    git(ws, "rm", "-q", "notes/build.md")
    (ws / ".git" / "MSG").write_text(commit_message(proposal, _blob(ws, "HEAD", "notes/build.md"), "r1"))
    git(ws, "commit", "-q", "-F", ".git/MSG")
    gone = git(ws, "rev-parse", "HEAD")
    write_receipt(ws, gone, proposal, verdict="confirm", before=before, after="0" * 40)
    check = verify(ws).checks[-1]
    assert check.reason == "deletes notes/build.md; a proposal never deletes a note"
    assert (check.proposal, check.path) == (proposal.id, "notes/build.md")
    assert sha != gone


def test_only_markdown_notes_below_the_notes_folder_count(ws: Path) -> None:  # noqa: F811
    propose(ws, "notes/data.txt", "plain\n")
    propose(ws, "notes/dir/.hidden/x.md", "hidden\n")
    propose(ws, "notesx/a.md", "beside\n")
    assert [c.reason for c in verify(ws).checks] == [
        "changes notes/data.txt, which is not a note under notes/",
        "changes notes/dir/.hidden/x.md, which is not a note under notes/",
        "changes notesx/a.md, which is not a note under notes/",
    ]
    assert [c.path for c in verify(ws).checks] == ["notes/data.txt", "notes/dir/.hidden/x.md", "notesx/a.md"]


def test_a_plain_commit_is_not_a_proposal_and_a_revert_needs_its_subject(ws: Path) -> None:  # noqa: F811
    sha, _ = propose(ws)
    (ws / "notes/build.md").write_text("# Build\n")
    git(ws, "commit", "-q", "-am", f"tidy\n\nThis reverts commit {sha}.")
    check = verify(ws).checks[-1]
    assert check.reason == "not a proposal commit: Hippo-* trailers missing or malformed"
    assert check.path is None and check.proposal is None


def _note(root: Path, sha: str, **fields: object) -> None:
    """A receipt on `sha` binding its one note change, with `fields` overridden."""
    path = str(fields.pop("path", "notes/build.md"))
    data: dict[str, object] = {
        "kind": "review",
        "proposal": "p" * 12,
        "commit": sha,
        "verdict": "confirm",
        "path": path,
        "before": _blob(root, f"{sha}~1", "notes/build.md"),
        "after": _blob(root, sha, "notes/build.md"),
        "patch_id": GitStore(root).patch_id(sha),
        "reviewer": Reviewer(persona="core/skeptic", persona_sha256="0" * 64, argv=("scripted",)),
        "time": "2026-01-02T03:04:05Z",
        "reason": "ok",
        "run": "r1",
    }
    data.update(fields)
    line = Receipt(**data).line()  # type: ignore[arg-type]
    git(root, "notes", "--ref=hippo/receipts", "append", "-m", line, sha)


def test_a_receipt_for_another_note_is_named(ws: Path) -> None:  # noqa: F811
    sha, proposal = propose(ws, receipt=False)
    _note(ws, sha, proposal=proposal.id, path="notes/other.md")
    assert [c.reason for c in verify(ws).checks] == ["the receipt is for notes/other.md, not notes/build.md"]


def test_the_range_forms(ws: Path) -> None:  # noqa: F811
    propose(ws)
    propose(ws, "notes/new.md", "# New\n")
    first = git(ws, "rev-parse", "HEAD~1")
    assert verify(ws).range == "main..HEAD"
    assert len(verify(ws).checks) == 2
    only_last = verify(ws, first)
    assert only_last.range == f"{first}..HEAD" and len(only_last.checks) == 1
    assert len(verify(ws, "main...HEAD").checks) == 2
    assert len(verify(ws, "main..").checks) == 2
    with pytest.raises(UsageError, match="unknown revision 'nope'"):
        verify(ws, "nope..HEAD")
    with pytest.raises(UsageError, match="unknown revision 'nope'"):
        verify(ws, "main..nope")
    git(ws, "branch", "-q", "-m", "main", "trunk")
    with pytest.raises(UsageError, match="target branch 'main' not found"):
        verify(ws)


def test_the_report_as_json_and_markdown() -> None:
    good = CommitCheck("a" * 40, "hippo: append a|b", True, "confirmed by x", "p1", "notes/a.md")
    bad = CommitCheck("b" * 40, "hand edit", False, "why | not", None, None)
    report = VerifyReport(range="main..HEAD", checks=[good])
    assert report.ok
    assert good.as_dict() == {
        "commit": "a" * 40,
        "subject": "hippo: append a|b",
        "ok": True,
        "reason": "confirmed by x",
        "proposal": "p1",
        "path": "notes/a.md",
    }
    assert report.as_dict() == {"range": "main..HEAD", "ok": True, "commits": [good.as_dict()]}
    assert report.github_markdown().startswith("### hippo verify: 1 dream change(s) verified\n")
    report.checks.append(bad)
    assert not report.ok and report.as_dict()["ok"] is False
    text = report.github_markdown()
    assert text.startswith("### hippo verify: 1 of 2 failed\n")
    assert f"| ✅ | `{'a' * 10}` | hippo: append a\\|b | confirmed by x |" in text
    assert f"| ❌ | `{'b' * 10}` | hand edit | why \\| not |" in text
    assert VerifyReport(range="r").ok  # nothing to check is not a failure


@pytest.mark.parametrize("forged", ["0" * 40, "f" * 40])
def test_a_patch_id_above_or_below_the_commits_fails(ws: Path, forged: str) -> None:  # noqa: F811
    sha, proposal = propose(ws, receipt=False)
    before = git(ws, "rev-parse", f"{sha}~1:notes/build.md")
    after = git(ws, "rev-parse", f"{sha}:notes/build.md")
    write_receipt(ws, sha, proposal, verdict="confirm", before=before, after=after, patch_id=forged)
    [check] = verify(ws).checks
    real = GitStore(ws).patch_id(sha)  # a text note: hippo's stable patch-id is git's
    assert not check.ok
    # both ids shortened alike, so a reader can match them by eye
    assert check.reason == f"the receipt's patch-id {forged[:12]} is not the commit's {real[:12]}"


def test_a_confirmation_of_another_proposal_on_the_commit_does_not_count(ws: Path) -> None:  # noqa: F811
    sha, _ = propose(ws, receipt=False)
    _note(ws, sha, proposal="another-proposal")  # binds the very blobs, but is not this proposal's
    [check] = verify(ws).checks
    assert not check.ok and check.reason.startswith("no receipt for proposal")


def test_the_first_bound_confirmation_names_the_reviewer(ws: Path) -> None:  # noqa: F811
    sha, proposal = propose(ws, receipt=False)
    _note(ws, sha, proposal=proposal.id)
    heuristic = Reviewer(persona="core/offline", persona_sha256="0" * 64, argv=("x",), heuristic=True)
    _note(ws, sha, proposal=proposal.id, reviewer=heuristic, reason="second")
    assert [c.reason for c in verify(ws).checks] == ["confirmed by core/skeptic"]


def test_a_review_receipt_on_a_revert_is_not_a_revert_receipt(ws: Path) -> None:  # noqa: F811
    sha, _ = propose(ws)
    git(ws, "-c", "core.hooksPath=/dev/null", "revert", "--no-edit", sha)
    reverting = git(ws, "rev-parse", "HEAD")
    _note(ws, reverting, proposal="p-revert")  # a review, binding the revert's change exactly
    check = verify(ws, "HEAD~1..HEAD").checks[0]
    assert not check.ok and "without a revert receipt" in check.reason
    _note(ws, reverting, proposal="0123456789abcdef", kind="revert", reason="ana")
    check = verify(ws, "HEAD~1..HEAD").checks[0]
    assert check.ok and check.reason == "revert of 0123456789ab, ana"  # the id cut to 12


def test_a_revert_subject_without_the_reverted_commit_is_not_a_proposal(ws: Path) -> None:  # noqa: F811
    (ws / "notes/build.md").write_text("# Build\n")
    git(ws, "commit", "-q", "-am", "Revert something by hand")
    [check] = verify(ws).checks
    assert check.reason == "not a proposal commit: Hippo-* trailers missing or malformed"


def test_a_missing_receipt_names_the_proposal_cut_to_12(ws: Path) -> None:  # noqa: F811
    _, proposal = propose(ws, receipt=False)
    [check] = verify(ws).checks
    assert check.reason == (
        f"no receipt for proposal {proposal.id[:12]} (run `git hippo sync`, or fetch refs/notes/hippo/receipts)"
    )
    assert len(proposal.id) > 12


def test_confirming_reviews_are_this_proposals_only_whatever_the_ids_order() -> None:
    from hippo_git.dream.receipts import ReceiptBook, ReceiptEntry
    from hippo_git.team.verify import confirming_reviews

    def receipt(proposal: str, kind: str = "review") -> Receipt:
        return Receipt(
            kind=kind,  # type: ignore[arg-type]
            proposal=proposal,
            commit="c" * 40,
            verdict="confirm",
            path="notes/build.md",
            before="1" * 40,
            after="2" * 40,
            patch_id="3" * 40,
            reviewer=Reviewer(persona="core/skeptic", persona_sha256="0" * 64, argv=("scripted",)),
            time="2026-01-02T03:04:05Z",
        )

    mine = receipt("m" * 12)
    book = ReceiptBook()
    book.add([ReceiptEntry("c" * 40, r) for r in (receipt("a" * 12), mine, receipt("z" * 12))])
    book.add([ReceiptEntry("c" * 40, receipt("m" * 12, kind="revert"))])
    assert confirming_reviews(book, "m" * 12, "c" * 40) == [mine, mine]  # by id, then on the commit
    assert confirming_reviews(book, "m" * 12, "d" * 40) == [mine]  # found by id on another commit


def test_a_rejection_names_the_first_reviews_reason(ws: Path) -> None:  # noqa: F811
    sha, proposal = propose(ws, receipt=False)
    _note(ws, sha, proposal=proposal.id, verdict="reject", reason="first")
    _note(ws, sha, proposal=proposal.id, verdict="reject", reason="")
    assert [c.reason for c in verify(ws).checks] == ["the review rejected it: first"]


def test_a_revert_receipt_that_binds_another_change_does_not_verify_a_rebased_revert(
    ws: Path,  # noqa: F811
) -> None:
    sha, _ = propose(ws)
    _note(ws, sha, proposal="p-other", kind="revert", reason="ana")  # binds the proposal, not its revert
    git(ws, "-c", "core.hooksPath=/dev/null", "revert", "--no-edit", sha)
    [check] = verify(ws, "HEAD~1..HEAD").checks
    assert not check.ok and check.reason == (
        f"a revert of {sha[:12]} without a revert receipt (only `git hippo revert` writes one)"
    )


def test_a_revert_subject_naming_two_reverted_commits_is_not_a_revert(ws: Path) -> None:  # noqa: F811
    sha, _ = propose(ws)
    (ws / "notes/build.md").write_text("# Build\n\nRun make.\n")
    git(ws, "commit", "-q", "-am", f"Revert two\n\nThis reverts commit {sha}.\nThis reverts commit {sha}.")
    check = verify(ws).checks[-1]
    assert check.reason == "not a proposal commit: Hippo-* trailers missing or malformed"


def test_a_proposal_changing_two_files_names_no_path(ws: Path) -> None:  # noqa: F811
    _, proposal = propose(ws, extra={"src/app.py": "x = 2\n"})
    [check] = verify(ws).checks
    assert (check.proposal, check.path) == (proposal.id, None)


def test_a_before_blob_above_the_notes_fails_too(ws: Path) -> None:  # noqa: F811
    propose(ws, before_override="f" * 40)
    assert [c.reason for c in verify(ws).checks] == ["the note's before blob differs from the receipt's"]


def test_an_empty_commit_with_trailers_changes_no_note(ws: Path) -> None:  # noqa: F811
    _, proposal = propose(ws)
    (ws / ".git" / "MSG").write_text(commit_message(proposal, _blob(ws, "HEAD", "notes/build.md"), "r1"))
    git(ws, "commit", "-q", "--allow-empty", "-F", ".git/MSG")
    check = verify(ws).checks[-1]
    assert (check.reason, check.path) == ("changes 0 files; a proposal changes exactly one note", None)


def test_a_hippo_before_trailer_above_the_parents_blob_fails(ws: Path) -> None:  # noqa: F811
    _, proposal = propose(ws, receipt=False)
    git(ws, "commit", "-q", "--amend", "-m", commit_message(proposal, "f" * 40, "r1"))
    [check] = verify(ws).checks
    assert check.reason == "the Hippo-Before trailer does not match the note in the parent commit"


@pytest.mark.parametrize("other", ["0" * 64, "f" * 64])
def test_a_confirmation_of_a_proposal_sorting_either_side_does_not_count(
    ws: Path,  # noqa: F811
    other: str,
) -> None:
    sha, proposal = propose(ws, receipt=False)
    assert other != proposal.id
    _note(ws, sha, proposal=other)
    [check] = verify(ws).checks
    assert not check.ok and check.reason.startswith("no receipt for proposal")


def test_a_binary_note_change_is_compared_by_gits_patch_id(ws: Path) -> None:  # noqa: F811
    """Binary: no stable patch-id of our own, so git's is compared (and the patch then refused)."""
    propose(ws, text="\0 binary\n")
    [check] = verify(ws).checks
    assert not check.ok and check.reason.startswith("the commit does not match its receipt:")


def test_a_revert_names_its_first_revert_receipts_reason(ws: Path) -> None:  # noqa: F811
    sha, _ = propose(ws)
    git(ws, "-c", "core.hooksPath=/dev/null", "revert", "--no-edit", sha)
    reverting = git(ws, "rev-parse", "HEAD")
    _note(ws, reverting, proposal="0123456789abcdef", kind="revert", reason="ana")
    _note(ws, reverting, proposal="0123456789abcdef", kind="revert", reason="")
    [check] = verify(ws, "HEAD~1..HEAD").checks
    assert check.ok and check.reason == "revert of 0123456789ab, ana"


@pytest.mark.parametrize("after", ["0" * 40, "f" * 40])
def test_a_receipt_after_blob_either_side_of_the_commits_fails(ws: Path, after: str) -> None:  # noqa: F811
    sha, proposal = propose(ws, receipt=False)
    write_receipt(
        ws, sha, proposal, verdict="confirm", before=_blob(ws, f"{sha}~1", "notes/build.md"), after=after
    )
    assert [c.reason for c in verify(ws).checks] == [
        "the note's content differs from what was reviewed (edited after review?)"
    ]
