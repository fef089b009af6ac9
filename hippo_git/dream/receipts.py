"""Receipts: JSON lines in the git notes of refs/notes/hippo/receipts (DESIGN §3).

A receipt is written on the commit it is about (and a revert receipt also on the commit it
reverts). Receipts are found by proposal id as well as by commit, so a receipt still verifies a
proposal commit that a "rebase and merge" rewrote. Writing is idempotent: a line equal to one
already in the note, ignoring its `time`, is not written again, so a rerun duplicates nothing.
"""

from __future__ import annotations

import functools
import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.dream.records import RECEIPTS_REF, Receipt, parse_receipts
from hippo_git.git.objects import GitStore


@dataclass(frozen=True)
class ReceiptEntry:
    """A receipt and the commit whose note holds it (`on`; differs from `receipt.commit` for the
    copy of a revert receipt kept on the reverted commit)."""

    on: str
    receipt: Receipt
    identity: str = field(default="", compare=False)  # `receipt_identity` of its line, when known


def receipt_identity(line: str) -> str:
    """What makes two receipt lines the same receipt: everything but the time it was written."""
    try:
        data = json.loads(line)
    except ValueError:
        return line.strip()
    if not isinstance(data, dict):
        return line.strip()
    data.pop("time", None)
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def write_receipts(
    repo_root: Path, items: Iterable[tuple[Receipt, str | None]], *, store: GitStore | None = None
) -> int:
    """Write many receipts in ONE notes commit; each item is (receipt, on) where `on` is the commit
    whose note gets the line (None: `receipt.commit`). Returns how many lines were new."""
    lines: dict[str, list[str]] = {}
    for receipt, on in items:
        lines.setdefault(on or receipt.commit, []).append(receipt.line())
    if not lines:
        return 0
    store = store or GitStore(repo_root)
    return store.append_note_lines(RECEIPTS_REF, lines, same=receipt_identity, message="hippo: receipts")


def write_receipt(
    repo_root: Path, receipt: Receipt, *, on: str | None = None, store: GitStore | None = None
) -> bool:
    """Append `receipt` to the note on `on` (default: `receipt.commit`); False when it was already there.

    Pass `store` (one GitStore per batch) on hot paths to avoid reopening the repository.
    """
    return write_receipts(repo_root, [(receipt, on)], store=store) > 0


def list_receipts(repo_root: Path, *, store: GitStore | None = None) -> list[ReceiptEntry]:
    """Every well-formed receipt in refs/notes/hippo/receipts, sorted by time then commit."""
    store = store or GitStore(repo_root)
    entries = [
        ReceiptEntry(on=annotated, receipt=receipt, identity=identity)
        for annotated, text in store.all_notes(RECEIPTS_REF)
        for receipt, identity in _parsed(text)
    ]
    return sorted(entries, key=lambda e: (e.receipt.time, e.receipt.commit, e.on, e.receipt.kind))


@functools.lru_cache(maxsize=16384)
def _parsed(note_text: str) -> tuple[tuple[Receipt, str], ...]:
    """The receipts of a note's text with their identities. Cached by text (receipts are frozen):
    a dream reads every receipt again at each chunk's apply, while a note changes only by growing."""
    return tuple((r, receipt_identity(r.line())) for r in parse_receipts(note_text))


@dataclass
class ReceiptBook:
    """All receipts, read once and indexed by commit and by proposal id (for one batch)."""

    entries: list[ReceiptEntry] = field(default_factory=list)
    by_commit: dict[str, list[Receipt]] = field(default_factory=dict)
    by_proposal: dict[str, list[Receipt]] = field(default_factory=dict)
    # identities already held, kept up to date by `add` so adding stays linear in what is added
    _seen: set[tuple[str, str]] = field(default_factory=set, repr=False)
    _in_bucket: set[tuple[str, str, str]] = field(default_factory=set, repr=False)

    @classmethod
    def load(cls, repo_root: Path, *, store: GitStore | None = None) -> ReceiptBook:
        book = cls()
        book.add(list_receipts(repo_root, store=store))
        return book

    def add(self, entries: Sequence[ReceiptEntry]) -> None:
        for entry in entries:
            identity = entry.identity or receipt_identity(entry.receipt.line())
            if (entry.on, identity) in self._seen:
                continue
            self._seen.add((entry.on, identity))
            self.entries.append(entry)
            for commit in {entry.on, entry.receipt.commit}:
                self._put(self.by_commit, "c", commit, identity, entry.receipt)
            self._put(self.by_proposal, "p", entry.receipt.proposal, identity, entry.receipt)

    def _put(
        self, index: dict[str, list[Receipt]], kind: str, key: str, identity: str, receipt: Receipt
    ) -> None:
        if (kind, key, identity) not in self._in_bucket:
            self._in_bucket.add((kind, key, identity))
            index.setdefault(key, []).append(receipt)

    def for_commit(self, commit: str) -> list[Receipt]:
        return list(self.by_commit.get(commit, []))

    def for_proposal(self, proposal_id: str) -> list[Receipt]:
        return list(self.by_proposal.get(proposal_id, []))


def receipts_for(
    repo_root: Path,
    commit: str | None = None,
    proposal_id: str | None = None,
    *,
    store: GitStore | None = None,
) -> list[Receipt]:
    """Receipts naming `commit` (on its note, or naming it) and/or `proposal_id` (on ANY note, so a
    rewritten commit still finds its receipts). With both, either match counts; each once."""
    book = ReceiptBook.load(repo_root, store=store)
    found: list[Receipt] = []
    seen: set[str] = set()
    for receipt in (book.for_commit(commit) if commit else []) + (
        book.for_proposal(proposal_id) if proposal_id else []
    ):
        key = receipt_identity(receipt.line())
        if key not in seen:
            seen.add(key)
            found.append(receipt)
    return found
