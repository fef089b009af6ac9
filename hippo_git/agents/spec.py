"""What `git hippo agent install` writes for each harness: hook events, commands, timeouts, files.

Pure data, imported by the hook handlers too, so it stays light. Our entries are identified by
their exact `command` string, and the definitions must stay byte-stable across releases: Codex
and Gemini trust a project hook by the hash of its definition, so any change here un-trusts it on
every machine (AGENT-INTEGRATION §2, §4).
"""

from __future__ import annotations

from dataclasses import dataclass

HARNESSES = ("claude-code", "codex", "cursor", "gemini")

# The kinds of work a hook does (the handler dispatches on these).
SESSION_START = "session-start"
PROMPT = "prompt"
PRE_COMPACT = "pre-compact"
SESSION_END = "session-end"
STOP = "stop"

MCP_COMMAND = "git"
MCP_ARGS = ("hippo", "mcp")
MCP_NAME = "hippo"  # Gemini forbids underscores in the alias; keep it one word

BLOCK_BEGIN = "<!-- hippo-git:begin -->"
BLOCK_END = "<!-- hippo-git:end -->"


@dataclass(frozen=True)
class HookSpec:
    """One hook a harness runs: its event, our `git hippo hook` name, timeout and optional matcher."""

    event: str  # the harness's event key, e.g. "SessionStart"
    name: str  # our hook name: the command is `git hippo hook <name>`
    kind: str  # SESSION_START | PROMPT | PRE_COMPACT | SESSION_END | STOP
    timeout: int  # in the harness's unit (seconds, or milliseconds for Gemini)
    matcher: str | None = None
    label: str | None = None  # Gemini's per-hook "name"

    @property
    def command(self) -> str:
        return f"git hippo hook {self.name}"


@dataclass(frozen=True)
class HarnessSpec:
    """Everything `agent install` writes for a harness: hooks file and style, MCP entry, instruction files."""

    name: str  # claude-code | codex | cursor | gemini
    transcript_harness: str  # the adapter name in hippo_git.transcripts.registry
    hooks_file: str  # relative to the workspace root
    hooks_style: str  # "grouped" (event → matcher groups → handlers) | "flat" (Cursor: event → handlers)
    hooks: tuple[HookSpec, ...]
    mcp_file: str
    mcp_style: str  # "json" (mcpServers.hippo) | "toml" ([mcp_servers.hippo])
    mcp_entry: dict[str, object]
    block_file: str | None = None  # Markdown file holding our marked block
    rule_file: str | None = None  # a whole file we own (Cursor rule)


def _mcp_json(with_type: bool, **extra: object) -> dict[str, object]:
    entry: dict[str, object] = {"type": "stdio"} if with_type else {}
    entry.update({"command": MCP_COMMAND, "args": list(MCP_ARGS)})
    entry.update(extra)
    return entry


SPECS: dict[str, HarnessSpec] = {
    "claude-code": HarnessSpec(
        name="claude-code",
        transcript_harness="claude-code",
        hooks_file=".claude/settings.json",
        hooks_style="grouped",
        hooks=(
            HookSpec("SessionStart", "session-start", SESSION_START, 10),
            HookSpec("UserPromptSubmit", "prompt", PROMPT, 10),
            HookSpec("PreCompact", "pre-compact", PRE_COMPACT, 10),
            # SessionEnd shares a 1.5 s budget (raised to the largest declared timeout): the handler
            # detaches the ingest and returns at once, so a small timeout is enough.
            HookSpec("SessionEnd", "session-end", SESSION_END, 5),
        ),
        mcp_file=".mcp.json",
        mcp_style="json",
        mcp_entry=_mcp_json(True),
    ),
    "codex": HarnessSpec(
        name="codex",
        transcript_harness="codex",
        hooks_file=".codex/hooks.json",
        hooks_style="grouped",
        hooks=(
            HookSpec(
                "SessionStart",
                "codex-session-start",
                SESSION_START,
                10,
                matcher="startup|resume|clear|compact",
            ),
            HookSpec("UserPromptSubmit", "codex-prompt", PROMPT, 10),
            HookSpec("PreCompact", "codex-pre-compact", PRE_COMPACT, 10),
            HookSpec("Stop", "codex-stop", STOP, 10),
        ),
        mcp_file=".codex/config.toml",
        mcp_style="toml",
        mcp_entry=_mcp_json(False),
        block_file="AGENTS.md",
    ),
    "cursor": HarnessSpec(
        name="cursor",
        transcript_harness="cursor",
        hooks_file=".cursor/hooks.json",
        hooks_style="flat",
        hooks=(
            HookSpec("sessionStart", "cursor-session-start", SESSION_START, 10),
            HookSpec("beforeSubmitPrompt", "cursor-prompt", PROMPT, 10),
            HookSpec("preCompact", "cursor-pre-compact", PRE_COMPACT, 10),
            HookSpec("sessionEnd", "cursor-session-end", SESSION_END, 10),
        ),
        mcp_file=".cursor/mcp.json",
        mcp_style="json",
        mcp_entry=_mcp_json(True),
        rule_file=".cursor/rules/hippo.mdc",
    ),
    "gemini": HarnessSpec(
        name="gemini",
        transcript_harness="gemini-cli",
        hooks_file=".gemini/settings.json",
        hooks_style="grouped",
        hooks=(  # Gemini timeouts are in milliseconds
            HookSpec("SessionStart", "gemini-session-start", SESSION_START, 10000, label="hippo-context"),
            HookSpec("BeforeAgent", "gemini-prompt", PROMPT, 10000, label="hippo-prompt"),
            HookSpec("PreCompress", "gemini-pre-compress", PRE_COMPACT, 10000, label="hippo-precompress"),
            HookSpec("SessionEnd", "gemini-session-end", SESSION_END, 10000, label="hippo-end"),
        ),
        mcp_file=".gemini/settings.json",
        mcp_style="json",
        mcp_entry=_mcp_json(False, timeout=30000),
        block_file="GEMINI.md",
    ),
}

# hook name → (harness, hook spec): how a handler knows which harness called it.
EVENTS: dict[str, tuple[str, HookSpec]] = {
    hook.name: (spec.name, hook) for spec in SPECS.values() for hook in spec.hooks
}

# The detached background ingest re-enters through `git hippo hook` with this name.
INGEST_EVENT = "ingest-transcript"
# ... and the detached build of the notes index a hook's budget cut short, with this one.
NOTES_INDEX_EVENT = "notes-index"


def handler_entry(spec: HarnessSpec, hook: HookSpec) -> dict[str, object]:
    """The handler object we put in the harness's hook file (key order is part of the stable shape)."""
    if spec.hooks_style == "flat":
        return {"command": hook.command, "timeout": hook.timeout}
    entry: dict[str, object] = {}
    if hook.label:
        entry["name"] = hook.label
    entry.update({"type": "command", "command": hook.command, "timeout": hook.timeout})
    return entry


def workspace_key(root: str) -> str:
    """A short stable name for a workspace (heartbeats, per-session state)."""
    import hashlib

    return hashlib.sha256(root.encode("utf-8", "surrogateescape")).hexdigest()[:16]
