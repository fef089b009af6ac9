"""What a merge brought (the post-merge hook): changed notes re-read, dream changes listed."""

from __future__ import annotations

from pathlib import Path

from hippo_git.config import load_config
from hippo_git.dream.receipt_index import ReceiptIndex
from hippo_git.dream.records import parse_trailers
from hippo_git.git.commits import commits_in_range, rev_parse
from hippo_git.git.staged import changed_between
from hippo_git.notes.notes_index import refresh_notes_index
from hippo_git.team.verify import confirming_reviews


def report_arrivals(root: Path) -> list[str]:
    orig, head = rev_parse(root, "ORIG_HEAD"), rev_parse(root, "HEAD")
    if orig is None or head is None or orig == head:
        return []
    cfg = load_config(root)
    prefix = cfg.notes_dir.strip("/") + "/"
    notes = [p for p in changed_between(root, orig, head) if p.startswith(prefix) and p.endswith(".md")]
    lines: list[str] = []
    if notes:
        refresh_notes_index(cfg, notes)
        lines.append(f"hippo: re-read {len(notes)} changed note(s)")
    arrived = [(c, parse_trailers(c.message)) for c in commits_in_range(root, f"{orig}..{head}")]
    dream = [(c, t) for c, t in arrived if t is not None]
    if not dream:
        return lines
    # only the receipts of what arrived, through the cache: a post-merge hook must not read history
    book = ReceiptIndex.open(root).book(
        proposals=[t.proposal for _, t in dream if t is not None], commits=[c.sha for c, _ in dream]
    )
    missing = 0
    for commit, trailers in dream:
        assert trailers is not None
        confirms = [
            r for r in confirming_reviews(book, trailers.proposal, commit.sha) if r.verdict == "confirm"
        ]
        if confirms:
            lines.append(
                f"hippo: dream change arrived: {commit.sha[:10]} {commit.subject} (confirmed by {confirms[0].reviewer.persona})"
            )
        else:
            missing += 1
            lines.append(
                f"hippo: warning: dream change {commit.sha[:10]} {commit.subject} has no confirming receipt here"
            )
    if missing:
        lines.append("hippo: run `git hippo sync` to fetch your team's receipts")
    return lines
