"""`overview`, `fleet`, `incidents`, `xray` and `card` through the CLI, on small transcripts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hippo_git.signals.refresh import ingest
from tests.conftest import make_repo
from tests.index_support import config, write_jsonl
from tests.rules_support import claude_session


def _workspace(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude" / "proj"
    cfg = config(repo, {"claude-code": [tmp_path / "claude"]})
    write_jsonl(
        folder / "aaa111.jsonl",
        claude_session(
            "aaa111",
            str(repo),
            [
                ("user", "make the parser strict"),
                ("edit", f"{repo}/parse.py", "loose = True", "loose = False"),
                ("bash", "uv run pytest -q", "3 passed"),
                ("assistant", "All tests pass."),
                ("edit", f"{repo}/parse.py", "x", "y"),
                ("assistant", "Fixed the edge case too; the build is green."),
                ("user", "No, that's wrong: keep the old error messages."),
            ],
        ),
    )
    write_jsonl(
        folder / "aab222.jsonl",
        claude_session(
            "aab222",
            str(repo),
            [("user", "tidy up"), ("bash", "git reset --hard HEAD~2", "HEAD is now at 1a2b3c4")],
        ),
    )
    write_jsonl(
        folder / "elsewhere.jsonl",
        claude_session(
            "ccc333", "/somewhere/else", [("user", "hello"), ("bash", "rm -rf data", "")], day="2026-03-03"
        ),
    )
    ingest(cfg, records=False)
    return repo


def _json(hippo: Any, args: list[str], cwd: Path) -> Any:
    result = hippo([*args, "--json"], cwd=cwd)
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def test_overview_counts_this_workspace_per_day(tmp_path: Path, hippo: Any) -> None:
    repo = _workspace(tmp_path)
    data = _json(hippo, ["overview", "--days", "3650"], repo)
    totals = data["totals"]
    assert totals["sessions"] == 2 and totals["by_harness"] == {"claude-code": 2}
    assert (totals["files_edited"], totals["incidents"], totals["claims"], totals["unsupported_claims"]) == (
        1,
        2,
        3,
        2,
    )
    assert [d["day"] for d in data["per_day"]] == ["2026-03-02"] and totals["work_seconds"] > 0
    everywhere = _json(hippo, ["overview", "--days", "3650", "--all"], repo)
    assert everywhere["totals"]["sessions"] == 3
    table = hippo(["overview", "--days", "3650"], cwd=repo)
    assert "total" in table.stdout and "claude-code 2" in table.stdout


def test_fleet_lists_every_workspace_and_harness(tmp_path: Path, hippo: Any) -> None:
    repo = _workspace(tmp_path)
    rows = _json(hippo, ["fleet"], repo)
    assert {(r["workspace"], r["harness"], r["sessions"]) for r in rows} == {
        (str(repo), "claude-code", 2),
        ("/somewhere/else", "claude-code", 1),
    }


def test_incidents_newest_first_with_the_causing_turn(tmp_path: Path, hippo: Any) -> None:
    repo = _workspace(tmp_path)
    rows = _json(hippo, ["incidents"], repo)
    assert [(r["kind"], r["turn"]) for r in rows] == [("correction", "aaa111#8"), ("destructive", "aab222#1")]
    correction = rows[0]
    assert (
        correction["excerpt"].startswith("No, that's wrong")
        and "build is green" in correction["cause_excerpt"]
    )
    assert [r["kind"] for r in _json(hippo, ["incidents", "--all"], repo)] == [
        "destructive",
        "correction",
        "destructive",
    ]
    assert [r["turn"] for r in _json(hippo, ["incidents", "--kind", "correction"], repo)] == ["aaa111#8"]
    assert (
        _json(hippo, ["incidents", "--session", "aab"], repo)[0]["summary"]
        == "destructive command: git reset --hard"
    )
    assert "caused by" in hippo(["incidents"], cwd=repo).stdout.lower()


def test_xray_puts_claims_beside_their_evidence(tmp_path: Path, hippo: Any) -> None:
    repo = _workspace(tmp_path)
    data = _json(hippo, ["xray", "aaa"], repo)
    claims = [
        (c["turn"], c["kind"], c["status"], (c["evidence"] or {}).get("command")) for c in data["claims"]
    ]
    assert claims == [
        ("aaa111#5", "tests", "checked", "uv run pytest -q"),
        ("aaa111#8", "build", "unchecked", None),
        ("aaa111#8", "fixed", "unchecked", None),
    ]
    assert [e["type"] for e in data["timeline"]] == ["claim", "claim", "claim", "incident"]
    text = hippo(["xray", "aaa"], cwd=repo).stdout
    assert "claim: tests (checked)" in text and "no run of the check" in text


def test_card_as_markdown_for_a_pull_request(tmp_path: Path, hippo: Any) -> None:
    repo = _workspace(tmp_path)
    md = hippo(["card", "aaa1", "--format", "md"], cwd=repo).stdout
    assert "**Task:** make the parser strict" in md
    assert "**Claims:** 1 checked, 2 unchecked, 0 contradicted" in md
    assert "✓ tests" in md and "**Incidents:** 1 (correction 1)" in md
    data = _json(hippo, ["card", "aaa1"], repo)
    assert data["edits"]["files"] == [f"{repo}/parse.py"] and data["time"]["work_seconds"] > 0


def test_session_ids_must_name_one_session(tmp_path: Path, hippo: Any) -> None:
    repo = _workspace(tmp_path)
    ambiguous = hippo(["card", "aa"], cwd=repo)
    assert ambiguous.exit_code == 1 and "ambiguous" in ambiguous.output
    missing = hippo(["xray", "zzz"], cwd=repo)
    assert missing.exit_code == 1 and "no indexed session matches" in missing.output
