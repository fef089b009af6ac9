"""`git hippo search` from a cold start: its plain forms are answered without click, with the same
output and exit codes as the click command, which still answers help, `--harness` and bad values."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from hippo_git.cli.search_fast import parse
from hippo_git.config import Config
from hippo_git.signals.refresh import ingest
from tests.conftest import make_repo, run_cli
from tests.index_support import claude_lines, config, write_jsonl


@pytest.fixture
def indexed(tmp_path: Path) -> tuple[Path, Config]:
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude"
    mine = [
        ("user", "Why does the rebase fail?"),
        ("assistant", "The receipts ref moved; fetch, then rebase."),
    ]
    write_jsonl(
        folder / "a" / "abc111.jsonl", claude_lines("abc111", str(repo), mine, title="Rebase trouble")
    )
    other = [("user", "rebase the tokenizer branch"), ("user", "cooking pasta")]
    write_jsonl(folder / "b" / "abc222.jsonl", claude_lines("abc222", "/elsewhere", other, day="2026-02-10"))
    cfg = config(repo, {"claude-code": [folder]})
    ingest(cfg)
    return repo, cfg


CASES = [
    ["search", "rebase", "receipts", "--all"],
    ["search", "rebase", "--json"],
    ["search", "rebase", "--all", "-n", "1", "--json"],
    ["search", "--limit=2", "rebase", "--workspace", "--all"],
    ["search", "rebase", "--since", "2026-02-01", "--all", "--json"],
    ["search", "rebase", "--session", "abc2", "--all"],
    ["search", "zzzz"],
    ["search", "x", "--session", "abc"],  # ambiguous: an error and its hint
    ["search", "--fts", '"foo'],  # not valid FTS5
    ["search", "rebase", "--limit", "0"],  # out of range: click's message
    ["search", "rebase", "--harness", "claude-code", "--json"],
    ["search", "--help"],
]


@pytest.mark.parametrize("args", CASES, ids=[" ".join(c[1:]) for c in CASES])
def test_the_fast_path_answers_as_the_click_command(
    indexed: tuple[Path, Config], hippo: Any, args: list[str]
) -> None:
    repo, _ = indexed
    fast = run_cli(args, cwd=repo)
    slow = hippo(args, cwd=repo)
    # The in-process runner calls the program `cli`; the real one is `git hippo`.
    said = [
        text.replace("Usage: cli ", "Usage: git hippo ").replace("'cli ", "'git hippo ")
        for text in (slow.stdout, slow.stderr)
    ]
    if "--help" in args:  # wrapped to the terminal's width, which differs
        fast.stdout, said[0] = " ".join(fast.stdout.split()), " ".join(said[0].split())
    assert (fast.returncode, fast.stdout, fast.stderr) == (slow.exit_code, *said)
    assert fast.returncode != 0 or fast.stdout or fast.stderr  # every case says something


def test_a_plain_search_loads_no_click(indexed: tuple[Path, Config]) -> None:
    repo, _ = indexed
    for args, fast in ((["rebase", "--json"], True), (["rebase", "--harness", "claude-code"], False)):
        proc = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "hippo_git", "search", *args],
            cwd=repo,
            capture_output=True,
            text=True,
        )
        assert proc.returncode == 0, proc.stderr[-2000:]
        imported = {
            line.rsplit("|", 1)[1].strip()
            for line in proc.stderr.splitlines()
            if line.startswith("import time:")
        }
        assert "hippo_git.index.search" in imported
        assert ("click" in imported) is not fast, args
        heavy = sorted(m for m in imported if m.split(".")[0] in ("pygit2", "git", "pydantic"))
        assert heavy == []
    assert json.loads(run_cli(["search", "rebase", "--json"], cwd=repo).stdout)[0]["session_id"] == "abc111"


def test_parse_leaves_what_it_does_not_know_to_click() -> None:
    opts = parse(["deploy", "-n", "5", "--since=7d", "--all", "canary"])
    assert opts is not None
    assert (opts["query"], opts["limit"], opts["since"], opts["everywhere"]) == (
        "deploy canary",
        5,
        "7d",
        True,
    )
    for argv in (
        [],
        ["--json"],
        ["x", "--help"],
        ["x", "-h"],
        ["x", "--harness", "codex"],
        ["x", "--limit"],
        ["x", "--limit", "--json"],
        ["x", "-n=5"],
        ["x", "--limit", "1001"],
        ["x", "--limit", "many"],
        ["x", "--bogus"],
        ["x", "--all=yes"],
    ):
        assert parse(argv) is None, argv
