"""`index.prepare` turning an adapter's turns into rows: every field passes the redactor, and the
shortcuts taken on the way (a time shared by consecutive turns is checked once) change no row
and no count."""

from __future__ import annotations

from hippo_git.index.prepare import _turn_rows
from hippo_git.index.scrub import Scrubber
from hippo_git.transcripts.model import ANSWER, PROMPT, Turn

KEY = "ghp_" + "A1b2C3d4E5f6G7h8I9j0K1l2M3n4O5p6Q7r8"


def test_times_shared_by_turns_are_kept_and_a_secret_in_one_is_redacted_each_time() -> None:
    iso = "2026-01-05T10:00:00.123Z"
    odd = f"token {KEY}"  # no time at all: redacted like any other text
    turns = [
        Turn(0, PROMPT, "a", iso),
        Turn(1, ANSWER, "b", iso),
        Turn(2, ANSWER, "c", odd),
        Turn(3, ANSWER, "d", odd),
        Turn(4, ANSWER, "e", None),
        Turn(5, ANSWER, "f", iso),
    ]
    scrub = Scrubber()
    rows, _, _ = _turn_rows(scrub, turns)
    times = [row[3] for row in rows]
    assert times[:2] == [iso, iso] and times[4:] == [None, iso]
    assert times[2] == times[3] and KEY not in str(times[2]) and "[redacted:" in str(times[2])
    assert sum(scrub.counts.values()) == 2  # one redaction per turn that held it
