"""The doctor page: the last report, with when it was computed, refreshed in the background.

Doctor reads the whole workspace (every run's proposals, every note, the index, the agents), which
takes seconds in a big one; a page must not. So the page shows the last report and its time, and
when that is older than `FRESH_SECONDS` it starts one refresh in a background thread (the page says
so; the next visit shows the result). The first visit, "check again", and every visit after an
action of this server (apply, revert, keep, forget: they change what doctor sees) compute it
while the person waits, so what the page shows is never older than it says.
"""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from hippo_git.team.doctor import DoctorReport

FRESH_SECONDS = 60.0


@dataclass
class DoctorView:
    """The web doctor page's cached report, when it was computed, and whether a newer one is on the way."""

    root: Path
    report: DoctorReport | None = None
    computed: float = 0.0  # time.time() when `report` was computed
    refreshing: bool = False
    dropped: float = 0.0  # when an action last made reports computed before it useless
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def invalidate(self) -> None:
        """Something this server did changed the workspace: the next visit computes afresh."""
        with self._lock:
            self.report, self.dropped = None, time.time()

    def current(self, *, fresh: bool = False) -> tuple[DoctorReport, float, bool]:
        """(report, when it was computed, whether a newer one is being computed)."""
        with self._lock:
            report, computed = self.report, self.computed
        if report is None or fresh:
            return (*self._compute(), False)
        if time.time() - computed > FRESH_SECONDS:
            with self._lock:
                start = not self.refreshing
                self.refreshing = True
            if start:
                threading.Thread(target=self._refresh, name="hippo-doctor", daemon=True).start()
        return report, computed, self.refreshing

    def _compute(self) -> tuple[DoctorReport, float]:
        from hippo_git.team.doctor import run_doctor

        started = time.time()
        report = run_doctor(self.root, probe=False)
        with self._lock:
            # A slower, older run never replaces a newer report, nor one begun before an action.
            if started >= self.computed and started >= self.dropped:
                self.report, self.computed = report, started
        return report, started

    def _refresh(self) -> None:
        try:
            self._compute()
        finally:
            with self._lock:
                self.refreshing = False


def age_text(computed: float) -> str:
    """ "12:03:04 UTC, 40 s ago": when a report was computed, for the page."""
    seconds = max(0, int(time.time() - computed))
    ago = f"{seconds} s" if seconds < 120 else f"{seconds // 60} min"
    return f"{datetime.fromtimestamp(computed, UTC):%Y-%m-%d %H:%M:%S} UTC, {ago} ago"
