"""Receipts' contracts that mutation testing found unguarded (issue 21): a line's identity, the
entry's value semantics, and writing nothing."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from hippo_git.dream.receipts import ReceiptBook, ReceiptEntry, receipt_identity, write_receipts
from hippo_git.dream.records import Receipt, Reviewer
from tests.conftest import git, make_repo


def _receipt(commit: str = "c" * 40, *, time: str = "2026-01-02T03:04:05Z", reason: str = "ok") -> Receipt:
    return Receipt(
        kind="review",
        proposal="p" * 12,
        commit=commit,
        verdict="confirm",
        path="notes/a.md",
        before="1" * 40,
        after="2" * 40,
        patch_id="3" * 40,
        reviewer=Reviewer(persona="core/skeptic", persona_sha256="0" * 64, argv=("scripted",)),
        time=time,
        reason=reason,
        run="r1",
    )


def test_a_lines_identity_ignores_its_time_and_keeps_a_line_that_is_not_json() -> None:
    early, late = _receipt(time="2026-01-01T00:00:00Z"), _receipt(time="2027-01-01T00:00:00Z")
    assert receipt_identity(early.line()) == receipt_identity(late.line())
    assert receipt_identity(early.line()) != receipt_identity(_receipt(reason="other").line())
    assert receipt_identity("  not json at all \n") == "not json at all"
    assert receipt_identity(' ["a list"] \n') == '["a list"]'  # JSON, but not a receipt object


def test_an_entry_is_a_value_its_cached_identity_aside() -> None:
    receipt = _receipt()
    a = ReceiptEntry(on="c" * 40, receipt=receipt, identity="x")
    b = ReceiptEntry(on="c" * 40, receipt=receipt, identity="y")
    assert a == b and len({a, b}) == 1
    assert a != ReceiptEntry(on="d" * 40, receipt=receipt)
    with pytest.raises(dataclasses.FrozenInstanceError):
        a.on = "e" * 40  # type: ignore[misc]


def test_writing_no_receipts_writes_nothing(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "r", files={"a.txt": "a\n"})
    assert write_receipts(root, []) == 0
    assert git(root, "for-each-ref", "refs/notes/") == ""
    head = git(root, "rev-parse", "HEAD")
    assert write_receipts(root, [(_receipt(head), None)]) == 1
    assert write_receipts(root, [(_receipt(head, time="2030-01-01T00:00:00Z"), None)]) == 0  # same receipt
    book = ReceiptBook.load(root)
    assert [e.on for e in book.entries] == [head]
    assert book.for_commit(head) == book.for_proposal("p" * 12) == [_receipt(head)]


def test_identity_does_not_depend_on_key_order() -> None:
    assert receipt_identity('{"b": 1, "a": 2, "time": "x"}') == receipt_identity('{"a": 2, "b": 1}')


def test_a_book_keeps_every_distinct_receipt_and_each_once() -> None:
    head = "c" * 40
    first, again, second = (
        _receipt(head),
        _receipt(head, time="2030-01-01T00:00:00Z"),
        _receipt(head, reason="2"),
    )
    book = ReceiptBook()
    # entries read without their identity (as a caller may build them): it is computed
    book.add([ReceiptEntry(head, first), ReceiptEntry(head, again), ReceiptEntry(head, second)])
    assert [e.receipt.reason for e in book.entries] == ["ok", "2"]
    assert book.for_commit(head) == [first, second]
    book.add([ReceiptEntry(head, second)])
    assert len(book.entries) == 2


def test_a_books_repr_does_not_spill_its_lookup_sets() -> None:
    book = ReceiptBook()
    book.add([ReceiptEntry("c" * 40, _receipt())])
    assert "_seen" not in repr(book) and "_in_bucket" not in repr(book)
