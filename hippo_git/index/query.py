"""How a plain-words search query becomes index terms.

The index tokenises text with FTS5's `unicode61` (letters and digits make words, everything else
separates them, diacritics removed) and then Porter-stems it. A query is cut the same way, so
`doctor's` is the word `doctor` (the lone `s` is dropped), `high-impact` is the two words `high`
and `impact`, and `snake_case` is `snake` and `case`. Each term is quoted for FTS5, so nothing in
a query is FTS5 syntax. Stop words are dropped when other words remain, but a stop word written in
capitals (`SO`, `IT`, `US`) is a name and is kept.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

# A word as `unicode61` sees one: letters and digits; `_` separates like punctuation.
WORD = re.compile(r"[^\W_]+", re.UNICODE)
STOPWORDS = frozenset(
    [
        "a",
        "about",
        "after",
        "all",
        "also",
        "am",
        "an",
        "and",
        "any",
        "are",
        "as",
        "at",
        "be",
        "been",
        "before",
        "but",
        "by",
        "can",
        "could",
        "did",
        "do",
        "does",
        "for",
        "from",
        "had",
        "has",
        "have",
        "he",
        "her",
        "hers",
        "him",
        "his",
        "how",
        "i",
        "if",
        "in",
        "into",
        "is",
        "it",
        "its",
        "just",
        "me",
        "my",
        "no",
        "not",
        "of",
        "on",
        "or",
        "our",
        "out",
        "she",
        "so",
        "some",
        "than",
        "that",
        "the",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "this",
        "to",
        "too",
        "up",
        "us",
        "was",
        "we",
        "were",
        "what",
        "when",
        "where",
        "which",
        "who",
        "whom",
        "why",
        "will",
        "with",
        "would",
        "you",
        "your",
    ]
)


@dataclass(frozen=True)
class Terms:
    """A query's words as the index holds them."""

    words: tuple[str, ...]  # index words, lowercased, in query order, each once

    def expression(self) -> str:
        """The FTS5 expression: any of the words (ranking rewards turns that hold more of them)."""
        return " OR ".join(quote(w) for w in self.words)


def quote(token: str) -> str:
    return '"' + token.replace('"', '""') + '"'


def _is_stop(token: str) -> bool:
    if len(token) > 1 and token.isupper():
        return False  # an acronym or a name: SO, IT, US
    return token.lower() in STOPWORDS


def query_terms(query: str) -> Terms:
    """The words of a plain query, cut as the index cuts text; stop words dropped when others remain."""
    tokens = WORD.findall(query)
    # A lone letter is the tail of a contraction or possessive (doctor's, don't): no meaning alone.
    tokens = [t for t in tokens if len(t) > 1 or t.isdigit()] or tokens
    meaningful = [t for t in tokens if not _is_stop(t)] or tokens
    return Terms(tuple(dict.fromkeys(t.lower() for t in meaningful)))
