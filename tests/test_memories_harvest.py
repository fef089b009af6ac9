"""capture (patterns in raw conversation text), learn --git (fix/revert/bug commits), watch-cmd."""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.dream.memory_harvest import capture_memories
from hippo_git.memories.harvest import find_in_text, lesson_of
from hippo_git.memories.service import remember_text
from tests.conftest import git, run_cli

CONVERSATION = """\
user: can you check why the build is slow?
assistant: Looking at it now.
user: We decided to use uv instead of pip for all installs. Also, never push directly to main.
assistant: Error: the integration suite fails because the docker daemon is not running.
user: I prefer short commit subjects.
```
always_do_this_in_code_is_not_a_rule = True
```
assistant: Done, anything else?
"""


def test_patterns_find_decisions_rules_errors_preferences() -> None:
    found = {(f.kind, f.text) for f in find_in_text(CONVERSATION)}
    assert found == {
        ("decision", "We decided to use uv instead of pip for all installs."),
        ("rule", "Also, never push directly to main."),
        ("error", "Error: the integration suite fails because the docker daemon is not running."),
        ("preference", "I prefer short commit subjects."),
    }


def test_capture_proposes_reviewed_memories_and_skips_repeats(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    dry = json.loads(
        hippo(["capture", "--stdin", "--dry-run", "--json"], cwd=repo, input=CONVERSATION).stdout
    )
    assert [d["status"] for d in dry] == ["proposed"] * 4 and all(d["commit"] is None for d in dry)
    assert not (repo / "notes").exists() and git(repo, "branch", "--list", "hippo/*") == ""
    (repo / "talk.txt").write_text(CONVERSATION)
    result = hippo(["capture", "--file", "talk.txt", "--json"], cwd=repo)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    # found by patterns, judged by nobody: proposals, reviewed (built-in checks) and applied
    assert [(d["status"], d["verdict"], d["applied"]) for d in out] == [("proposed", "confirm", True)] * 4
    assert git(repo, "diff", "--cached", "--name-only") == ""
    assert len(git(repo, "ls-tree", "--name-only", "main", "notes/memories/").splitlines()) == 4
    again = capture_memories(load_config(repo), CONVERSATION)
    assert {r.status for r in again} == {"duplicate"}
    bad = hippo(["capture", "--file", "missing.txt"], cwd=repo)
    assert bad.exit_code == 1 and "cannot read missing.txt" in bad.output
    assert hippo(["capture"], cwd=repo).exit_code == 2


def test_lesson_of_a_fix_commit() -> None:
    item = lesson_of(
        "fix: retry the upload when S3 returns 503",
        "The client gave up after one try.\n\nSigned-off-by: A <a@b>\n",
        ["src/upload.py", "tests/test_upload.py"],
        "a" * 40,
    )
    assert item is not None
    assert item.text == (
        "fix: retry the upload when S3 returns 503. The client gave up after one try. "
        "(files: src/upload.py, tests/test_upload.py)"
    )
    assert lesson_of("Add a changelog entry", "", ["CHANGES.md"], "b" * 40) is None


def test_learn_git_remembers_fix_and_revert_commits_once(repo: Path, hippo, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from tests.conftest import make_repo

    other = make_repo(tmp_path / "other")
    (other / "app.py").write_text("x = 1\n")
    git(other, "add", "-A")
    git(
        other,
        "commit",
        "-q",
        "-m",
        "Fix crash when the config file is empty",
        "-m",
        "Empty files parsed as None.",
    )
    (other / "docs.md").write_text("docs\n")
    git(other, "add", "-A")
    git(other, "commit", "-q", "-m", "Write the docs")
    # The pinned clock is in 2026-01; look back far enough to include it.
    result = hippo(["learn", "--git", "--repo", str(other), "--days", "100000", "--json"], cwd=repo)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert [(o["status"], o["verdict"], o["applied"]) for o in out] == [("proposed", "confirm", True)]
    assert out[0]["text"].startswith("Fix crash when the config file is empty. Empty files parsed as None.")
    assert "lesson" in out[0]["tags"] and out[0]["kind"] == "error"
    again = json.loads(
        hippo(["learn", "--git", "--repo", str(other), "--days", "100000", "--json"], cwd=repo).stdout
    )
    assert [o["status"] for o in again] == ["duplicate"]
    bad = hippo(["learn", "--git", "--repo", str(tmp_path)], cwd=repo)
    assert bad.exit_code == 1 and "not a git repository" in bad.output


def test_watch_cmd_remembers_a_failure_redacted(repo: Path) -> None:
    key = "ghp_" + "Zz9Yy8Xx7Ww6Vv5Uu4Tt3Ss2Rr1Qq0Pp9Oo8"
    script = f"import sys; print('connecting with token {key}'); print('boom: disk full'); sys.exit(3)"
    proc = run_cli(["watch-cmd", "--", sys.executable, "-c", script], cwd=repo)
    assert proc.returncode == 3
    assert "boom: disk full" in proc.stdout  # the output still reaches the person
    assert "proposed (confirmed, applied)" in proc.stderr
    [path] = list((repo / "notes" / "memories").glob("*.md"))
    assert git(repo, "status", "--porcelain") == ""  # applied to main through a proposal, not staged
    text = path.read_text()
    assert "exit status 3" in text and "boom: disk full" in text
    assert key not in text and "kind: error" in text
    ok = run_cli(["watch-cmd", "--", sys.executable, "-c", "print('fine')"], cwd=repo)
    assert ok.returncode == 0 and len(list((repo / "notes" / "memories").glob("*.md"))) == 1
    missing = run_cli(["watch-cmd", "--", "no-such-command-xyz"], cwd=repo)
    assert missing.returncode == 1 and "cannot run 'no-such-command-xyz'" in missing.stderr


def test_capture_never_brings_back_a_rejected_value(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    cfg = load_config(repo)
    old = remember_text(cfg, "Never push directly to the main branch").memory
    new = remember_text(cfg, "Push directly to the main branch").memory
    assert hippo(["resolve", old.id, "--keep", new.id, "--forget"], cwd=repo).exit_code == 0
    git(repo, "commit", "-q", "-m", "memories")
    [again] = capture_memories(cfg, "user: Never push directly to the main branch.")
    assert again.status == "rejected"
