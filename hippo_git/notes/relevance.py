"""Which notes are relevant to a task: BM25 over the notes index, nudged by links.

A note gains when the required notes link to it (someone judged it central) and when a recent
session's handoff names it (work in progress). Without a task, the handoffs' notes come first,
then the notes the required notes link to.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Iterable

from hippo_git.notes import notes_index

_WORD = re.compile(r"[^\W_]+")
# Words that say what to do rather than what it is about; they match everything.
_STOPWORD_TEXT = """a an and are as at be been but by can could do does doing for from had has have how i if in into is it
    its me my need needs no not of on or our out please should so some than that the their them then there
    these they this those to too up us was we were what when where which while who why will with would you
    your also just about after again all any before both each few more most other over same such only own
    very get got make made let lets use using used want wants try trying way work working see look"""
STOPWORDS = frozenset(_STOPWORD_TEXT.split())
BM25_CANDIDATES = 30
HANDOFF_BONUS = 0.35
REQUIRED_LINK_BONUS = 0.2
ENTRY_LINK_BONUS = 0.05


class Relevant:
    __slots__ = ("path", "score", "why")

    def __init__(self, path: str, score: float) -> None:
        self.path = path
        self.score = score
        self.why: list[str] = []

    def __repr__(self) -> str:
        return f"Relevant({self.path!r}, {self.score:.3f}, {self.why!r})"


def task_terms(task: str, limit: int = 24) -> list[str]:
    terms: dict[str, None] = {}
    for word in _WORD.findall(task.lower()):
        if len(word) > 1 and word not in STOPWORDS:
            terms.setdefault(word, None)
    return list(terms)[:limit]


def fts_match(terms: Iterable[str]) -> str:
    return " OR ".join(f'"{t}"' for t in terms)


def rank_relevant(
    conn: sqlite3.Connection,
    task: str | None,
    *,
    required_links: Iterable[str] = (),
    entry_links: Iterable[str] = (),
    handoff_links: Iterable[str] = (),
    exclude: Iterable[str] = (),
    limit: int = 5,
) -> list[Relevant]:
    """Up to `limit` note paths for the task, best first. Link arguments are resolved note paths."""
    found: dict[str, Relevant] = {}

    def bump(path: str, amount: float, why: str) -> None:
        item = found.setdefault(path, Relevant(path, 0.0))
        item.score += amount
        if why not in item.why:
            item.why.append(why)

    hits = notes_index.search(conn, fts_match(task_terms(task or "")), BM25_CANDIDATES) if task else []
    if hits:
        top = hits[0][1] or 1.0
        for path, score in hits:
            bump(path, score / top, "matches the task")
    matched = set(found)
    for path in handoff_links:
        bump(path, HANDOFF_BONUS, "named in a recent handoff")
    for path in required_links:
        if path in matched or not task:
            bump(path, REQUIRED_LINK_BONUS, "linked from a required note")
    for path in entry_links:
        if path in matched:
            bump(path, ENTRY_LINK_BONUS, "linked from the entry note")
    skip = set(exclude)
    ranked = sorted((r for r in found.values() if r.path not in skip), key=lambda r: (-r.score, r.path))
    return ranked[:limit]
