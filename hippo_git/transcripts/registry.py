"""Which adapter reads which harness. Adapters are imported only when their harness is used."""

from __future__ import annotations

import importlib

from hippo_git.errors import UsageError
from hippo_git.transcripts.model import Adapter

# harness name → module under hippo_git.transcripts holding a module-level `ADAPTER`.
ADAPTERS: dict[str, str] = {
    "claude-code": "claude_code",
    "codex": "codex",
    "opencode": "opencode",
    "gemini-cli": "gemini",
    "cursor": "cursor",
    "deepseek-harness": "deepseek",
    "muse-code": "muse",
    "command-code": "command_code",
    "aider": "aider",
}


def harness_names() -> tuple[str, ...]:
    return tuple(ADAPTERS)


_LOADED: dict[str, Adapter] = {}


def get_adapter(harness: str) -> Adapter:
    adapter = _LOADED.get(harness)
    if adapter is not None:
        return adapter  # ingest asks once per source: `import_module` of a loaded module still locks
    module = ADAPTERS.get(harness)
    if module is None:
        raise UsageError(
            f"unknown harness {harness!r}",
            hint="choose one of: " + ", ".join(ADAPTERS),
        )
    loaded: Adapter = importlib.import_module(f"hippo_git.transcripts.{module}").ADAPTER
    _LOADED[harness] = loaded
    return loaded
