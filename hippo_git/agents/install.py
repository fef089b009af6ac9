"""`git hippo agent install|uninstall`: wire hippo's hooks, instructions and MCP server into a harness.

Each harness gets (AGENT-INTEGRATION §1-§4): hook entries merged into its hook file, an
instructions block (Codex `AGENTS.md`, Gemini `GEMINI.md`) or rule file (Cursor), and with `mcp`
the stdio server `git hippo mcp` in its MCP config. Install is idempotent (a second run writes
nothing); uninstall removes exactly our entries and prunes only what it emptied.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from hippo_git.agents import harness_files as af
from hippo_git.agents.launcher import require_git_hippo
from hippo_git.agents.spec import (
    HARNESSES,
    MCP_ARGS,
    MCP_COMMAND,
    MCP_NAME,
    SPECS,
    HarnessSpec,
    handler_entry,
)
from hippo_git.config import Config
from hippo_git.errors import UsageError

MCP_TOML_TABLE = ("mcp_servers", MCP_NAME)


@dataclass
class AgentResult:
    """The outcome of `agent install`/`uninstall` for one harness: file changes and advice for the user."""

    harness: str
    root: Path
    changes: list[af.Change] = field(default_factory=list)
    advice: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "harness": self.harness,
            "root": str(self.root),
            "changes": [c.as_dict() for c in self.changes],
            "advice": self.advice,
        }


def spec_for(harness: str) -> HarnessSpec:
    spec = SPECS.get(harness)
    if spec is None:
        raise UsageError(f"unknown agent harness {harness!r}", hint="choose one of: " + ", ".join(HARNESSES))
    return spec


# --- the edits, one function per part; each mutates the parsed file and says whether ours was there --


def _object_at(path: Path, data: dict[str, Any], key: str) -> dict[str, Any]:
    """`data[key]`, created empty when absent; a file where it is not an object is refused."""
    value = data.get(key)
    if value is None:
        value = data[key] = {}
    if not isinstance(value, dict):
        raise af.refuse(path, f'"{key}" is not a JSON object')
    return value


def _hooks_dict(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    return _object_at(path, data, "hooks")


def _add_hooks(spec: HarnessSpec, path: Path, data: dict[str, Any]) -> None:
    if spec.hooks_style == "flat" and "version" not in data:
        data["version"] = 1
    hooks = _hooks_dict(path, data)
    for hook in spec.hooks:
        entry = handler_entry(spec, hook)
        entries = hooks.setdefault(hook.event, [])
        if not af.is_list_of_dicts(entries):
            raise af.refuse(path, f'"hooks.{hook.event}" is not a list of objects')
        if spec.hooks_style == "flat":
            lists = [entries]
        else:
            lists = [g["hooks"] for g in entries if af.is_list_of_dicts(g.get("hooks"))]
        hits = [
            (handlers, i)
            for handlers in lists
            for i, h in enumerate(handlers)
            if h.get("command") == hook.command
        ]
        if hits:
            first, at = hits[0]
            first[at] = entry
            for handlers, i in reversed(hits[1:]):  # duplicates of ours (e.g. from a merge): keep one
                del handlers[i]
            emptied = [id(h) for h, _ in hits[1:] if not h]
            if spec.hooks_style == "grouped" and emptied:
                entries[:] = [g for g in entries if id(g.get("hooks")) not in emptied]
        else:
            if spec.hooks_style == "flat":
                entries.append(entry)
            else:
                group: dict[str, Any] = {"matcher": hook.matcher} if hook.matcher else {}
                group["hooks"] = [entry]
                entries.append(group)


def _remove_hooks(spec: HarnessSpec, path: Path, data: dict[str, Any]) -> bool:
    hooks = data.get("hooks")
    if not isinstance(hooks, dict):
        return False
    ours = {hook.command for hook in spec.hooks}
    found = False
    for event in list(hooks):
        entries = hooks[event]
        if not af.is_list_of_dicts(entries):
            continue
        emptied = False
        if spec.hooks_style == "flat":
            kept = [h for h in entries if h.get("command") not in ours]
            if len(kept) != len(entries):
                found, emptied = True, not kept
                entries[:] = kept
        else:
            for group in list(entries):
                handlers = group.get("hooks")
                if not af.is_list_of_dicts(handlers):
                    continue
                kept = [h for h in handlers if h.get("command") not in ours]
                if len(kept) != len(handlers):
                    found = True
                    handlers[:] = kept
                    if not kept:
                        entries.remove(group)
                        emptied = not entries
        if emptied:
            del hooks[event]
    if found and not hooks:
        del data["hooks"]
    return found


def _mcp_servers(path: Path, data: dict[str, Any]) -> dict[str, Any]:
    return _object_at(path, data, "mcpServers")


def _add_mcp(spec: HarnessSpec, path: Path, data: dict[str, Any]) -> None:
    _mcp_servers(path, data)[MCP_NAME] = dict(spec.mcp_entry)


def is_our_server(entry: Any) -> bool:
    return (
        isinstance(entry, dict)
        and entry.get("command") == MCP_COMMAND
        and entry.get("args") == list(MCP_ARGS)
    )


def _remove_mcp(spec: HarnessSpec, path: Path, data: dict[str, Any]) -> bool:
    servers = data.get("mcpServers")
    if not isinstance(servers, dict) or not is_our_server(servers.get(MCP_NAME)):
        return False
    del servers[MCP_NAME]
    if not servers:
        del data["mcpServers"]
    return True


def _json_empty(spec: HarnessSpec, rel: str, data: dict[str, Any]) -> bool:
    return not data or (rel == spec.hooks_file and spec.hooks_style == "flat" and data == {"version": 1})


# --- text for the instruction files ---------------------------------------------------------------


def _template(name: str) -> str:
    return resources.files("hippo_git._hooks").joinpath("agents", name).read_text(encoding="utf-8")


def block_text(cfg: Config) -> str:
    return (
        _template("instructions.md")
        .replace("@NOTES_DIR@", cfg.notes_dir)
        .replace("@ENTRY@", cfg.context.entry)
        .strip()
    )


def _rule_head() -> str:
    return _template("cursor-rule-head.mdc").strip() + "\n"


def _mcp_toml() -> dict[str, Any]:
    return {"command": MCP_COMMAND, "args": list(MCP_ARGS)}


# --- install / uninstall ------------------------------------------------------------------------------

JsonEdit = tuple[str, Callable[[HarnessSpec, Path, dict[str, Any]], Any]]


def _json_files(spec: HarnessSpec, mcp: bool, adding: bool) -> dict[str, list[JsonEdit]]:
    files: dict[str, list[JsonEdit]] = {spec.hooks_file: [("hooks", _add_hooks if adding else _remove_hooks)]}
    if mcp and spec.mcp_style == "json":
        files.setdefault(spec.mcp_file, []).append(("mcp", _add_mcp if adding else _remove_mcp))
    return files


def install_agent(
    cfg: Config, harness: str, *, mcp: bool = True, search_path: str | None = None
) -> AgentResult:
    spec = spec_for(harness)
    require_git_hippo(search_path)
    root = cfg.root
    result = AgentResult(harness, root)
    backups = af.Backups(cfg.home, root)
    # Parse everything first: a file that does not parse stops the install before anything is written.
    plans: list[tuple[str, str | None, str]] = []  # (rel, old text, new text)
    for rel, edits in _json_files(spec, mcp, adding=True).items():
        path = root / rel
        text = af.read_text(path)
        data = af.load_json(path, text)
        original = copy.deepcopy(data)
        for part, edit in edits:
            before = copy.deepcopy(data)
            edit(spec, path, data)
            action = "created" if text is None else ("unchanged" if data == before else "updated")
            result.changes.append(af.Change(rel, part, action))
        plans.append(
            (rel, text, text if data == original and text is not None else af.dump_json(data, text, path))
        )
    text_edits: list[tuple[str, str, Callable[[Path, str | None], str]]] = []
    if mcp and spec.mcp_style == "toml":
        text_edits.append(
            (spec.mcp_file, "mcp", lambda p, t: af.put_toml_table(p, t, MCP_TOML_TABLE, _mcp_toml()))
        )
    if spec.block_file:
        text_edits.append((spec.block_file, "block", lambda p, t: af.put_block(p, t, block_text(cfg))))
    if spec.rule_file:
        text_edits.append(
            (
                spec.rule_file,
                "rule",
                lambda p, t: af.put_block(p, t if t is not None else _rule_head(), block_text(cfg)),
            )
        )
    for rel, part, rewrite in text_edits:
        path = root / rel
        text = af.read_text(path)
        new = rewrite(path, text)
        result.changes.append(
            af.Change(rel, part, "created" if text is None else ("unchanged" if new == text else "updated"))
        )
        plans.append((rel, text, new))
    for rel, old, new in plans:
        if new != old:
            backups.remember(rel, old)
            af.write_atomic(root / rel, new)
    result.advice = _advice(cfg, spec)
    return result


def _advice(cfg: Config, spec: HarnessSpec) -> list[str]:
    advice: list[str] = []
    if not cfg.hippo_dir.is_dir():
        advice.append(
            "this repository has no .hippo/ yet: run `git hippo init` so the hooks can keep session records"
        )
    if spec.name == "codex":
        advice.append(
            "Codex runs project hooks only once trusted: open /hooks in Codex and trust the hippo hooks"
        )
        advice.append("Codex reads .codex/config.toml only in trusted projects")
        toml = af.read_text(cfg.root / ".codex" / "config.toml")
        if toml and "hooks" in af.load_toml(cfg.root / ".codex/config.toml", toml):
            advice.append(".codex/config.toml also has [hooks]: Codex merges both with a warning; keep one")
    if spec.name == "gemini":
        advice.append("Gemini asks once before running new project hooks; accept the hippo hooks")
    if spec.name == "claude-code" and _installed_anywhere(cfg.root, SPECS["cursor"]):
        advice.append(
            "Cursor also runs Claude Code hooks; inside Cursor the Claude copies step aside for Cursor's"
        )
    if spec.name == "cursor" and _installed_anywhere(cfg.root, SPECS["claude-code"]):
        advice.append("Cursor also runs the Claude Code hooks installed here; they step aside inside Cursor")
    advice.append(f"commit the changed files to share the {spec.name} set-up with your team")
    return advice


def _installed_anywhere(root: Path, spec: HarnessSpec) -> bool:
    text = af.read_text(root / spec.hooks_file) or ""
    return any(hook.command in text for hook in spec.hooks)


def uninstall_agent(cfg: Config, harness: str) -> AgentResult:
    spec = spec_for(harness)
    root = cfg.root
    result = AgentResult(harness, root)
    backups = af.Backups(cfg.home, root)
    writes: list[tuple[str, str | None]] = []  # (rel, new text or None = delete the file)
    for rel, edits in _json_files(spec, True, adding=False).items():
        path = root / rel
        text = af.read_text(path)
        if text is None:
            result.changes += [af.Change(rel, part, "absent") for part, _ in edits]
            continue
        data = af.load_json(path, text)
        found = False
        for part, edit in edits:
            hit = bool(edit(spec, path, data))
            found |= hit
            result.changes.append(af.Change(rel, part, "removed" if hit else "absent"))
        if found:
            same = _json_same(data, af.allows_comments(path))
            writes.append(
                (
                    rel,
                    _settle(backups, rel, af.dump_json(data, text, path), _json_empty(spec, rel, data), same),
                )
            )
    text_parts: list[tuple[str, str, Callable[[Path, str], str], Callable[[str], bool]]] = []
    if spec.mcp_style == "toml":
        text_parts.append(
            (
                spec.mcp_file,
                "mcp",
                lambda p, t: af.drop_toml_table(p, t, MCP_TOML_TABLE),
                lambda t: not t.strip(),
            )
        )
    if spec.block_file:
        text_parts.append((spec.block_file, "block", af.drop_block, lambda t: not t.strip()))
    if spec.rule_file:
        head = _rule_head().strip()
        text_parts.append((spec.rule_file, "rule", af.drop_block, lambda t: t.strip() in ("", head)))
    for rel, part, drop, empty in text_parts:
        path = root / rel
        text = af.read_text(path)
        new = drop(path, text) if text is not None else None
        if text is None or new == text:
            result.changes.append(af.Change(rel, part, "absent"))
            continue
        assert new is not None
        result.changes.append(af.Change(rel, part, "removed"))
        writes.append((rel, _settle(backups, rel, new, empty(new), _text_same(new))))
    for rel, new in writes:
        path = root / rel
        if new is None:
            af.remove_file(path, root)
            result.changes.append(af.Change(rel, "file", "deleted"))
        else:
            if new != af.read_text(path):
                af.write_atomic(path, new)
        backups.forget(rel)
    return result


def _json_same(data: dict[str, Any], comments: bool) -> Callable[[str], bool]:
    """Equal up to empty containers, which uninstall prunes even when the user had them empty."""
    want = _pruned(data)

    def same(original: str) -> bool:
        try:
            return bool(_pruned(af.load_json(Path("backup"), original, comments=comments)) == want)
        except Exception:
            return False

    return same


def _pruned(value: Any) -> Any:
    if isinstance(value, dict):
        items = {k: _pruned(v) for k, v in value.items()}
        return {k: v for k, v in items.items() if v not in ({}, [])}
    if isinstance(value, list):
        return [_pruned(v) for v in value]
    return value


def _text_same(new: str) -> Callable[[str], bool]:
    return lambda original: original.strip() == new.strip()


def _settle(backups: af.Backups, rel: str, new: str, empty: bool, same: Callable[[str], bool]) -> str | None:
    """What to leave after removing our entries: the original bytes when nothing else changed,
    nothing when we created the file and it is empty now, else the edited text."""
    backup = backups.original(rel)
    if backup is None:
        return None if empty else new
    existed, original = backup
    if not existed:
        return None if empty else new
    if original is not None and same(original):
        return original
    return new
