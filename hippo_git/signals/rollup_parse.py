"""Reading indexed tool turns back into structured values for the rollup rules.

Adapters render a tool input as text in one of three shapes (see `transcripts.jsonl.render_fields`):
`key: value` lines (Claude Code, Codex), `<tool> {json}` (Gemini CLI, Cursor, OpenCode, DeepSeek
Harness), or the raw string. These helpers turn that text back into fields, find the shell command
a call ran, the exit status its output reports, and the lines an edit changed. Pure functions over
strings; no SQL, no rules about what is good or bad (those live in `rules*.py`).
"""

from __future__ import annotations

import json
import re
import shlex
from collections.abc import Sequence
from functools import lru_cache
from typing import Any

from hippo_git.signals.rollup_facts import Turn
from hippo_git.transcripts.model import PROMPT, TOOL_CALL, TOOL_OUTPUT

# Keys that start a new field in `key: value` text. A value may span lines (code, patches), so
# only known keys split fields: a line of code that happens to look like `foo: bar` stays put.
FIELD_KEYS = frozenset(
    """
    command cmd description timeout run_in_background workdir cwd yield_time_ms max_output_tokens
    justification sandbox_permissions with_escalated_permissions login shell env session_id chars
    bash_id shell_id task_id block filter file_path old_string new_string replace_all content edits
    notebook_path new_source cell_id cell_type edit_mode pattern path glob output_mode input patch
    prompt subagent_type query url filePath oldString newString replaceAll target_file code_edit
    instructions dir_path directory todos plan explanation offset limit sql project_id name
    arguments format is_background dangerouslyDisableSandbox file_text old_str new_str insert_line
    view_range contents text diff patchText model
    """.split()  # noqa: SIM905
)
_KEY_LINE = re.compile(r"^([A-Za-z_][A-Za-z0-9_]*): ?(.*)$")
_NAMED_JSON = re.compile(r"^([\w.:-]{1,80}) (\{.*\})\s*$", re.S)

SHELL_TOOLS = frozenset(
    {
        "bash",
        "shell",
        "exec_command",
        "local_shell",
        "local_shell_call",
        "run_shell_command",
        "execute_command",
        "run_command",
        "run_terminal_cmd",
        "terminal",
        "shell_command",
        "container.exec",
    }
)
# Tools that read the output of a command started earlier in the background.
POLL_TOOLS = frozenset({"bashoutput", "bash_output", "taskoutput", "write_stdin", "killshell"})
# Tools that hand work to another agent session.
DELEGATE_TOOLS = frozenset({"task", "agent", "subagent", "spawn_agent", "delegate"})

_SHELL_WRAPPER = re.compile(r"^(?:/\S*/)?(?:ba|z|da)?sh\s+-l?c\s+(.*)$", re.S)
_EXIT_PATTERNS = (
    re.compile(r"^Exit code (-?\d+)", re.M),  # Claude Code
    re.compile(r"^Exit Code: (-?\d+)", re.M),  # Gemini CLI
    re.compile(r"Process exited with code (-?\d+)"),  # Codex
    re.compile(r"^Exit code: (-?\d+)", re.M),  # Codex (older)
    re.compile(r"\[exit code: (-?\d+)\]"),  # DeepSeek Harness
    re.compile(r"<exit_code>(-?\d+)</exit_code>"),  # Claude Code BashOutput
    re.compile(r"Command failed with exit code (-?\d+)"),  # OpenCode
    re.compile(r'"exit_code":\s*(-?\d+)'),
)
_BACKGROUND = (
    re.compile(r"running in background with ID: (\S+)"),
    re.compile(r"Process running with session ID (\d+)"),
)
_PATCH_FILE = re.compile(r"^\*\*\* (?:Update|Add|Delete) File: (.+)$", re.M)
_DIFF_FILE = re.compile(r"^\+\+\+ (?:b/)?(.+)$", re.M)


