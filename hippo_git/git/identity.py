"""Who and when git would stamp: GIT_AUTHOR_*/GIT_COMMITTER_* dates, as git itself reads them.

Honouring them makes runs reproducible (tests pin them; CI may too).
"""

from __future__ import annotations

import os
import re
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

_EPOCH = re.compile(r"^@?(\d+)(?:\s+([+-])(\d\d):?(\d\d))?$")


def parse_git_date(value: str) -> tuple[int, int] | None:
    """(epoch seconds, offset minutes) of a GIT_*_DATE value: ISO-8601, `@epoch ±hhmm` or RFC 2822."""
    value = value.strip()
    match = _EPOCH.match(value)
    if match:
        sign = -1 if match.group(2) == "-" else 1
        offset = sign * (int(match.group(3) or 0) * 60 + int(match.group(4) or 0))
        return int(match.group(1)), offset
    when: datetime | None = None
    try:
        when = datetime.fromisoformat(re.sub(r"\s+([+-]\d\d:?\d\d)$", r"\1", value))
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    delta = when.utcoffset()
    return int(when.timestamp()), int(delta.total_seconds() // 60) if delta else 0


def now_iso() -> str:
    """The time to stamp on records: GIT_COMMITTER_DATE when set (reproducible runs), else now, UTC."""
    pinned = (
        parse_git_date(os.environ.get("GIT_COMMITTER_DATE", ""))
        if os.environ.get("GIT_COMMITTER_DATE")
        else None
    )
    when = datetime.fromtimestamp(pinned[0], UTC) if pinned else datetime.now(UTC)
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")
