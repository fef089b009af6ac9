"""Which notes are relevant to a task: BM25 over the notes index, title matches, nudged by links.

BM25 alone fails where the task's words are in most notes (a billing service's notes all say
"billing"): their weight goes to about zero and long notes win. So the notes whose title or file
name holds the task's words are candidates too, and a note gains by how much of the task its title
covers, how much of its title the task covers, and the longest run of the task's words it holds in
order (a phrase match), whatever those words' frequency.

A note gains when the required notes link to it (someone judged it central) and when a recent
session's handoff names it (work in progress). Without a task, the handoffs' notes come first,
then the notes the required notes link to.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Iterable

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
TITLE_CANDIDATES = 30
HOP_FROM = 3  # the best matches whose links are followed one hop
HOP_SHARE = 0.5  # the share of a matching note's score that a note it links to gains
BM25_SOLID = 2.0  # a top BM25 score from which the ranking is trusted fully
TITLE_WEIGHT = 0.5  # measured: 1.0 lost a case of tests/data/recall, 0.5 none
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

    terms = task_terms(task or "")
    hits = notes_index.search(conn, fts_match(terms), BM25_CANDIDATES) if terms else []
    if hits:
        top = hits[0][1] or 1.0
        # BM25 ranks by rare words; when every word of the task is common its scores are near zero
        # and their order says little, so they count for less against title matches.
        trust = min(1.0, top / BM25_SOLID)
        for path, score in hits:
            bump(path, trust * score / top, "matches the task")
    if terms:
        titled = notes_index.search(conn, "{title names} : (" + fts_match(terms) + ")", TITLE_CANDIDATES)
        for path, note in notes_index.notes_by_path(conn, [p for p, _ in hits + titled]).items():
            gain = title_match(terms, note.title, note.name)
            if gain > 0:
                bump(path, TITLE_WEIGHT * gain, "its title matches the task")
    matched = set(found)
    skip = set(exclude)
    _one_hop(conn, [r for r in found.values() if r.path not in skip], bump)
    for path in handoff_links:
        bump(path, HANDOFF_BONUS, "named in a recent handoff")
    for path in required_links:
        if path in matched or not task:
            bump(path, REQUIRED_LINK_BONUS, "linked from a required note")
    for path in entry_links:
        if path in matched:
            bump(path, ENTRY_LINK_BONUS, "linked from the entry note")
    ranked = sorted((r for r in found.values() if r.path not in skip), key=lambda r: (-r.score, r.path))
    return ranked[:limit]


def _one_hop(
    conn: sqlite3.Connection, found: list[Relevant], bump: Callable[[str, float, str], None]
) -> None:
    """Notes the best matches link to gain a share of their score: the graph's one hop. (Notes
    already shown, such as the required ones, count through `required_links` instead.)"""
    best = sorted(found, key=lambda r: (-r.score, r.path))[:HOP_FROM]
    if not best:
        return
    resolver = notes_index.IndexResolver(conn)
    for item, note in ((r, notes_index.notes_by_path(conn, [r.path]).get(r.path)) for r in best):
        if note is None:
            continue
        for link in note.links:
            dest = resolver.resolve(link.target).path
            if dest is not None and dest != item.path:
                bump(dest, HOP_SHARE * item.score, f"linked from {item.path}")


def _stem(word: str) -> str:
    """A light stem, so "tests" meets "test" (the index's Porter stemmer is not at hand in Python)."""
    for suffix in ("ing", "es", "ed", "s"):
        if word.endswith(suffix) and len(word) - len(suffix) >= 3:
            return word[: -len(suffix)]
    return word


def title_match(terms: list[str], title: str, name: str) -> float:
    """How well a note's title and file name match the task's terms, 0 when they share no word:
    the share of the terms they hold, the share of their words that are terms, and the longest run
    of consecutive terms found in the title in the same order (as a share of the terms)."""
    wanted = [_stem(t) for t in terms]
    title_words = [_stem(w) for w in _WORD.findall(title.lower()) if w not in STOPWORDS]
    name_words = [_stem(w) for w in _WORD.findall(name.lower().removesuffix(".md")) if w not in STOPWORDS]
    own = set(title_words) | set(name_words)
    if not wanted or not own & set(wanted):
        return 0.0
    coverage = len(own & set(wanted)) / len(set(wanted))
    precision = len(own & set(wanted)) / len(own)
    run = 0
    for words in (title_words, name_words):
        for i in range(len(wanted)):
            for j in range(len(words)):
                k = 0
                while i + k < len(wanted) and j + k < len(words) and wanted[i + k] == words[j + k]:
                    k += 1
                run = max(run, k)
    phrase = run / len(wanted) if run > 1 else 0.0
    return 0.6 * coverage + 0.4 * precision + phrase
