"""Claude Code content blocks and system lines → the text of a turn.

Pure functions over plain dicts, used by `claude_code`. Kept apart so the adapter module is only
about routing records to sessions and carrying state across incremental reads.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hippo_git.transcripts.jsonl import cap, render_fields, text_of
from hippo_git.transcripts.model import TOOL_TEXT_CAP

# Files under a Claude config folder that are JSONL but not transcripts.
NOT_TRANSCRIPTS = frozenset({"history.jsonl", "journal.jsonl"})
# Record types that are known and carry nothing to index (checkpoints, UI state, links).
QUIET_TYPES = frozenset(
    {
        "file-history-snapshot",
        "queue-operation",
        "permission-mode",
        "mode",
        "agent-name",
        "last-prompt",
        "pr-link",
        "frame-link",
        "worktree-state",
        "tag",
        "bridge-session",
        "started",
        "result",
        "relocated",
    }
)


def is_subagent_file(path: Path) -> bool:
    """`agent-<agentId>.jsonl` (agent ids have no dashes) or any file under a `subagents/` folder."""
    name = path.name
    if not name.startswith("agent-"):
        return False
    return "-" not in name[len("agent-") :] or "subagents" in path.parts


# User-line text that the harness wrote, not the person: local command output, interruptions.
NOTICE_PREFIXES = (
    "<local-command-stdout>",
    "<local-command-stderr>",
    "<local-command-caveat>",
    "<bash-stdout>",
    "<bash-stderr>",
    "[Request interrupted",
    "Caveat: The messages below were generated",
)

# Files a tool call names and whether it writes them. Keys and tools as Claude Code's own tools
# use them; `path` (Grep/Glob/LS) names folders to search, not files read, so it is left out.
_PATH_KEYS = ("file_path", "notebook_path")
_EDIT_TOOLS = frozenset({"edit", "write", "multiedit", "notebookedit"})

# `system` subtypes that carry no text worth a turn (timings, hook bookkeeping).
SILENT_SYSTEM = frozenset(
    {"session_start", "stop_hook_summary", "turn_duration", "bridge_status", "away_summary"}
)


def tool_call(name: str, value: Any) -> tuple[str, tuple[str, ...], bool]:
    """(text, paths, edited) for a `tool_use` block."""
    text = cap(render_fields(value), TOOL_TEXT_CAP)
    if not isinstance(value, dict):
        return text, (), False
    paths = tuple(p for key in _PATH_KEYS if isinstance(p := value.get(key), str) and p)
    return text, paths, bool(paths) and name.lower() in _EDIT_TOOLS


def tool_result_text(block: dict[str, Any]) -> str:
    """The text of a `tool_result` block (string or block-list content; images dropped)."""
    text = text_of(block.get("content"))
    if not text:
        text = text_of(block.get("text"))
    return cap(text.strip(), TOOL_TEXT_CAP)


def error_text(err: Any) -> str:
    """A readable line from the many shapes of Claude Code's `error` field."""
    if isinstance(err, str):
        return err
    if not isinstance(err, dict):
        return ""
    for key in ("formatted", "message"):
        value = err.get(key)
        if isinstance(value, str) and value:
            break
    else:
        value = error_text(err.get("error")) or str(err.get("type") or "")
    status = err.get("status")
    if isinstance(status, int) and status:
        return f"{status}: {value}" if value else str(status)
    return value


def system_turn(rec: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, text) for a `system` line, or None when it carries nothing to index."""
    subtype = rec.get("subtype")
    content = rec.get("content")
    if subtype in ("compact_boundary", "microcompact_boundary"):
        meta = rec.get("compactMetadata")
        text = "Conversation compacted"
        if isinstance(meta, dict):
            trigger = meta.get("trigger")
            tokens = meta.get("preTokens")
            details = [f"trigger: {trigger}"] if isinstance(trigger, str) else []
            if isinstance(tokens, int) and tokens:
                details.append(f"{tokens} tokens before")
            if details:
                text += f" ({', '.join(details)})"
        if subtype == "microcompact_boundary":
            text = "Tool results cleared (micro-compaction)"
        return "system", text
    if subtype in ("api_error", "error"):
        text = error_text(rec.get("error")) or (content if isinstance(content, str) else "")
        return "error", f"API error: {text}" if text else "API error"
    if subtype == "api_refusal":
        why = rec.get("apiRefusalExplanation")
        return "error", f"API refusal: {why}" if isinstance(why, str) and why else "API refusal"
    if subtype in SILENT_SYSTEM or not isinstance(content, str) or not content.strip():
        return None
    return "system", content.strip()
