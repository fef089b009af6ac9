"""`git hippo verify [RANGE]`: the CI check of a dream pull request (DESIGN §3, Team).

Every commit in the range must be a proposal commit (well-formed trailers) that changes exactly
one note under notes_dir and nothing else, with a confirming receipt for its proposal id
(looked up by id as well as by commit, so "rebase and merge" rewrites still verify) whose
before and after blobs are the commit's.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.dream.receipts import ReceiptBook
from hippo_git.dream.records import NULL_BLOB, RECEIPTS_REF, Receipt, parse_trailers
from hippo_git.errors import UsageError
from hippo_git.git.commits import CommitInfo, commits_in_range, rev_parse
from hippo_git.git.repo import discover


@dataclass(frozen=True)
class CommitCheck:
    sha: str
    subject: str
    ok: bool
    reason: str  # why it failed, or what confirmed it
    proposal: str | None = None
    path: str | None = None

    def as_dict(self) -> dict[str, object]:
        return {
            "commit": self.sha,
            "subject": self.subject,
            "ok": self.ok,
            "reason": self.reason,
            "proposal": self.proposal,
            "path": self.path,
        }


@dataclass
class VerifyReport:
    range: str
    checks: list[CommitCheck] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return all(c.ok for c in self.checks)

    def as_dict(self) -> dict[str, object]:
        return {"range": self.range, "ok": self.ok, "commits": [c.as_dict() for c in self.checks]}

    def github_markdown(self) -> str:
        failed = [c for c in self.checks if not c.ok]
        head = "### hippo verify: " + (
            f"{len(self.checks)} dream change(s) verified"
            if not failed
            else f"{len(failed)} of {len(self.checks)} failed"
        )
        rows = ["| | commit | change | result |", "|---|---|---|---|"]
        for c in self.checks:
            mark = "✅" if c.ok else "❌"
            subject, reason = (text.replace("|", "\\|") for text in (c.subject, c.reason))
            rows.append(f"| {mark} | `{c.sha[:10]}` | {subject} | {reason} |")
        foot = (
            "\nEach change was proposed by `git hippo dream`, reviewed by a second model run, and carries "
            "a receipt in `refs/notes/hippo/receipts`. Inspect one with `git hippo proposals ID`."
        )
        return "\n".join([head, "", *rows, foot]) + "\n"


def confirming_reviews(book: ReceiptBook, proposal: str, commit: str) -> list[Receipt]:
    """Review receipts for `proposal`, found by proposal id on any note or on `commit`'s note."""
    seen = [*book.for_proposal(proposal), *book.for_commit(commit)]
    return [r for r in seen if r.kind == "review" and r.proposal == proposal]


def check_commit(commit: CommitInfo, book: ReceiptBook, notes_dir: str) -> CommitCheck:
    def fail(reason: str, **kw: str | None) -> CommitCheck:
        return CommitCheck(commit.sha, commit.subject, False, reason, **kw)

    if len(commit.parents) > 1:
        return fail("a merge commit, not a proposal commit")
    trailers = parse_trailers(commit.message)
    if trailers is None:
        return fail("not a proposal commit: Hippo-* trailers missing or malformed")
    pid = trailers.proposal
    if len(commit.changes) != 1:
        return fail(f"changes {len(commit.changes)} files; a proposal changes exactly one note", proposal=pid)
    change = commit.changes[0]
    name = change.path.removeprefix(notes_dir + "/")
    is_note = (
        change.path.startswith(notes_dir + "/")
        and change.path.endswith(".md")
        and not any(part.startswith(".") for part in name.split("/"))
        and change.status in ("A", "M")
    )
    if not is_note:
        return fail(
            f"changes {change.path}, which is not a note under {notes_dir}/", proposal=pid, path=change.path
        )
    before = change.old_blob if change.status == "M" else NULL_BLOB
    if trailers.before != before:
        return fail(
            "the Hippo-Before trailer does not match the note in the parent commit",
            proposal=pid,
            path=change.path,
        )
    reviews = confirming_reviews(book, pid, commit.sha)
    if not reviews:
        return fail(
            f"no receipt for proposal {pid[:12]} (run `git hippo sync`, or fetch {RECEIPTS_REF})",
            proposal=pid,
            path=change.path,
        )
    confirms = [r for r in reviews if r.verdict == "confirm"]
    if not confirms:
        return fail(
            f"the review rejected it: {reviews[0].reason or 'no reason given'}",
            proposal=pid,
            path=change.path,
        )
    for receipt in confirms:
        if receipt.path == change.path and receipt.before == before and receipt.after == change.new_blob:
            who = receipt.reviewer.persona + (" (heuristic)" if receipt.reviewer.heuristic else "")
            return CommitCheck(commit.sha, commit.subject, True, f"confirmed by {who}", pid, change.path)
    if all(r.before != before for r in confirms):
        return fail("the note's before blob differs from the receipt's", proposal=pid, path=change.path)
    if all(r.path != change.path for r in confirms):
        return fail(
            f"the receipt is for {confirms[0].path}, not {change.path}", proposal=pid, path=change.path
        )
    return fail(
        "the note's content differs from what was reviewed (edited after review?)",
        proposal=pid,
        path=change.path,
    )


def verify(start: Path, rev_range: str | None = None) -> VerifyReport:
    root = discover(start).workdir
    cfg = load_config(root)
    if rev_range is None:
        if rev_parse(root, cfg.target_branch) is None:
            raise UsageError(
                f"target branch {cfg.target_branch!r} not found",
                hint="give a range: git hippo verify BASE..HEAD",
            )
        rev_range = f"{cfg.target_branch}..HEAD"
    elif ".." not in rev_range:
        rev_range = f"{rev_range}..HEAD"
    base, _, tip = rev_range.partition("...") if "..." in rev_range else rev_range.partition("..")
    for rev in (base, tip or "HEAD"):
        if rev and rev_parse(root, rev) is None:
            raise UsageError(f"unknown revision {rev!r} in range {rev_range!r}")
    book = ReceiptBook.load(root)
    report = VerifyReport(range=rev_range)
    for commit in commits_in_range(root, rev_range):
        report.checks.append(check_commit(commit, book, cfg.notes_dir.strip("/")))
    return report
