"""`git hippo agent install|uninstall`: merge into the harnesses' files, restore them exactly."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from hippo_git.agents.install import install_agent, uninstall_agent
from hippo_git.agents.spec import BLOCK_BEGIN, BLOCK_END, HARNESSES, SPECS
from hippo_git.config import load_config
from hippo_git.errors import HippoError
from tests.conftest import make_repo

CLAUDE_SETTINGS = """{
  "permissions": {
    "allow": [
      "Bash(npm test)"
    ]
  },
  "hooks": {
    "SessionStart": [
      {
        "matcher": "startup",
        "hooks": [
          {
            "type": "command",
            "command": "echo hello"
          }
        ]
      }
    ]
  },
  "model": "sonnet"
}
"""
# Not in the JSON.stringify style: only the backup can give these bytes back.
CLAUDE_MCP = '{"mcpServers": {"other": {"command": "other-server", "args": []}},\n    "x": [1,2]}'
CODEX_CONFIG = """# my codex settings
model = "o3"

[mcp_servers.docs]
command = "docs-mcp"   # keep this comment
args = ["--port", "1"]

[profiles.fast]
model = "o4-mini"
"""
AGENTS_MD = "# Agents\n\nRun `make test` before committing.\n"
GEMINI_SETTINGS = '{\n    "theme": "Dracula",\n    "mcpServers": {\n        "fs": {\n            "command": "fs-mcp"\n        }\n    }\n}\n'
GEMINI_MD = "Be brief."  # no trailing newline
CURSOR_HOOKS = '{\n  "version": 1,\n  "hooks": {\n    "afterFileEdit": [\n      {\n        "command": "./format.sh"\n      }\n    ]\n  }\n}\n'
CURSOR_MCP = '{\n  "mcpServers": {}\n}\n'

USER_FILES = {
    "claude-code": {".claude/settings.json": CLAUDE_SETTINGS, ".mcp.json": CLAUDE_MCP},
    "codex": {".codex/config.toml": CODEX_CONFIG, "AGENTS.md": AGENTS_MD},
    "cursor": {".cursor/hooks.json": CURSOR_HOOKS, ".cursor/mcp.json": CURSOR_MCP},
    "gemini": {".gemini/settings.json": GEMINI_SETTINGS, "GEMINI.md": GEMINI_MD},
}


def _snapshot(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in sorted(root.rglob("*"))
        if p.is_file() and ".git" not in p.relative_to(root).parts
    }


def _dirs(root: Path) -> set[str]:
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_dir() and ".git" not in p.parts}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "ws")


def _write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")


@pytest.mark.parametrize("harness", HARNESSES)
def test_round_trip_restores_user_files_exactly(ws: Path, harness: str) -> None:
    _write(ws, USER_FILES[harness])
    before, dirs = _snapshot(ws), _dirs(ws)
    cfg = load_config(ws)
    install_agent(cfg, harness)
    installed = _snapshot(ws)
    assert installed != before
    again = install_agent(cfg, harness)  # idempotent: byte-identical, reported unchanged
    assert _snapshot(ws) == installed
    assert {c.action for c in again.changes} == {"unchanged"}
    uninstall_agent(cfg, harness)
    assert _snapshot(ws) == before
    assert _dirs(ws) == dirs


@pytest.mark.parametrize("harness", HARNESSES)
def test_fresh_install_then_uninstall_leaves_nothing(ws: Path, harness: str) -> None:
    before, dirs = _snapshot(ws), _dirs(ws)
    cfg = load_config(ws)
    result = install_agent(cfg, harness)
    assert all(c.action == "created" for c in result.changes)
    removed = uninstall_agent(cfg, harness)
    assert {c.action for c in removed.changes if c.part != "file"} == {"removed"}
    assert _snapshot(ws) == before
    assert _dirs(ws) == dirs


def test_claude_settings_keep_user_hooks_keys_and_order(ws: Path) -> None:
    _write(ws, USER_FILES["claude-code"])
    install_agent(load_config(ws), "claude-code")
    data = json.loads((ws / ".claude/settings.json").read_text())
    assert list(data) == ["permissions", "hooks", "model"]
    start = data["hooks"]["SessionStart"]
    assert start[0] == {"matcher": "startup", "hooks": [{"type": "command", "command": "echo hello"}]}
    assert start[1] == {
        "hooks": [{"type": "command", "command": "git hippo hook session-start", "timeout": 10}]
    }
    assert data["hooks"]["UserPromptSubmit"][0]["hooks"][0]["command"] == "git hippo hook prompt"
    assert data["hooks"]["SessionEnd"][0]["hooks"][0]["command"] == "git hippo hook session-end"
    assert data["hooks"]["PreCompact"][0]["hooks"][0]["command"] == "git hippo hook pre-compact"
    mcp = json.loads((ws / ".mcp.json").read_text())
    assert mcp["mcpServers"]["hippo"] == {"type": "stdio", "command": "git", "args": ["hippo", "mcp"]}
    assert mcp["mcpServers"]["other"] == {"command": "other-server", "args": []}
    assert mcp["x"] == [1, 2]


def test_timeouts_are_in_each_harness_unit(ws: Path) -> None:
    cfg = load_config(ws)
    for harness in HARNESSES:
        install_agent(cfg, harness)
    gemini = json.loads((ws / ".gemini/settings.json").read_text())
    for groups in gemini["hooks"].values():
        for handler in groups[0]["hooks"]:
            assert handler["timeout"] >= 1000  # milliseconds
            assert handler["name"].startswith("hippo-")
    assert gemini["mcpServers"]["hippo"] == {"command": "git", "args": ["hippo", "mcp"], "timeout": 30000}
    for rel in (".claude/settings.json", ".codex/hooks.json"):
        for groups in json.loads((ws / rel).read_text())["hooks"].values():
            assert all(1 <= h["timeout"] <= 60 for h in groups[0]["hooks"])  # seconds
    cursor = json.loads((ws / ".cursor/hooks.json").read_text())
    assert cursor["version"] == 1
    assert set(cursor["hooks"]) == {"sessionStart", "beforeSubmitPrompt", "preCompact", "sessionEnd"}
    assert all(1 <= h[0]["timeout"] <= 60 for h in cursor["hooks"].values())
    codex = json.loads((ws / ".codex/hooks.json").read_text())
    assert set(codex["hooks"]) == {"SessionStart", "UserPromptSubmit", "PreCompact", "Stop"}


def test_codex_toml_edits_only_our_table(ws: Path) -> None:
    _write(ws, {".codex/config.toml": CODEX_CONFIG})
    cfg = load_config(ws)
    install_agent(cfg, "codex")
    text = (ws / ".codex/config.toml").read_text()
    # Every byte of the user's text kept (the comment too); ours goes beside the other MCP servers.
    ours = '[mcp_servers.hippo]\ncommand = "git"\nargs = ["hippo", "mcp"]\n\n'
    cut = CODEX_CONFIG.index("[profiles.fast]")
    assert text == CODEX_CONFIG[:cut] + ours + CODEX_CONFIG[cut:]
    data = tomllib.loads(text)
    assert data["mcp_servers"]["hippo"] == {"command": "git", "args": ["hippo", "mcp"]}
    assert data["mcp_servers"]["docs"]["command"] == "docs-mcp"
    # A table of ours that someone changed is set back in place, the rest left as it is.
    changed = text.replace('mcp"]\n', 'mcp"]\nenv = { A = "1" }\n', 1)
    (ws / ".codex/config.toml").write_text(changed)
    install_agent(cfg, "codex")
    assert (ws / ".codex/config.toml").read_text() == text
    shutil.rmtree(cfg.home / "agent-backups")  # as on a teammate's machine: no backup
    uninstall_agent(cfg, "codex")
    assert (ws / ".codex/config.toml").read_text() == CODEX_CONFIG


def test_codex_toml_in_a_shape_hippo_cannot_edit_is_refused(ws: Path) -> None:
    text = 'mcp_servers = "not a table"\n'
    _write(ws, {".codex/config.toml": text})
    with pytest.raises(HippoError, match="mcp_servers is not a table"):
        install_agent(load_config(ws), "codex")
    assert (ws / ".codex/config.toml").read_text() == text


def test_marked_block_replaced_in_place_and_removed_exactly(ws: Path) -> None:
    head, tail = "# Agents\n\nIntro.\n\n", "\n## Later section\nMore.\n"
    old_block = f"{BLOCK_BEGIN}\nold text from an earlier version\n{BLOCK_END}\n"
    _write(ws, {"AGENTS.md": head + old_block + tail})
    cfg = load_config(ws)
    install_agent(cfg, "codex")
    text = (ws / "AGENTS.md").read_text()
    assert text.startswith(head + BLOCK_BEGIN) and text.endswith(BLOCK_END + "\n" + tail)
    assert "old text" not in text and "notes/index.md" in text
    shutil.rmtree(cfg.home / "agent-backups")  # as on a teammate's machine: no backup
    uninstall_agent(cfg, "codex")
    # The blank line that set the block apart goes with it.
    assert (ws / "AGENTS.md").read_text() == "# Agents\n\nIntro.\n\n## Later section\nMore.\n"


def test_uninstall_without_backup_still_removes_only_ours(ws: Path) -> None:
    _write(ws, USER_FILES["claude-code"])
    cfg = load_config(ws)
    install_agent(cfg, "claude-code")
    shutil.rmtree(cfg.home / "agent-backups")
    uninstall_agent(cfg, "claude-code")
    assert (ws / ".claude/settings.json").read_text() == CLAUDE_SETTINGS  # standard style: same bytes
    assert json.loads((ws / ".mcp.json").read_text()) == json.loads(CLAUDE_MCP)


def test_user_changes_after_install_survive_uninstall(ws: Path) -> None:
    _write(ws, USER_FILES["claude-code"])
    cfg = load_config(ws)
    install_agent(cfg, "claude-code")
    path = ws / ".claude/settings.json"
    data = json.loads(path.read_text())
    data["hooks"]["UserPromptSubmit"][0]["hooks"].append({"type": "command", "command": "mine"})
    data["env"] = {"A": "1"}
    path.write_text(json.dumps(data, indent=2) + "\n")
    uninstall_agent(cfg, "claude-code")
    left = json.loads(path.read_text())
    assert left["env"] == {"A": "1"}
    assert left["hooks"]["UserPromptSubmit"] == [{"hooks": [{"type": "command", "command": "mine"}]}]
    assert "SessionEnd" not in left["hooks"] and "PreCompact" not in left["hooks"]
    assert "hippo" not in json.loads((ws / ".mcp.json").read_text())["mcpServers"]


@pytest.mark.parametrize(
    ("harness", "rel", "text"),
    [
        ("claude-code", ".claude/settings.json", '{"hooks": {,}}'),
        ("claude-code", ".claude/settings.json", "[1, 2]"),
        ("claude-code", ".claude/settings.json", '{"hooks": []}'),
        ("codex", ".codex/config.toml", "[mcp_servers.hippo\ncommand = 1\n"),
        ("codex", "AGENTS.md", f"x\n{BLOCK_BEGIN}\nno end marker\n"),
        ("claude-code", ".claude/settings.json", "{\n  // Claude Code settings are plain JSON\n}\n"),
        ("gemini", ".gemini/settings.json", '{\n  // a comment\n  "theme": ,\n}\n'),
        ("cursor", ".cursor/mcp.json", '{"mcpServers": "nope"}'),
    ],
)
def test_refuses_files_that_do_not_parse(ws: Path, harness: str, rel: str, text: str) -> None:
    _write(ws, {rel: text})
    before = _snapshot(ws)
    with pytest.raises(HippoError) as err:
        install_agent(load_config(ws), harness)
    assert rel in err.value.message
    assert _snapshot(ws) == before  # nothing written, not even the other files
    try:  # uninstall refuses too, or finds nothing of ours; either way nothing changes
        uninstall_agent(load_config(ws), harness)
    except HippoError as exc:
        assert rel in exc.message
    assert _snapshot(ws) == before


def test_duplicate_hook_entries_collapse_to_one(ws: Path) -> None:
    cfg = load_config(ws)
    install_agent(cfg, "claude-code")
    path = ws / ".claude/settings.json"
    data = json.loads(path.read_text())
    data["hooks"]["SessionStart"].append(json.loads(json.dumps(data["hooks"]["SessionStart"][0])))
    path.write_text(json.dumps(data, indent=2) + "\n")
    install_agent(cfg, "claude-code")
    assert len(json.loads(path.read_text())["hooks"]["SessionStart"]) == 1


def test_no_mcp_leaves_mcp_files_alone(ws: Path) -> None:
    cfg = load_config(ws)
    result = install_agent(cfg, "codex", mcp=False)
    assert {c.part for c in result.changes} == {"hooks", "block"}
    assert not (ws / ".codex/config.toml").exists()


def test_cli_install_status_uninstall(ws: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    out = hippo(["agent", "install", "gemini", "--json"], cwd=ws)
    assert out.exit_code == 0, out.output
    changes = json.loads(out.stdout)["changes"]
    assert {(c["file"], c["part"]) for c in changes} == {
        (".gemini/settings.json", "hooks"),
        (".gemini/settings.json", "mcp"),
        ("GEMINI.md", "block"),
    }
    status = json.loads(hippo(["agent", "status", "--json"], cwd=ws).stdout)
    by_name = {s["harness"]: s for s in status}
    assert by_name["gemini"]["installed"] and not by_name["claude-code"]["installed"]
    assert all(h["installed"] and h["last_run"] is None for h in by_name["gemini"]["hooks"])
    text = hippo(["agent", "status", "gemini"], cwd=ws).stdout
    assert "never ran" in text
    bad = hippo(["agent", "install", "nope"], cwd=ws)
    assert bad.exit_code == 2
    out = hippo(["agent", "uninstall", "gemini"], cwd=ws)
    assert out.exit_code == 0
    assert not (ws / ".gemini").exists() and not (ws / "GEMINI.md").exists()
    (ws / ".claude").mkdir()
    (ws / ".claude/settings.json").write_text("{oops")
    res = hippo(["agent", "install", "claude-code"], cwd=ws)
    assert res.exit_code == 1 and ".claude/settings.json" in res.stderr and "Traceback" not in res.output


def test_every_spec_names_distinct_commands() -> None:
    commands = [h.command for s in SPECS.values() for h in s.hooks]
    assert len(commands) == len(set(commands))


# Codex trusts a project hook by the hash of its definition and Gemini by its fingerprint: a change
# here un-trusts hippo's hooks on every machine. Change these only on purpose.
PINNED_DEFINITIONS = {
    ".codex/hooks.json": {
        "hooks": {
            "SessionStart": [
                {
                    "matcher": "startup|resume|clear|compact",
                    "hooks": [
                        {"type": "command", "command": "git hippo hook codex-session-start", "timeout": 10}
                    ],
                }
            ],
            "UserPromptSubmit": [
                {"hooks": [{"type": "command", "command": "git hippo hook codex-prompt", "timeout": 10}]}
            ],
            "PreCompact": [
                {"hooks": [{"type": "command", "command": "git hippo hook codex-pre-compact", "timeout": 10}]}
            ],
            "Stop": [{"hooks": [{"type": "command", "command": "git hippo hook codex-stop", "timeout": 10}]}],
        }
    },
    ".gemini/settings.json": {
        "hooks": {
            "SessionStart": [
                {
                    "hooks": [
                        {
                            "name": "hippo-context",
                            "type": "command",
                            "command": "git hippo hook gemini-session-start",
                            "timeout": 10000,
                        }
                    ]
                }
            ],
            "BeforeAgent": [
                {
                    "hooks": [
                        {
                            "name": "hippo-prompt",
                            "type": "command",
                            "command": "git hippo hook gemini-prompt",
                            "timeout": 10000,
                        }
                    ]
                }
            ],
            "PreCompress": [
                {
                    "hooks": [
                        {
                            "name": "hippo-precompress",
                            "type": "command",
                            "command": "git hippo hook gemini-pre-compress",
                            "timeout": 10000,
                        }
                    ]
                }
            ],
            "SessionEnd": [
                {
                    "hooks": [
                        {
                            "name": "hippo-end",
                            "type": "command",
                            "command": "git hippo hook gemini-session-end",
                            "timeout": 10000,
                        }
                    ]
                }
            ],
        }
    },
}


def test_trusted_hook_definitions_stay_byte_stable(ws: Path) -> None:
    cfg = load_config(ws)
    install_agent(cfg, "codex", mcp=False)
    install_agent(cfg, "gemini", mcp=False)
    for rel, expected in PINNED_DEFINITIONS.items():
        assert (ws / rel).read_text() == json.dumps(expected, indent=2) + "\n"


def test_install_refuses_when_git_hippo_is_not_on_path(ws: Path, tmp_path: Path) -> None:
    before = _snapshot(ws)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    with pytest.raises(HippoError, match="git-hippo is not on PATH") as err:
        install_agent(load_config(ws), "claude-code", search_path=str(empty))
    assert "activate" in (err.value.hint or "")
    assert _snapshot(ws) == before
    # The same through the command line, with PATH as in a shell where the venv is not activated.
    env = {
        **os.environ,
        "PATH": os.pathsep.join(
            p for p in os.environ["PATH"].split(os.pathsep) if not (Path(p) / "git-hippo").exists()
        ),
    }
    proc = subprocess.run(
        [sys.executable, "-m", "hippo_git", "agent", "install", "codex"],
        cwd=ws,
        capture_output=True,
        text=True,
        env=env,
    )
    assert proc.returncode == 1 and "git-hippo is not on PATH" in proc.stderr
    assert "Traceback" not in proc.stderr and _snapshot(ws) == before


GEMINI_WITH_COMMENTS = """{
  // my theme; Gemini CLI reads this file as JSON with comments
  "theme": "Dracula", /* kept */
  "mcpServers": {
    "fs": {"command": "fs-mcp"}
  },
  "url": "http://example.com/not//a/comment"
}
"""


def test_gemini_settings_with_comments_keep_them(ws: Path) -> None:
    from hippo_git.agents import jsonc

    _write(ws, {".gemini/settings.json": GEMINI_WITH_COMMENTS})
    before = _snapshot(ws)
    cfg = load_config(ws)
    install_agent(cfg, "gemini")
    text = (ws / ".gemini/settings.json").read_text()
    assert "// my theme; Gemini CLI reads" in text and "/* kept */" in text
    data = jsonc.loads(text)
    assert data["url"] == "http://example.com/not//a/comment"
    assert set(data["mcpServers"]) == {"fs", "hippo"} and "SessionStart" in data["hooks"]
    again = install_agent(cfg, "gemini")
    assert {c.action for c in again.changes} == {"unchanged"}
    assert (ws / ".gemini/settings.json").read_text() == text
    uninstall_agent(cfg, "gemini")
    assert _snapshot(ws) == before


def test_gemini_settings_with_comments_in_the_way_are_refused_with_the_reason(ws: Path) -> None:
    text = '{\n  "mcpServers": {\n    // my servers\n    "fs": {"command": "fs-mcp"}\n  }\n}\n'
    _write(ws, {".gemini/settings.json": text})
    with pytest.raises(HippoError, match='a comment inside "mcpServers" would be lost'):
        install_agent(load_config(ws), "gemini")
    assert (ws / ".gemini/settings.json").read_text() == text
    install_agent(load_config(ws), "gemini", mcp=False)  # the hooks alone can go in beside it
    assert "// my servers" in (ws / ".gemini/settings.json").read_text()
