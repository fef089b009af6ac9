"""The pre-commit check on staged changes only (run through real `git commit`)."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from hippo_git.team.githooks import check_staged
from hippo_git.team.setup import init_workspace
from tests.conftest import git

FAKE_KEY = "AKIA" + "IOSFODNN7EXAMPLQ"


@pytest.fixture
def ws(repo: Path) -> Path:
    init_workspace(repo)
    (repo / "notes/build.md").write_text("# Build\n\nRun make. See [[index]].\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up")
    return repo


def _commit(root: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["git", "commit", "-q", "-m", "change"], cwd=root, capture_output=True, text=True)


def test_a_secret_in_a_note_is_blocked_without_printing_it(ws: Path) -> None:
    (ws / "notes/deploy.md").write_text(f"# Deploy\n\nSee [[build]].\naws key {FAKE_KEY} here\n")
    git(ws, "add", "notes/deploy.md")
    proc = _commit(ws)
    assert proc.returncode == 1
    assert "notes/deploy.md:4: looks like a secret" in proc.stderr
    assert FAKE_KEY not in proc.stderr + proc.stdout
    assert "--no-verify" in proc.stderr


def test_broken_front_matter_is_blocked(ws: Path) -> None:
    (ws / "notes/bad.md").write_text("---\ntitle: [unclosed\n---\n# Bad\n[[build]]\n")
    git(ws, "add", "notes/bad.md")
    errors, _ = check_staged(ws)
    assert any("notes/bad.md: front matter does not parse" in e for e in errors)


def test_broken_links_only_warn(ws: Path) -> None:
    (ws / "notes/ops.md").write_text("# Ops\n\nSee [[build]] and [[nowhere]].\n")
    git(ws, "add", "notes/ops.md")
    proc = _commit(ws)
    assert proc.returncode == 0, proc.stderr
    assert "warning: notes/ops.md:3: broken link [[nowhere]]" in proc.stderr


def test_a_link_to_an_unchanged_note_by_its_title_is_not_broken(ws: Path) -> None:
    (ws / "notes/release.md").write_text("---\ntitle: Release Process\n---\nShip it.\n")
    (ws / "notes/oncall.md").write_text("# On-call rota\n\nWho is up.\n")
    git(ws, "add", "-A")
    git(ws, "commit", "-q", "--no-verify", "-m", "more notes")
    (ws / "notes/ops.md").write_text("# Ops\n\nSee [[release process]], [[On call rota]] and [[gone]].\n")
    git(ws, "add", "notes/ops.md")
    assert check_staged(ws) == ([], ["hippo: warning: notes/ops.md:3: broken link [[gone]]"])


def test_only_staged_content_counts(ws: Path) -> None:
    (ws / "notes/ops.md").write_text("# Ops\n\nclean [[build]]\n")
    git(ws, "add", "notes/ops.md")
    (ws / "notes/ops.md").write_text(f"# Ops\n\n{FAKE_KEY}\n")  # unstaged edit: not checked
    assert check_staged(ws) == ([], [])
    # A secret outside notes_dir is not this hook's business.
    (ws / "src.txt").write_text(FAKE_KEY)
    git(ws, "add", "src.txt")
    assert check_staged(ws)[0] == []


def test_per_person_files_are_blocked_with_the_fix(ws: Path) -> None:
    (ws / ".hippo/sessions").mkdir(parents=True, exist_ok=True)
    (ws / ".hippo/sessions/s1.json").write_text("{}")
    (ws / ".hippo/dream-state.json").write_text("{}")
    git(ws, "add", "-f", ".hippo/sessions/s1.json", ".hippo/dream-state.json")
    errors, _ = check_staged(ws)
    assert "hippo: unstage with: git rm --cached .hippo/dream-state.json .hippo/sessions/s1.json" in errors


def test_post_merge_lists_dream_changes_and_missing_receipts(ws: Path) -> None:
    from tests.test_verify import propose

    git(ws, "checkout", "-q", "-b", "hippo/proposals/r1")
    propose(ws)
    propose(ws, "notes/ops.md", "# Ops\n", receipt=False)
    git(ws, "checkout", "-q", "main")
    proc = subprocess.run(
        ["git", "merge", "--ff-only", "hippo/proposals/r1"], cwd=ws, capture_output=True, text=True
    )
    assert proc.returncode == 0
    assert "hippo: re-read 2 changed note(s)" in proc.stderr
    assert "dream change arrived:" in proc.stderr and "(confirmed by core/skeptic)" in proc.stderr
    assert "has no confirming receipt here" in proc.stderr and "git hippo sync" in proc.stderr


def _hook(ws: Path) -> subprocess.CompletedProcess[str]:
    """The check as the installed shim runs it, with the modules it loaded listed (-X importtime)."""
    import sys

    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hippo_git", "hook", "pre-commit"],
        cwd=ws,
        capture_output=True,
        text=True,
    )


def _loaded(stderr: str) -> set[str]:
    return {line.rsplit("|", 1)[1].strip() for line in stderr.splitlines() if line.startswith("import time:")}


def test_the_hook_loads_no_click_no_pydantic_no_pygit2(ws: Path) -> None:
    """Every commit waits for it: the shim's `python -m hippo_git hook pre-commit` skips the CLI."""
    (ws / "notes/ops.md").write_text("# Ops\n\nSee [[build]] and [[nowhere]].\n")
    git(ws, "add", "notes/ops.md")
    proc = _hook(ws)
    assert proc.returncode == 0
    assert "hippo: warning: notes/ops.md:3: broken link [[nowhere]]" in proc.stderr
    loaded = _loaded(proc.stderr)
    assert "hippo_git.git.staged" in loaded and "hippo_git.transcripts.redact_pregate" in loaded
    assert not {m for m in loaded if m.split(".")[0] in ("click", "pydantic", "pygit2", "git", "difflib")}


