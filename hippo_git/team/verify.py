"""`git hippo verify [RANGE]`: the CI check of a dream pull request (DESIGN §3, Team).

Every commit in the range must be a proposal commit (well-formed trailers) that changes exactly
one note under notes_dir and nothing else, with a confirming receipt for its proposal id whose
before and after blobs and patch-id are the commit's, and whose change is what the commit's patch
does (read with unidiff); or a revert made by `git hippo revert`, with its revert receipt.

Cost grows with the range, not with history: the receipts on each commit's own note are read
first; only a commit they do not settle (one that "rebase and merge" rewrote) is looked up by
proposal id, through the receipts cache (`dream.receipt_index`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.dream.receipt_index import ReceiptIndex
from hippo_git.dream.receipts import ReceiptBook
from hippo_git.dream.records import NULL_BLOB, RECEIPTS_REF, Receipt, parse_receipts, parse_trailers
from hippo_git.errors import UsageError
from hippo_git.git.commits import CommitInfo, FileChange, commits_in_range, rev_parse
from hippo_git.git.objects import GitStore
from hippo_git.git.patchid import stable_patch_id
from hippo_git.git.repo import discover
from hippo_git.team.verify_patch import patch_problem


@dataclass(frozen=True)
class CommitCheck:
    """The verdict of `verify` on one commit in the range, and why."""

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
    """The verdict of `verify` on a range of commits; ok when every commit passed."""

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


_REVERTS = re.compile(r"^This reverts commit ([0-9a-f]{40})\.$", re.M)


def confirming_reviews(book: ReceiptBook, proposal: str, commit: str) -> list[Receipt]:
    """Review receipts for `proposal`, found by proposal id on any note or on `commit`'s note."""
    seen = [*book.for_proposal(proposal), *book.for_commit(commit)]
    return [r for r in seen if r.kind == "review" and r.proposal == proposal]


class Evidence:
    """What verify reads for one range: the note on each commit first (one lookup), and the
    receipts cache only for a commit whose own note does not settle it (a rebased commit)."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.store = GitStore(root)
        self._index: ReceiptIndex | None = None

    def on_commit(self, sha: str) -> list[Receipt]:
        return parse_receipts(self.store.note_text(RECEIPTS_REF, sha) or "")

    def index(self) -> ReceiptIndex:
        if self._index is None:
            self._index = ReceiptIndex(self.store)
        return self._index

    def by_proposal(self, proposal: str, commit: str) -> list[Receipt]:
        entries = [*self.index().for_proposal(proposal), *self.index().for_commit(commit)]
        return [e.receipt for e in entries]

    def text(self, blob: str) -> str:
        return "" if blob == NULL_BLOB else self.store.read_blob(blob).decode("utf-8", "replace")

    def patch(self, sha: str) -> tuple[str, str]:
        """The commit's patch text and its stable patch-id."""
        diff = self.store.diff_text(sha)
        return diff, stable_patch_id(diff) or self.store.patch_id(sha)


def _binds(receipt: Receipt, change: FileChange, before: str) -> bool:
    return receipt.path == change.path and receipt.before == before and receipt.after == change.new_blob


def _note_change(commit: CommitInfo, notes_dir: str) -> FileChange | str:
    """The one note the commit changes, or why it is not a one-note change."""
    if len(commit.changes) != 1:
        return f"changes {len(commit.changes)} files; a proposal changes exactly one note"
    change = commit.changes[0]
    name = change.path.removeprefix(notes_dir + "/")
    is_note = (
        change.path.startswith(notes_dir + "/")
        and change.path.endswith(".md")
        and not any(part.startswith(".") for part in name.split("/"))
        and change.status in ("A", "M", "D")
    )
    if not is_note:
        return f"changes {change.path}, which is not a note under {notes_dir}/"
    return change


