"""Codex rollout items (ResponseItem payloads, tool outputs, patches) → the text of a turn.

Pure functions over plain dicts, used by `codex`.
"""

from __future__ import annotations

from typing import Any

from hippo_git.transcripts.jsonl import cap, render_fields, text_of, tool_paths
from hippo_git.transcripts.jsonl_decode import loads_json
from hippo_git.transcripts.model import TOOL_TEXT_CAP

# User-role messages the harness injects (environment, AGENTS.md, instructions); never a prompt.
INJECTED_PREFIXES = (
    "<environment_context",
    "<user_instructions",
    "<turn_aborted",
    "<permissions",
    "<user_shell_command",
    "<subagent_notification",
    "<skill",
    "<collaboration_mode",
    "<INSTRUCTIONS",
    "<user_action",
    "<model_switch",
    "<personality",
    "# AGENTS.md",
)

# event_msg subtypes that echo something a response_item or `compacted` line already holds.
ECHO_EVENTS = frozenset(
    {
        "agent_message",
        "agent_reasoning",
        "agent_reasoning_raw_content",
        "agent_reasoning_section_break",
        "exec_command_end",
        "mcp_tool_call_end",
        "patch_apply_end",
        "web_search_end",
        "image_generation_end",
        "view_image_tool_call",
        "dynamic_tool_call_request",
        "dynamic_tool_call_response",
        "context_compacted",
        "item_completed",
    }
)

# Response items that are known and carry nothing to index.
QUIET_ITEMS = frozenset(
    {
        "ghost_snapshot",
        "tool_search_output",
        "compaction",
        "context_compaction",
        "compaction_summary",
        "additional_tools",
    }
)

_EXIT_MARKERS = ("Process exited with code ", "Exit code: ")


def message_text(content: Any) -> str:
    """input_text/output_text blocks joined; images and encrypted parts dropped."""
    if isinstance(content, list):
        parts = [
            block["text"]
            for block in content
            if isinstance(block, dict) and isinstance(block.get("text"), str) and block["text"]
        ]
        return "\n".join(parts).strip()
    return text_of(content).strip()


def is_injected(text: str) -> bool:
    return text.startswith(INJECTED_PREFIXES)


def parse_arguments(arguments: Any) -> Any:
    """`function_call.arguments` is a JSON string; a dict when it parses, else the raw value."""
    if isinstance(arguments, str) and arguments.startswith("{"):
        try:
            return loads_json(arguments)
        except ValueError:
            return arguments
    return arguments


def call_turn(name: str, args: Any) -> tuple[str, tuple[str, ...], bool]:
    """(text, paths, edited) for a function/custom/local-shell call."""
    text = render_fields(args)
    paths, edited = tool_paths(name, args)
    if not paths and "*** Begin Patch" in text:
        # apply_patch run through the shell (`apply_patch <<'EOF' … EOF`) in older builds.
        paths, edited = tool_paths("apply_patch", text[text.index("*** Begin Patch") :])
    return cap(text, TOOL_TEXT_CAP), paths, edited


def shell_call(payload: dict[str, Any]) -> str:
    """`local_shell_call.action.command` as one command line."""
    action = payload.get("action")
    if not isinstance(action, dict):
        return ""
    return render_fields(action.get("command"))


def web_search_text(payload: dict[str, Any]) -> str:
    action = payload.get("action")
    if not isinstance(action, dict):
        return ""
    for key in ("query", "url", "pattern"):
        value = action.get(key)
        if isinstance(value, str) and value:
            return value
    return render_fields(action.get("queries"))


def output_turn(output: Any, payload: dict[str, Any]) -> tuple[str, bool]:
    """(text, is_error) for a function_call_output / custom_tool_call_output."""
    failed = payload.get("success") is False
    if isinstance(output, str):
        text = output
        if text.startswith('{"output"'):
            # Older builds: `{"output": "...", "metadata": {"exit_code": N, ...}}` as a string.
            try:
                wrapped = loads_json(text)
            except ValueError:
                wrapped = None
            if isinstance(wrapped, dict):
                text = text_of(wrapped.get("output"))
                meta = wrapped.get("metadata")
                code = meta.get("exit_code") if isinstance(meta, dict) else None
                failed = failed or (isinstance(code, int) and code != 0)
        else:
            failed = failed or _exit_code(text[:400]) not in (None, 0)
    else:
        text = text_of(output)
        if isinstance(output, dict) and output.get("success") is False:
            failed = True
    return cap(text.strip(), TOOL_TEXT_CAP), failed


def _exit_code(head: str) -> int | None:
    for marker in _EXIT_MARKERS:
        at = head.find(marker)
        if at != -1:
            digits = head[at + len(marker) :].split(None, 1)
            if digits and digits[0].lstrip("-").isdigit():
                return int(digits[0])
    return None


def parent_of(meta: dict[str, Any]) -> str | None:
    """The session a rollout forked from or was spawned by, from its own session_meta."""
    for key in ("forked_from_id", "parent_thread_id"):
        value = meta.get(key)
        if isinstance(value, str) and value:
            return value
    source = meta.get("source")
    if isinstance(source, dict):
        sub = source.get("subagent")
        if isinstance(sub, dict):
            spawn = sub.get("thread_spawn")
            if isinstance(spawn, dict):
                value = spawn.get("parent_thread_id")
                if isinstance(value, str) and value:
                    return value
    return None


def error_event(payload: dict[str, Any]) -> str | None:
    """The error an `error` or failed `task_complete` event reports, if any."""
    if payload.get("type") == "error":
        message = payload.get("message")
        return message if isinstance(message, str) and message else "error"
    err = payload.get("error")
    if isinstance(err, dict):
        message = err.get("message")
        return message if isinstance(message, str) and message else "turn failed"
    return None