def _shim(ws: Path) -> subprocess.CompletedProcess[str]:
    """The check exactly as the installed shim starts it: without `site`, through `_githook.py`."""
    import sys

    import hippo_git

    script = Path(hippo_git.__file__).parent / "_githook.py"
    return subprocess.run(
        [sys.executable, "-S", "-X", "importtime", str(script), "pre-commit"],
        cwd=ws,
        capture_output=True,
        text=True,
    )


# Each costs milliseconds of every commit, and the check does without them: paths are strings,
# git runs through `git.spawn`, config is read by `config_files` alone (init's hippo.toml without
# tomllib: `simple_toml`), the resolver without `graph`, the records without `typing`.
NOT_ON_THE_COMMIT_PATH = (
    "dataclasses",
    "pathlib",
    "subprocess",
    "inspect",
    "signal",
    "difflib",
    "tomllib",
    "typing",
)


def test_the_shim_loads_neither_the_redactor_for_a_plain_note_nor_what_the_check_does_without(
    ws: Path,
) -> None:
    (ws / "notes/ops.md").write_text("# Ops\n\nSee [[build]] and [[nowhere]].\n")
    git(ws, "add", "notes/ops.md")
    proc = _shim(ws)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "hippo: warning: notes/ops.md:3: broken link [[nowhere]]" in proc.stderr
    loaded = _loaded(proc.stderr)
    assert {"hippo_git.git.staged", "hippo_git.notes.parse", "hippo_git.transcripts.redact_pregate"} <= loaded
    assert "hippo_git.transcripts.redact" not in loaded  # no gate, no long run: it cannot hold a secret
    assert sorted(m for m in loaded if m.split(".")[0] in NOT_ON_THE_COMMIT_PATH) == []


def test_the_shim_loads_the_redactor_and_blocks_when_a_note_could_hold_a_secret(ws: Path) -> None:
    (ws / "notes/deploy.md").write_text(f"# Deploy\n\nSee [[build]].\naws key {FAKE_KEY} here\n")
    git(ws, "add", "notes/deploy.md")
    proc = _shim(ws)
    assert proc.returncode == 1
    assert "hippo: notes/deploy.md:4: looks like a secret (aws_access_key_id)" in proc.stderr
    assert "hippo_git.transcripts.redact" in _loaded(proc.stderr)


def test_the_fast_hook_entry_fails_like_the_cli(ws: Path) -> None:
    (ws / "notes/deploy.md").write_text(f"# Deploy\n\naws key {FAKE_KEY} here\n")
    git(ws, "add", "notes/deploy.md")
    blocked = _hook(ws)
    assert blocked.returncode == 1 and "notes/deploy.md:3: looks like a secret" in blocked.stderr
    (ws / ".hippo/hippo.toml").write_text("notes_dir = [\n")
    broken = _hook(ws)
    assert broken.returncode == 1 and "error: " in broken.stderr and "hippo.toml" in broken.stderr
    assert "Traceback" not in broken.stderr


def test_redaction_compiles_only_the_patterns_a_text_reaches() -> None:
    """Compiling every pattern cost ~100 ms of each commit; a plain note reaches almost none."""
    import sys

    code = (
        "from hippo_git.transcripts import redact as r, redact_tables as t\n"
        "r.find_secrets('# Build\\n\\nRun make test. See [[index]].\\n')\n"
        "rows = lambda: [rx for _, rx in sum(r._DISPATCH.values(), [])] + [row[1] for row in r._RULES]\n"
        "lazy = sum(isinstance(rx, t.LazyPattern) for rx in rows())\n"
        f"assert r.find_secrets('aws key {FAKE_KEY} here') == [(1, 'aws_access_key_id')]\n"
        "left = sum(isinstance(rx, t.LazyPattern) for rx in rows())\n"
        "print(len(rows()), lazy, left)\n"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    total, lazy, left = map(int, proc.stdout.split())
    assert total > 50 and lazy == total and left < lazy