def _bound_receipt(receipts: list[Receipt], change: FileChange, before: str, ev: Evidence, sha: str) -> str:
    """'' when one of `receipts` (already matching the blobs) also matches the commit's patch-id and
    its patch; else why not."""
    diff, patch_id = ev.patch(sha)
    if all(r.patch_id != patch_id for r in receipts):
        return f"the receipt's patch-id {receipts[0].patch_id[:12]} is not the commit's {patch_id[:12]}"
    problem = patch_problem(diff, change.path, ev.text(before), ev.text(change.new_blob))
    return "" if problem is None else f"the commit does not match its receipt: {problem}"


def check_revert(commit: CommitInfo, reverted: str, ev: Evidence, notes_dir: str) -> CommitCheck:
    """A revert made by `git hippo revert`: one note, and a revert receipt naming exactly it."""

    def fail(reason: str, **kw: str | None) -> CommitCheck:
        return CommitCheck(commit.sha, commit.subject, False, reason, **kw)

    change = _note_change(commit, notes_dir)
    if isinstance(change, str):
        return fail(f"a revert that {change}")
    before = change.old_blob if change.status != "A" else NULL_BLOB
    mine = [r for r in ev.on_commit(commit.sha) if r.kind == "revert" and _binds(r, change, before)]
    if not mine:  # rebased: the receipt names the original revert commit, and sits on the reverted one
        mine = [
            e.receipt
            for e in ev.index().for_commit(reverted)
            if e.receipt.kind == "revert" and _binds(e.receipt, change, before)
        ]
    if not mine:
        return fail(
            f"a revert of {reverted[:12]} without a revert receipt (only `git hippo revert` writes one)",
            path=change.path,
        )
    pid = mine[0].proposal
    problem = _bound_receipt(mine, change, before, ev, commit.sha)
    if problem:
        return fail(problem, proposal=pid, path=change.path)
    who = mine[0].reason or "a person"
    return CommitCheck(commit.sha, commit.subject, True, f"revert of {pid[:12]}, {who}", pid, change.path)


def check_commit(commit: CommitInfo, ev: Evidence, notes_dir: str) -> CommitCheck:
    def fail(reason: str, **kw: str | None) -> CommitCheck:
        return CommitCheck(commit.sha, commit.subject, False, reason, **kw)

    if len(commit.parents) > 1:
        return fail("a merge commit, not a proposal commit")
    trailers = parse_trailers(commit.message)
    if trailers is None:
        reverts = _REVERTS.findall(commit.message)
        if len(reverts) == 1 and commit.subject.startswith("Revert "):
            return check_revert(commit, reverts[0], ev, notes_dir)
        return fail("not a proposal commit: Hippo-* trailers missing or malformed")
    pid = trailers.proposal
    change = _note_change(commit, notes_dir)
    if isinstance(change, str):
        return fail(change, proposal=pid, path=commit.changes[0].path if len(commit.changes) == 1 else None)
    if change.status == "D":
        return fail(f"deletes {change.path}; a proposal never deletes a note", proposal=pid, path=change.path)
    before = change.old_blob if change.status == "M" else NULL_BLOB
    if trailers.before != before:
        return fail(
            "the Hippo-Before trailer does not match the note in the parent commit",
            proposal=pid,
            path=change.path,
        )
    reviews = [r for r in ev.on_commit(commit.sha) if r.kind == "review" and r.proposal == pid]
    if not any(r.verdict == "confirm" and _binds(r, change, before) for r in reviews):
        # Not settled by the commit's own note (a rebased commit): look the proposal up by id.
        more = [r for r in ev.by_proposal(pid, commit.sha) if r.kind == "review" and r.proposal == pid]
        reviews += [r for r in more if r not in reviews]
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
    bound = [r for r in confirms if _binds(r, change, before)]
    if bound:
        problem = _bound_receipt(bound, change, before, ev, commit.sha)
        if problem:
            return fail(problem, proposal=pid, path=change.path)
        who = bound[0].reviewer.persona + (" (heuristic)" if bound[0].reviewer.heuristic else "")
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
    evidence = Evidence(root)
    report = VerifyReport(range=rev_range)
    for commit in commits_in_range(root, rev_range):
        report.checks.append(check_commit(commit, evidence, cfg.notes_dir.strip("/")))
    return report
