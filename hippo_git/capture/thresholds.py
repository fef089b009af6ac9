"""When an agent session is captured: after `capture.turns` user turns or `capture.minutes` since
the last capture, and always at compaction and at the session's end.

On the agent-hook path (every prompt): standard library only.
"""

from __future__ import annotations

from hippo_git.config import CaptureSettings

ALWAYS = frozenset({"pre-compact", "session-end"})  # Codex's "stop" ends a turn: thresholds apply


def capture_due(
    kind: str, prompts_since: int, seconds_since: float | None, settings: CaptureSettings
) -> bool:
    """`kind`: the hook's kind; `seconds_since`: since the last capture (None: never captured)."""
    if kind in ALWAYS:
        return True
    if prompts_since >= settings.turns:
        return True
    return seconds_since is not None and seconds_since >= settings.minutes * 60
