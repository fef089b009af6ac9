"""`git hippo import`: ChatGPT exports, CLAUDE.md/AGENTS.md, Cursor rules, Markdown, text;
duplicates skipped, a malformed file writes nothing, imported memories are proposals."""

from __future__ import annotations

import json
from pathlib import Path

from hippo_git.memories.imports import read_source
from tests.conftest import git

CLAUDE_MD = """\
# Project notes

## Build
- Run `make bootstrap` before the first build.
- Tests need Docker running.

<!-- hippo-git:begin -->
hippo_git context goes here and must not be imported
<!-- hippo-git:end -->

## Style
Use type hints everywhere,
including tests.

```bash
echo "code is not a memory"
```
"""


def test_markdown_headings_become_tags_and_hippo_block_is_skipped(tmp_path: Path) -> None:
    path = tmp_path / "CLAUDE.md"
    path.write_text(CLAUDE_MD)
    kind, items = read_source(path)
    assert kind == "agent-instructions"
    assert [(i.text, i.tags) for i in items] == [
        ("Run `make bootstrap` before the first build.", ("claude", "project-notes", "build")),
        ("Tests need Docker running.", ("claude", "project-notes", "build")),
        ("Use type hints everywhere, including tests.", ("claude", "project-notes", "style")),
    ]


def test_chatgpt_json_and_text_exports(tmp_path: Path) -> None:
    (tmp_path / "memories.json").write_text(
        json.dumps({"memories": [{"content": "Prefers Python over Go"}, "Works at a bakery tech team"]})
    )
    kind, items = read_source(tmp_path / "memories.json")
    assert kind == "chatgpt-json"
    assert [i.text for i in items] == ["Prefers Python over Go", "Works at a bakery tech team"]
    (tmp_path / "memories.txt").write_text("Prefers Python over Go\nLikes short answers\n")
    kind, items = read_source(tmp_path / "memories.txt")
    assert (kind, [i.text for i in items]) == ("text", ["Prefers Python over Go", "Likes short answers"])


def test_cursor_rules_folder_and_cursorrules(tmp_path: Path) -> None:
    rules = tmp_path / ".cursor" / "rules"
    rules.mkdir(parents=True)
    (rules / "python.mdc").write_text(
        "---\ndescription: Python rules\nglobs: *.py\n---\n- Use ruff for linting\n"
    )
    kind, items = read_source(rules)
    assert (kind, [(i.text, i.tags) for i in items]) == (
        "cursor-rules",
        [("Use ruff for linting", ("cursor", "python"))],
    )
    (tmp_path / ".cursorrules").write_text("Always answer in English\nNever edit generated files\n")
    kind, items = read_source(tmp_path / ".cursorrules")
    assert [i.text for i in items] == ["Always answer in English", "Never edit generated files"]


def test_import_proposes_and_skips_duplicates(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    (repo / "CLAUDE.md").write_text(CLAUDE_MD)
    dry = json.loads(hippo(["import", "CLAUDE.md", "--dry-run", "--json"], cwd=repo).stdout)
    assert [m["status"] for m in dry["memories"]] == ["proposed"] * 3
    assert git(repo, "branch", "--list", "hippo/*") == ""
    result = hippo(["import", "CLAUDE.md", "--tag", "onboarding", "--json"], cwd=repo)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [m["status"] for m in out["memories"]] == ["proposed"] * 3
    # The built-in reviewer's fixed checks confirm them; fast-forward applies them to main.
    assert all(m["commit"] and m["verdict"] == "confirm" and m["applied"] for m in out["memories"])
    assert "hippo/proposals/memories-" in git(repo, "branch", "--list", "hippo/*")
    recalled = json.loads(hippo(["recall", "bootstrap build", "--json"], cwd=repo).stdout)
    assert recalled[0]["store"] == "workspace" and recalled[0]["reviewed"] is True
    again = json.loads(hippo(["import", "CLAUDE.md", "--json"], cwd=repo).stdout)
    assert [m["status"] for m in again["memories"]] == ["duplicate"] * 3


def test_malformed_import_writes_nothing(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    (repo / "bad.json").write_text('{"memories": [')
    result = hippo(["import", "bad.json"], cwd=repo)
    assert result.exit_code == 1
    assert "bad.json: not valid JSON" in result.output and "Traceback" not in result.output
    (repo / "odd.json").write_text(json.dumps([{"content": "fine memory text"}, {"nope": 1}]))
    result = hippo(["import", "odd.json"], cwd=repo)
    assert result.exit_code == 1 and "odd.json: entry 1 holds no memory text" in result.output
    assert hippo(["import", "missing.md"], cwd=repo).exit_code == 1
    (repo / "blob.bin").write_bytes(b"\x00\x01\x02 binary")
    assert "binary data" in hippo(["import", "blob.bin"], cwd=repo).output
    assert git(repo, "branch", "--list", "hippo/*") == ""
    assert not (repo / "notes").exists()
