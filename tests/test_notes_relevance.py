"""Notes for a task when the task's words are in most notes (BM25's IDF near zero): title and
name matches, phrase matches and coverage of the task's words still pick the right note."""

from __future__ import annotations

from pathlib import Path

from hippo_git.config import load_config
from hippo_git.notes import notes_index
from hippo_git.notes.relevance import rank_relevant, title_match
from tests.conftest import make_repo

TOPICS = [
    "invoice",
    "refund",
    "ledger",
    "webhook",
    "tax",
    "dunning",
    "coupon",
    "proration",
    "currency",
    "export",
]


def _billing_repo(tmp_path: Path, count: int) -> Path:
    repo = make_repo(tmp_path / "repo")
    notes = repo / "notes"
    notes.mkdir()
    for n in range(count):
        topic = TOPICS[n % len(TOPICS)]
        # Long notes that all say billing, test and fix many times, some flaky too.
        body = (
            f"# Billing {topic} {n}\n\nThe billing service handles {topic}. "
            + "Run the billing test suite after each fix; billing tests cover the billing API. " * 6
            + "Some of these tests were flaky once; fix them first. " * (1 + n % 3)
        )
        (notes / f"billing-{topic}-{n:04d}.md").write_text(body)
    (notes / "flaky-billing-test.md").write_text(
        "# Flaky billing test\n\nThe invoice rounding test fails one run in twenty: seed the clock.\n"
    )
    return repo


def test_a_note_titled_like_the_task_is_picked_among_5000(tmp_path: Path) -> None:
    repo = _billing_repo(tmp_path, 5000)
    cfg = load_config(repo)
    conn = notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        ranked = rank_relevant(conn, "fix the flaky billing test", limit=5)
        assert ranked[0].path == "notes/flaky-billing-test.md"
        assert any("title" in why for why in ranked[0].why)
        # A name match counts as a title match does (the file name, words split at - and _).
        assert rank_relevant(conn, "billing refund 0011", limit=1)[0].path == "notes/billing-refund-0011.md"
    finally:
        conn.close()


def test_title_match_counts_coverage_and_phrases() -> None:
    terms = ["fix", "flaky", "billing", "test"]
    whole = title_match(terms, "Flaky billing test", "flaky-billing-test.md")
    partial = title_match(terms, "Billing ledger", "billing-ledger.md")
    none = title_match(terms, "Deploys", "deploys.md")
    assert whole > partial > none == 0.0
    # Plural and singular are the same word; the order of the title's words matters for phrases.
    assert title_match(["flaky", "tests"], "Flaky test", "x.md") > title_match(
        ["flaky", "tests"], "Test flaky", "x.md"
    )


def test_notes_the_best_match_links_to_come_along(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo")
    notes = repo / "notes"
    notes.mkdir()
    (notes / "payments.md").write_text("# Payments retries\nRetries back off; see [[idempotency]].\n")
    (notes / "idempotency.md").write_text("# Idempotency keys\nEvery request carries a key.\n")
    (notes / "unrelated.md").write_text("# Fonts\nWe use Inter.\n")
    cfg = load_config(repo)
    conn = notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        ranked = rank_relevant(conn, "payments retries", limit=5)
        assert [r.path for r in ranked] == ["notes/payments.md", "notes/idempotency.md"]
        assert ranked[1].why == ["linked from notes/payments.md"]
    finally:
        conn.close()
