"""The one gate between adapter values and index columns (invariant 2).

Every string ingest stores — turn text, tool names, paths, titles, cwd, ids, cursor state,
error messages — passes through `transcripts.redact.Redactor` here. Short strings that repeat
(tool names, cwd, paths) are memoised once they are known to hold nothing to redact, so the
counts stay exact: a string with a secret is redacted (and counted) every time it appears.
"""

from __future__ import annotations

import re
from typing import Any

from hippo_git.transcripts.redact import Redactor

# Timestamps are stored as given when they look like ISO-8601; anything else is treated as text.
_ISO_TS = re.compile(r"\d{4}-\d\d-\d\d(?:[T ][0-9:.]{2,18}(?:Z|[+-]\d\d:?\d\d)?)?")
# Adapters cap long tool text before it gets here (`transcripts.jsonl.cap`); the cut may fall inside
# a secret, leaving a prefix too short for any pattern. The word the cut ended in is dropped.
_CAP_MARK = re.compile(r"\n\[… \d+ more characters not indexed\]\Z")
_MEMO_MAX_CHARS = 512
_MEMO_MAX_ENTRIES = 50_000


def _drop_cut_word(value: str) -> str:
    """`value` without the word a size cap cut through (the run of non-blanks before the marker)."""
    mark = _CAP_MARK.search(value, max(0, len(value) - 80))
    if mark is None:
        return value
    head = value[: mark.start()]
    if head and not head[-1].isspace():
        head = head[: len(head) - len(head.rsplit(None, 1)[-1])]
    return head + value[mark.start() :]


class Scrubber:
    def __init__(self, redactor: Redactor | None = None) -> None:
        self.redactor = redactor if redactor is not None else Redactor()
        self._clean: set[str] = set()

    @property
    def counts(self) -> dict[str, int]:
        return dict(self.redactor.counts)

    def mark(self) -> dict[str, int]:
        """The counts so far, to `reset` to when the writes since are undone."""
        return dict(self.redactor.counts)

    def reset(self, mark: dict[str, int]) -> None:
        self.redactor.counts.clear()
        self.redactor.counts.update(mark)

    def start_session(self) -> None:
        """Echoes (see `Redactor`) are remembered from here on, and those of the session before
        forgotten."""
        self.redactor.start_echoes()

    def text(self, value: str) -> str:
        if value.endswith("not indexed]"):
            value = _drop_cut_word(value)
        return self.redactor.redact(value)

    def small(self, value: str) -> str:
        """For short strings that repeat (names, paths, ids): memoised when clean."""
        echoes = self.redactor.echoes
        if value in self._clean and not echoes:
            return value
        out = self.redactor.redact(value)
        if out == value and len(value) <= _MEMO_MAX_CHARS and not echoes:
            if len(self._clean) >= _MEMO_MAX_ENTRIES:
                # Full, mostly of strings seen once (cursor states' ids): start again rather than
                # stop learning the names and paths of the sources still to come.
                self._clean.clear()
            self._clean.add(value)
        return out

    def opt(self, value: str | None) -> str | None:
        return None if value is None else self.small(str(value))

    def ts(self, value: str | None) -> str | None:
        if value is None:
            return None
        value = str(value)
        return value if _ISO_TS.fullmatch(value) else self.small(value)

    def state(self, value: Any) -> Any:
        """Redact every string inside adapter cursor state (keys too), keeping its JSON shape.
        Every source's state repeats its keys and most of its names: the memo is looked up here
        before any call."""
        if isinstance(value, str):
            if len(value) > _MEMO_MAX_CHARS:
                return self.text(value)
            # Times (a session's first and last) are kept as given, as `ts` keeps a turn's: each
            # is new, so the memo never spares their redaction.
            return value if _ISO_TS.fullmatch(value) else self.small(value)
        if isinstance(value, dict):
            clean, small, state = self._clean, self.small, self.state
            return {
                (k if type(k) is str and k in clean else small(str(k))): (
                    v if type(v) is str and v in clean else state(v)
                )
                for k, v in value.items()
            }
        if isinstance(value, list | tuple):
            clean, state = self._clean, self.state
            return [v if type(v) is str and v in clean else state(v) for v in value]
        return value