@lru_cache(maxsize=1024)
def tool_key(tool: str | None) -> str:
    """A tool name compared case-insensitively, without an MCP server prefix."""
    name = (tool or "").strip().lower()
    return name.rsplit("__", 1)[-1]


def _stringify(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return " ".join(value)
    return json.dumps(value, ensure_ascii=False)


def parse_fields(text: str, tool: str | None = None) -> dict[str, str]:
    """The fields of a rendered tool input; a raw string comes back under the key ""."""
    stripped = text.strip()
    if not stripped:
        return {}
    candidate = None
    named = _NAMED_JSON.match(stripped)
    if named:
        candidate = named.group(2)
    elif stripped.startswith("{"):
        candidate = stripped
    if candidate is not None:
        try:
            data = json.loads(candidate)
        except ValueError:
            data = None
        if isinstance(data, dict):
            return {str(k): _stringify(v) for k, v in data.items() if v is not None}
    fields: dict[str, list[str]] = {}
    current: str | None = None
    for n, line in enumerate(text.split("\n")):
        match = _KEY_LINE.match(line)
        if match and (match.group(1) in FIELD_KEYS or (n == 0 and match.group(1) not in ("http", "https"))):
            current = match.group(1)
            fields[current] = [match.group(2)]
        elif current is None:
            return {"": text}
        else:
            fields[current].append(line)
    return {k: "\n".join(v) for k, v in fields.items()}


@lru_cache(maxsize=1024)
def is_shell(tool: str | None) -> bool:
    key = tool_key(tool)
    return key in SHELL_TOOLS or key.endswith(("_shell", "shell_command", "exec_command"))


def command_of(tool: str | None, fields: dict[str, str]) -> str | None:
    """The command line a shell tool call ran (unwrapped from `bash -lc`), or None."""
    if not is_shell(tool):
        return None
    command = fields.get("command") or fields.get("cmd") or fields.get("", "")
    command = command.strip()
    wrapped = _SHELL_WRAPPER.match(command)
    if wrapped:
        inner = wrapped.group(1).strip()
        if len(inner) >= 2 and inner[0] == inner[-1] and inner[0] in "'\"":
            inner = inner[1:-1]
        command = inner
    return command or None


def exit_status(text: str, is_error: int) -> int | None:
    """The exit status a command's output reports; 0 for a quiet success; None when unknown."""
    head = text[:600]
    tail = text[-400:] if len(text) > 600 else ""
    if "xit" not in head and "xit" not in tail:  # in every pattern: most outputs skip all of them
        return None if is_error else 0
    for pattern in _EXIT_PATTERNS:
        found = pattern.search(head) or (pattern.search(tail) if tail else None)
        if found:
            return int(found.group(1))
    return None if is_error else 0


def background_handle(text: str) -> str | None:
    """The id a command got when it went to the background (to match later polls), or None."""
    head = text[:400]
    if "running" not in head:  # in both patterns
        return None
    for pattern in _BACKGROUND:
        found = pattern.search(head)
        if found:
            return found.group(1)
    return None


def poll_handle(fields: dict[str, str]) -> str | None:
    for key in ("bash_id", "shell_id", "task_id", "session_id"):
        value = fields.get(key, "").strip()
        if value:
            return value
    return None


def _lines(text: str) -> int:
    text = text.strip("\n")
    return text.count("\n") + 1 if text else 0


def patch_counts(patch: str) -> tuple[tuple[str, ...], int, int]:
    """(files, added, removed) of an `apply_patch` envelope or a unified diff."""
    files = tuple(dict.fromkeys(m.strip() for m in _PATCH_FILE.findall(patch)))
    if not files:
        files = tuple(dict.fromkeys(m.strip() for m in _DIFF_FILE.findall(patch) if m.strip() != "/dev/null"))
    added = removed = 0
    for line in patch.split("\n"):
        if line.startswith(("+++", "---", "*** ")):
            continue
        if line.startswith("+"):
            added += 1
        elif line.startswith("-"):
            removed += 1
    return files, added, removed


def edit_counts(fields: dict[str, str]) -> tuple[int, int, str]:
    """(lines added, lines removed, the new text) of an edit/write tool input."""
    for old_key, new_key in (
        ("old_string", "new_string"),
        ("oldString", "newString"),
        ("old_str", "new_str"),
    ):
        if new_key in fields:
            return _lines(fields[new_key]), _lines(fields.get(old_key, "")), fields[new_key]
    for key in ("content", "contents", "file_text", "code_edit", "new_source", "text"):
        if key in fields:
            return _lines(fields[key]), 0, fields[key]
    if "edits" in fields:
        try:
            edits = json.loads(fields["edits"])
        except ValueError:
            edits = []
        added = removed = 0
        new = []
        for item in edits if isinstance(edits, list) else []:
            if isinstance(item, dict):
                added += _lines(str(item.get("new_string") or item.get("newString") or ""))
                removed += _lines(str(item.get("old_string") or item.get("oldString") or ""))
                new.append(str(item.get("new_string") or item.get("newString") or ""))
        return added, removed, "\n".join(new)
    for key in ("patch", "input", "patchText", "diff", ""):
        value = fields.get(key, "")
        if "*** Begin Patch" in value or "\n@@" in value:
            _, added, removed = patch_counts(value)
            return added, removed, value
    return 0, 0, ""


_SEGMENT = re.compile(r"&&|\|\||;|\||\n")
_QUOTING = re.compile(r"['\"\\]")
_SHELL_SPACE = re.compile(r"[ \t\r\n]+")


def segments(command: str) -> list[list[str]]:
    """A command line split at `&&`, `||`, `;`, `|` and newlines into word lists (best effort)."""
    return [list(words) for words in _segments(command)]


@lru_cache(maxsize=512)  # several rules split the same command line
def _segments(command: str) -> tuple[tuple[str, ...], ...]:
    out: list[tuple[str, ...]] = []
    for part in _SEGMENT.split(command):
        part = part.strip()
        if not part:
            continue
        if _QUOTING.search(part):
            try:
                words = shlex.split(part, posix=True)
            except ValueError:
                words = part.split()
        else:
            words = _SHELL_SPACE.split(part)  # what shlex makes of it, without its slow tokenizer
        while words and (
            "=" in words[0]
            and not words[0].startswith("-")
            or words[0] in ("sudo", "env", "time", "nohup", "exec")
        ):
            words = words[1:]
        if words:
            out.append(tuple(words))
    return tuple(out)


def program(words: list[str]) -> str:
    return words[0].rsplit("/", 1)[-1] if words else ""


class Calls:
    """A session's tool calls read once for every rule: each call's output, and its fields
    (parsed when a rule first asks)."""

    def __init__(self, turns: Sequence[Turn]) -> None:
        self.paired = pair_calls(turns)
        self._fields: dict[int, dict[str, str]] = {}

    def fields(self, turn: Turn) -> dict[str, str]:
        found = self._fields.get(turn.seq)
        if found is None:
            found = self._fields[turn.seq] = parse_fields(turn.text, turn.tool)
        return found


def pair_calls(turns: Sequence[Turn]) -> dict[int, Turn]:
    """call seq → its output turn: outputs answer the oldest open call of the same tool (any tool
    when the output names none); a person's prompt closes whatever is still open."""
    pending: list[Turn] = []
    paired: dict[int, Turn] = {}
    for turn in turns:
        if turn.kind == TOOL_CALL:
            pending.append(turn)
        elif turn.kind == TOOL_OUTPUT and pending:
            key = tool_key(turn.tool)
            match = pending[0]
            if key and len(pending) > 1:
                match = next((c for c in pending if tool_key(c.tool) == key), match)
            pending.remove(match)
            paired[match.seq] = turn
        elif turn.kind == PROMPT:
            pending.clear()
    return paired
