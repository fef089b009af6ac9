"""Dates and time words in a search query ("yesterday", "last week", "in May 2023", "on 8 May,
2023", "2023-05-08", "3 days ago"), read as a span of time.

A question that names a time means the sessions of that time, not the turns that happen to hold
the word "May": the words are taken out of the query and `search` boosts turns whose time falls
in the span. Relative words count from `now` (UTC). Times are compared as ISO strings, as the
index stores them.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta

MONTHS = {
    name: n
    for n, names in enumerate(
        [
            ("january", "jan"),
            ("february", "feb"),
            ("march", "mar"),
            ("april", "apr"),
            ("may",),
            ("june", "jun"),
            ("july", "jul"),
            ("august", "aug"),
            ("september", "sep", "sept"),
            ("october", "oct"),
            ("november", "nov"),
            ("december", "dec"),
        ],
        start=1,
    )
    for name in names
}
_MONTH = "(?P<month>" + "|".join(sorted(MONTHS, key=len, reverse=True)) + r")\.?"
_DAY = r"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?"
_YEAR = r"(?P<year>(?:19|20)\d\d)"
_UNITS = {"day": 1, "days": 1, "week": 7, "weeks": 7, "month": 30, "months": 30, "year": 365, "years": 365}

# Most specific first: a full date before a month and year before a bare year.
_BODIES: tuple[tuple[str, str], ...] = (
    ("iso", r"(?P<year>(?:19|20)\d\d)-(?P<month>[01]\d)-(?P<day>[0-3]\d)"),
    ("date", rf"{_DAY}\s+(?:of\s+)?{_MONTH},?\s+{_YEAR}"),
    ("date", rf"{_MONTH}\s+{_DAY},?\s+{_YEAR}"),
    ("month", rf"{_MONTH},?\s+{_YEAR}"),
    (
        "ago",
        r"(?P<count>\d+|a|an|one|two|three|four|five|six)\s+(?P<unit>days?|weeks?|months?|years?)\s+ago",
    ),
    ("word", r"(?P<word>yesterday|today|tonight|this\s+morning)"),
    ("last", r"(?:the\s+)?(?P<rel>last|past|previous|this)\s+(?P<unit>week|month|year|weekend)"),
    ("year", r"(?:in|during|of)\s+(?P<year>(?:19|20)\d\d)"),
)
# Words without which a query names no time: most queries are turned away by this set, before the
# patterns (compiling them costs a cold `git hippo search` more than the query does).
_CUES = frozenset(MONTHS) | {
    "yesterday",
    "today",
    "tonight",
    "morning",
    "ago",
    "last",
    "past",
    "previous",
    "this",
}
_TOKEN = re.compile(r"[a-z]+|\d")


@functools.cache
def _patterns() -> tuple[tuple[str, re.Pattern[str]], ...]:
    return tuple(
        (kind, re.compile(rf"\b(?:(?:on|in|during|since|of)\s+)?{body}\b", re.IGNORECASE))
        for kind, body in _BODIES
    )


_NUMBERS = {"a": 1, "an": 1, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}


@dataclass(frozen=True)
class TimeSpan:
    """The time a query names ("last week", "in May 2023"), as ISO bounds."""

    start: str  # ISO, inclusive
    end: str  # ISO, exclusive
    words: str  # the words of the query that named it

    def holds(self, when: str | None) -> bool:
        return when is not None and self.start <= when < self.end


def _iso(moment: datetime) -> str:
    return moment.strftime("%Y-%m-%dT%H:%M:%S")


def _span(kind: str, m: re.Match[str], now: datetime) -> tuple[datetime, datetime] | None:
    groups = m.groupdict()
    today = now.replace(hour=0, minute=0, second=0, microsecond=0)
    if kind in ("iso", "date"):
        month = int(groups["month"]) if kind == "iso" else MONTHS[groups["month"].lower()]
        try:
            day = datetime(int(groups["year"]), month, int(groups["day"]), tzinfo=UTC)
        except ValueError:
            return None
        return day, day + timedelta(days=1)
    if kind == "month":
        year, month = int(groups["year"]), MONTHS[groups["month"].lower()]
        first = datetime(year, month, 1, tzinfo=UTC)
        return first, datetime(year + month // 12, month % 12 + 1, 1, tzinfo=UTC)
    if kind == "year":
        year = int(groups["year"])
        return datetime(year, 1, 1, tzinfo=UTC), datetime(year + 1, 1, 1, tzinfo=UTC)
    if kind == "ago":
        count = groups["count"].lower()
        n = int(count) if count.isdigit() else _NUMBERS[count]
        days = n * _UNITS[groups["unit"].lower()]
        slack = max(1, days // 7)  # "3 weeks ago" is roughly, not exactly, 21 days
        centre = today - timedelta(days=days)
        return centre - timedelta(days=slack), centre + timedelta(days=slack + 1)
    if kind == "word":
        word = " ".join(groups["word"].lower().split())
        if word == "yesterday":
            return today - timedelta(days=1), today
        return today, today + timedelta(days=1)
    unit, rel = groups["unit"].lower(), groups["rel"].lower()
    if unit == "weekend":
        saturday = today - timedelta(days=(today.weekday() - 5) % 7)
        if rel != "this" and saturday + timedelta(days=2) > now:
            saturday -= timedelta(days=7)
        return saturday, saturday + timedelta(days=2)
    length = _UNITS[unit]
    if rel == "this":
        return today - timedelta(days=length), now + timedelta(seconds=1)
    return today - timedelta(days=2 * length if rel == "last" else length), now + timedelta(seconds=1)


def find_time(query: str, now: datetime | None = None) -> tuple[TimeSpan | None, str]:
    """(the span the query names, if any; the query without those words)."""
    if not _CUES.intersection(_TOKEN.findall(query.lower())) and not any(c.isdigit() for c in query):
        return None, query
    now = now or datetime.now(UTC)
    for kind, pattern in _patterns():
        m = pattern.search(query)
        if m is None:
            continue
        span = _span(kind, m, now)
        if span is None:
            continue
        rest = (query[: m.start()] + " " + query[m.end() :]).strip()
        return TimeSpan(_iso(span[0]), _iso(span[1]), m.group(0)), rest
    return None, query
