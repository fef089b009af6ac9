"""`git hippo brief TASK`: the context plus past sessions of this workspace from the index."""

from __future__ import annotations

import json
from pathlib import Path

from hippo_git.index.records import read_records
from hippo_git.notes.brief import build_brief
from hippo_git.notes.declared import end_session
from hippo_git.signals.refresh import ingest
from tests.conftest import make_repo, run_cli
from tests.index_support import claude_lines, config, write_jsonl

NOTES = {
    ".hippo/hippo.toml": "",
    "notes/index.md": "# Index\n[[testing]]\n",
    "notes/testing.md": "# Testing\nFlaky login tests: freeze time.\n",
}


def _indexed_repo(tmp_path: Path) -> Path:
    repo = make_repo(tmp_path / "repo", files=NOTES)
    projects = tmp_path / "claude-projects"
    write_jsonl(
        projects / "a" / "sess-login.jsonl",
        claude_lines(
            "sess-login",
            str(repo),
            [
                ("user", "the login test is flaky on CI, please fix it"),
                ("assistant", "Looking at the flaky login test now."),
                ("assistant", "Fixed: the login test now freezes time with freezegun; CI is green."),
            ],
            title="Fix flaky login test",
        ),
    )
    write_jsonl(
        projects / "a" / "sess-other.jsonl",
        claude_lines(
            "sess-other",
            str(repo),
            [
                ("user", "update the changelog for 1.2"),
                ("assistant", "Changelog updated."),
            ],
            start_minute=30,
        ),
    )
    write_jsonl(
        projects / "b" / "sess-elsewhere.jsonl",
        claude_lines(
            "sess-elsewhere",
            str(tmp_path / "other-repo"),
            [
                ("user", "the login test is flaky in the other repo"),
                ("assistant", "Fixed the flaky login test there."),
            ],
        ),
    )
    ingest(config(repo, {"claude-code": [projects]}))
    return repo


def test_brief_lists_past_sessions_of_this_workspace_with_outcome_and_handoff(tmp_path: Path) -> None:
    repo = _indexed_repo(tmp_path)
    cfg = config(repo)
    login = next(r["id"] for r in read_records(repo) if "login" in str(r.get("title") or r.get("task")))
    end_session(cfg, login, handoff="Done; the trick is in [[testing]].")
    brief = build_brief(cfg, "flaky login test")
    assert [s.id for s in brief.sessions] == [login]
    session = brief.sessions[0]
    assert session.harness == "claude-code" and session.matches
    assert session.outcome is not None and "freezegun" in session.outcome["text"]
    assert session.handoff == "Done; the trick is in [[testing]]."
    assert brief.index_note is None
    assert brief.text.startswith(brief.context.text)
    assert f'<session id="{login}">' in brief.text and "outcome (last answer, #" in brief.text
    assert "other-repo" not in brief.text and "Changelog" not in brief.text

    proc = run_cli(["brief", "flaky login test", "--json"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert [s["id"] for s in data["sessions"]] == [login]
    assert data["context"]["task"] == "flaky login test"


def test_brief_without_an_index_says_so(tmp_path: Path, hippo) -> None:
    repo = make_repo(tmp_path / "repo", files=NOTES)
    result = hippo(["brief", "flaky login test"], cwd=repo)
    assert result.exit_code == 0, result.output
    assert "no transcript index on this machine yet" in result.stderr
    assert "## Past sessions on this task\n\nNone: no transcript index" in result.stdout
    assert '<note path="notes/testing.md" role="relevant"' in result.stdout
    empty = hippo(["brief", "  "], cwd=repo)
    assert empty.exit_code == 1 and "needs a task" in empty.stderr
