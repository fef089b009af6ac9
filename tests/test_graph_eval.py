"""`git hippo graph` (notes, sessions and files a few hops out) and `git hippo eval` (cases,
metrics, the gate, bootstrap)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hippo_git.errors import HippoError
from hippo_git.index.records import read_records
from hippo_git.notes.evaluate import Case, evaluate, item_key, load_cases
from hippo_git.notes.graph_walk import walk
from hippo_git.signals.refresh import ingest
from tests.conftest import make_repo
from tests.index_support import claude_lines, config, write_jsonl

NOTES = {
    ".hippo/hippo.toml": "",
    "notes/index.md": "# Index\nSee [[testing]] and [[deploys]].\n",
    "notes/testing.md": "# Testing\nFlaky login tests: freeze time. See [[ci]].\n",
    "notes/ci.md": "# CI\nThe CI runs on every push.\n",
    "notes/deploys.md": "# Deploys\nDeploy with the blue-green script.\n",
    "notes/memories/freeze-time.md": "---\ntags: [tests]\n---\n# Freeze time in login tests\nUse freezegun.\n",
}


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", files=NOTES)
    write_jsonl(
        tmp_path / "claude" / "sess-login.jsonl",
        claude_lines(
            "sess-login",
            str(repo),
            [
                ("user", "the login test is flaky, fix it"),
                (f"read:{repo}/notes/testing.md", "# Testing"),
                (f"edit:{repo}/tests/test_login.py", "freeze"),
                ("assistant", "Fixed: the login test freezes time now."),
            ],
        ),
    )
    ingest(config(repo, {"claude-code": [tmp_path / "claude"]}))
    assert [r["id"] for r in read_records(repo)] == ["sess-login"]
    return repo


def test_graph_walks_links_sessions_and_files(workspace: Path) -> None:
    cfg = config(workspace)
    one = walk(cfg, "testing", hops=1)
    assert one.start == "notes/testing.md"
    assert {n: i["hop"] for n, i in one.nodes.items()} == {
        "notes/testing.md": 0,
        "notes/ci.md": 1,
        "notes/index.md": 1,
        "session:sess-login": 1,
    }
    kinds = {(e.source, e.target, e.kind) for e in one.edges}
    assert ("notes/testing.md", "notes/ci.md", "links") in kinds
    assert ("session:sess-login", "notes/testing.md", "touched") in kinds
    two = walk(cfg, "testing", hops=2)
    assert two.nodes["file:tests/test_login.py"] == {"kind": "file", "label": "tests/test_login.py", "hop": 2}
    assert two.nodes["notes/deploys.md"]["hop"] == 2
    by_session = walk(cfg, "sess-lo", hops=1)
    assert by_session.start == "session:sess-login" and "file:tests/test_login.py" in by_session.nodes
    assert (
        walk(cfg, "notes/memories/freeze-time.md", hops=1).nodes["notes/memories/freeze-time.md"]["kind"]
        == "memory"
    )
    with pytest.raises(HippoError, match="no note or session named 'nothing'"):
        walk(cfg, "nothing")


def test_graph_cli(workspace: Path, hippo: Any) -> None:
    res = hippo(["graph", "testing", "--hops", "2", "--json"], cwd=workspace)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert (
        data["start"] == "notes/testing.md"
        and {"from": "session:sess-login", "to": "file:tests/test_login.py", "kind": "edited"}
        in data["edges"]
    )
    res = hippo(["graph", "testing"], cwd=workspace)
    assert "notes/testing.md --links--> notes/ci.md" in res.stdout
    res = hippo(["graph", "nope"], cwd=workspace)
    assert res.exit_code == 1 and "no note or session" in res.stderr


def _cases(repo: Path, cases: list[dict[str, Any]]) -> Path:
    path = repo / ".hippo" / "eval.json"
    path.write_text(json.dumps({"version": 1, "cases": cases}))
    return path


def test_eval_metrics_gate_and_must_not(workspace: Path, hippo: Any) -> None:
    cfg = config(workspace)
    assert item_key(cfg, "memory:freeze-time") == ("note", "notes/memories/freeze-time.md")
    assert item_key(cfg, "testing") == ("note", "notes/testing.md")
    assert item_key(cfg, "sess-login#3") == ("turn", "sess-login#3")
    report = evaluate(
        cfg,
        [
            Case("flaky login test", ("notes/testing.md", "memory:freeze-time", "sess-login#3")),
            Case("blue-green deploy", ("deploys",), must_not_include=("notes/ci.md",)),
            Case("kubernetes helm chart", ("notes/ci.md",)),
        ],
    )
    first, second, third = report.cases
    assert first.ranks["sess-login#3"] is not None and first.recall[10] == 1.0
    assert second.ranks == {"deploys": 1} and second.mrr == 1.0 and second.ndcg == 1.0
    assert third.recall == {1: 0.0, 5: 0.0, 10: 0.0} and third.mrr == 0.0
    assert report.violations == 0 and 0.6 < report.recall[10] < 0.7

    _cases(workspace, [{"query": "blue-green deploy", "expected": ["deploys"]}])
    res = hippo(["eval", "--min-recall", "0.9", "--json"], cwd=workspace)
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["recall"]["@5"] == 1.0
    _cases(workspace, [{"query": "deploy script", "expected": ["ci"], "must_not_include": ["deploys"]}])
    res = hippo(["eval"], cwd=workspace)
    assert res.exit_code == 1 and "must-not violations" in res.stderr and "missed ci" in res.stdout
    _cases(
        workspace,
        [{"query": "deploy script", "expected": ["deploys"]}, {"query": "nothing here", "expected": ["ci"]}],
    )
    assert hippo(["eval", "--min-recall", "0.9"], cwd=workspace).exit_code == 1
    assert hippo(["eval", "--min-recall", "0.5"], cwd=workspace).exit_code == 0


@pytest.mark.parametrize(
    ("text", "error"),
    [
        ("{", "not valid JSON"),
        ('{"version": 2, "cases": []}', "version = 1"),
        ('{"cases": []}', "non-empty list"),
        ('{"cases": [{"query": ""}]}', "case 1 needs a non-empty `query`"),
        ('{"cases": [{"query": "x", "expected": "notes/a.md"}]}', "`expected` must be a list"),
        ('{"cases": [{"query": "x"}]}', "expects nothing"),
    ],
)
def test_bad_cases_files_are_one_line_errors(tmp_path: Path, text: str, error: str) -> None:
    path = tmp_path / "eval.json"
    path.write_text(text)
    with pytest.raises(HippoError, match=error):
        load_cases(path)


def test_cases_in_toml_and_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "eval.toml"
    path.write_text('version = 1\n[[cases]]\nquery = "deploy"\nexpected = ["deploys"]\n')
    assert load_cases(path) == [Case("deploy", ("deploys",))]
    with pytest.raises(HippoError, match="no eval cases") as err:
        load_cases(tmp_path / "none.json")
    assert "--bootstrap" in (err.value.hint or "")


def test_bootstrap_drafts_cases_from_notes_and_sessions(workspace: Path, hippo: Any) -> None:
    res = hippo(["eval", "--bootstrap"], cwd=workspace)
    assert res.exit_code == 0, res.output
    drafted = json.loads((workspace / ".hippo" / "eval.json").read_text())["cases"]
    assert {"query": "Deploys", "expected": ["notes/deploys.md"], "must_not_include": []} in drafted
    assert any(c["expected"] == ["notes/testing.md"] and "flaky" in c["query"] for c in drafted)
    again = hippo(["eval", "--bootstrap"], cwd=workspace)
    assert again.exit_code == 1 and "exists already" in again.stderr
    res = hippo(["eval", "--json"], cwd=workspace)
    assert json.loads(res.stdout)["cases"] == len(drafted)
