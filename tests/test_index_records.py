"""Derived session records: which sessions belong to a workspace, what their records say, removal
of records for sessions that stopped belonging, and declared records left alone."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hippo_git.index.records import (
    read_record,
    read_records,
    record_path,
    safe_id,
    validate_record,
    write_record_dict,
)
from hippo_git.signals.refresh import ingest
from tests.conftest import git, make_repo
from tests.index_support import claude_lines, config, write_jsonl


def workspace(tmp_path: Path, name: str = "repo") -> Path:
    repo = make_repo(
        tmp_path / name,
        files={"notes/index.md": "# Index\n", "notes/alpha.md": "# Alpha\n", "src/app.py": "print()\n"},
    )
    (repo / ".hippo").mkdir()
    (repo / ".hippo" / "hippo.toml").write_text('notes_dir = "notes"\n')
    return repo


def test_records_for_sessions_that_belong(tmp_path: Path) -> None:
    repo = workspace(tmp_path)
    other = workspace(tmp_path, "other")  # another hippo workspace, with its own alpha note
    git(repo, "worktree", "add", "-q", "-b", "side", str(tmp_path / "wt"))
    folder = tmp_path / "claude"
    long_prompt = "Please fix the app. " * 40
    write_jsonl(
        folder / "p" / "in-repo.jsonl",
        claude_lines(
            "in-repo",
            str(repo / "src"),
            [
                ("user", long_prompt),
                (f"read:{repo}/notes/index.md", "# Index"),
                (f"edit:{repo}/src/app.py", "print('fixed')"),
                (
                    "edit:notes/alpha.md",
                    "more alpha",
                ),  # relative to the session's cwd (src/) → src/notes/alpha.md
                ("assistant", "Done; see notes/index.md and [[Alpha]]."),
            ],
            title="Fix the app",
        ),
    )
    write_jsonl(
        folder / "p" / "edits-note.jsonl",
        claude_lines(
            "edits-note",
            "/somewhere/else",
            [
                ("user", "update the team notes"),
                (f"edit:{repo}/notes/alpha.md", "new alpha text"),
            ],
        ),
    )
    write_jsonl(
        folder / "p" / "cites.jsonl",
        claude_lines(
            "cites",
            "/tmp/not-a-repo",
            [
                ("user", "what does [[alpha]] say?"),
            ],
        ),
    )
    write_jsonl(
        folder / "p" / "cites-own.jsonl",
        claude_lines(
            "cites-own",
            str(other),
            [
                ("user", "what does [[alpha]] say here?"),
            ],
        ),
    )
    write_jsonl(
        folder / "p" / "in-worktree.jsonl",
        claude_lines(
            "in-worktree",
            str(tmp_path / "wt"),
            [
                ("user", "work on the side branch"),
                (f"edit:{tmp_path}/wt/src/app.py", "side change"),
            ],
        ),
    )
    write_jsonl(
        folder / "p" / "unrelated.jsonl", claude_lines("unrelated", "/srv/other", [("user", "hello")])
    )
    write_jsonl(
        folder / "p" / "sub" / "agent.jsonl", claude_lines("parent/agent-1", str(repo), [("user", "sub")])
    )
    cfg = config(repo, {"claude-code": [folder]})

    summary = ingest(cfg)
    assert summary.records_written == 5 and summary.records_removed == 0
    ids = sorted(r["id"] for r in read_records(repo))
    assert ids == ["cites", "edits-note", "in-repo", "in-worktree", "parent/agent-1"]
    assert record_path(repo, "parent/agent-1").name == "parent~agent-1.json"

    rec = read_record(repo, "in-repo")
    assert rec is not None
    assert rec["kind"] == "derived" and rec["version"] == 1 and rec["harness"] == "claude-code"
    assert rec["title"] == "Fix the app" and rec["cwd"] == str(repo / "src")
    assert len(rec["task"]) == 300 and rec["task"].startswith("Please fix the app.")
    assert rec["notes_touched"] == ["notes/alpha.md", "notes/index.md"]
    assert rec["files_edited"] == ["src/app.py", "src/notes/alpha.md"]
    assert rec["handoff"] is None and rec["turns"] == 8 and rec["started"] and rec["ended"]
    assert validate_record(rec).kind == "derived"
    assert read_record(repo, "edits-note")["notes_touched"] == ["notes/alpha.md"]  # type: ignore[index]
    assert read_record(repo, "cites")["notes_touched"] == ["notes/alpha.md"]  # type: ignore[index]
    assert read_record(repo, "in-worktree")["files_edited"] == ["src/app.py"]  # type: ignore[index]

    # Unchanged: nothing rewritten. A declared record wins over the derived one.
    assert ingest(cfg).records_written == 0
    declared = {**rec, "kind": "declared", "handoff": "see [[Alpha]]", "task": "declared task"}
    write_record_dict(repo, declared)
    again = ingest(cfg)
    assert again.records_declared == 1 and read_record(repo, "in-repo") == declared

    # The cited note is gone: that session no longer belongs, and its derived record goes.
    (repo / "notes" / "alpha.md").unlink()
    gone = ingest(cfg)
    assert gone.records_removed == 1
    assert not record_path(repo, "cites").exists()
    assert read_record(repo, "in-repo") == declared  # declared records are never removed
    assert read_record(repo, "edits-note") is not None  # an edit by path still ties it to the repo


def test_no_records_without_a_hippo_workspace(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "plain")
    folder = tmp_path / "claude"
    write_jsonl(folder / "s.jsonl", claude_lines("s", str(repo), [("user", "hi")]))
    summary = ingest(config(repo, {"claude-code": [folder]}))
    assert summary.turns_added == 1 and summary.records_written == 0
    assert not (repo / ".hippo").exists()


def test_safe_ids_and_plain_readers_skip_pydantic(tmp_path: Path) -> None:
    assert safe_id("a/b\\c") == "a~b~c" and safe_id(".hidden") == "~.hidden" and safe_id("") == "~"
    repo = workspace(tmp_path)
    write_record_dict(repo, {"version": 1, "kind": "derived", "id": "x/y", "turns": 1})
    (repo / ".hippo" / "sessions" / "junk.json").write_text("{not json")
    code = (
        "import sys; from pathlib import Path; from hippo_git.index import records;"
        f"print(json.dumps([r['id'] for r in records.read_records(Path({str(repo)!r}))]));"
        "print('pydantic' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", "import json;" + code], capture_output=True, text=True, check=True
    )
    ids, pydantic_loaded = out.stdout.splitlines()
    assert json.loads(ids) == ["x/y"] and pydantic_loaded == "False"
    from hippo_git.index.records import SessionRecord  # the model is importable by name, lazily

    assert SessionRecord.model_validate({"kind": "declared", "id": "z"}).turns == 0
