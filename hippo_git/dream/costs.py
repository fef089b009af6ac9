"""Cost guards: a cap on model calls and on prompt bytes for one `git hippo dream` invocation.

The caps come from hippo.toml (`dream.max_model_calls`, `dream.max_bytes`). A call that would pass
either is not made: the run stops, says so in its report, and the next `git hippo dream` resumes
the run where it stopped with a fresh budget. The built-in offline model costs nothing, so its
calls are counted but never capped: a day's run with it never stops partway on a guard.
"""

from __future__ import annotations

from typing import Protocol

from hippo_git.dream.runner import Model, ModelOutput
from hippo_git.errors import HippoError


class CostGuardReached(HippoError):
    """A per-run cap on model calls or prompt bytes (hippo.toml [dream]) was reached."""


class Tally(Protocol):
    """Where a call's cost is booked (a pass's entry in the run report)."""

    model_calls: int
    bytes_in: int
    bytes_out: int
    seconds: float


class CostGuard:
    def __init__(self, max_calls: int, max_bytes: int, *, capped: bool = True) -> None:
        self.max_calls = max_calls
        self.max_bytes = max_bytes
        self.capped = capped
        self.calls = 0
        self.bytes_in = 0

    def call(self, model: Model, prompt: str, tally: Tally) -> ModelOutput:
        """Run one model call if the caps allow it, booking its cost on `tally`."""
        size = len(prompt.encode("utf-8"))
        hint = "raise it in .hippo/hippo.toml [dream], or run `git hippo dream` again to go on with a fresh budget"
        if self.capped and self.calls + 1 > self.max_calls:
            raise CostGuardReached(f"the run reached dream.max_model_calls = {self.max_calls}", hint=hint)
        if self.capped and self.bytes_in + size > self.max_bytes:
            raise CostGuardReached(
                f"the next prompt would pass dream.max_bytes = {self.max_bytes} bytes in this run", hint=hint
            )
        self.calls += 1
        self.bytes_in += size
        out = model(prompt)
        tally.model_calls += 1
        tally.bytes_in += out.bytes_in
        tally.bytes_out += out.bytes_out
        tally.seconds += out.seconds
        return out
