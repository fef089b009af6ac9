"""The pre-commit hook's own read of notes_dir (`config_files.workspace_notes_dir`) agrees with
the full `load_config`, in what it answers and in what it refuses."""

from __future__ import annotations

import os
import random
import tomllib
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.config_files import simple_toml, workspace_notes_dir
from hippo_git.config_schema import workspace_template
from hippo_git.errors import ConfigError

CASES = [
    None,  # no hippo.toml at all
    'notes_dir = "notes"\n',
    'notes_dir = "docs/kb/"\n',
    'target_branch = "trunk"\n[context]\nbudget_bytes = 5000\n',
    'notes_dir = "../outside"\n',
    'notes_dir = ".hippo/x"\n',
    'notes_dir = "/etc"\n',
    'notes_dir = "link"\n',  # a symbolic link out of the repository
    'notes_dir = "inner"\n',  # a symbolic link into .git
    "notes_dir = [\n",  # not TOML
    "nots_dir = 'x'\n",  # an unknown key
    "notes_dir = 3\n",  # the wrong type
    "[context]\nbudget_bytes = -1\n",  # another key, wrong: the whole file is validated
]


@pytest.mark.parametrize("text", CASES)
def test_the_hooks_notes_dir_is_load_configs(repo: Path, text: str | None) -> None:
    (repo / ".hippo").mkdir(exist_ok=True)
    (repo / "docs/kb").mkdir(parents=True)
    os.symlink(repo.parent, repo / "link")
    os.symlink(repo / ".git", repo / "inner")
    if text is not None:
        (repo / ".hippo/hippo.toml").write_text(text)
    try:
        expected: str | Exception = load_config(repo).notes_dir
    except ConfigError as exc:
        expected = exc
    if isinstance(expected, str):
        assert workspace_notes_dir(repo) == expected
        assert workspace_notes_dir(str(repo / ".")) == expected
        return
    with pytest.raises(ConfigError) as got:
        workspace_notes_dir(str(repo))
    assert got.value.message == expected.message and got.value.hint == expected.hint


def test_a_broken_machine_file_does_not_block_commits(repo: Path) -> None:
    """The machine file cannot set notes_dir: the hook does not read it (doctor reports it)."""
    home = Path(os.environ["HIPPO_HOME"])
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text("model_command = [\n")
    with pytest.raises(ConfigError):
        load_config(repo)
    assert workspace_notes_dir(repo) == "notes"


def test_simple_toml_reads_the_template_as_tomllib_does() -> None:
    for branch, notes in (("main", "notes"), ("trunk", "docs/kb")):
        text = workspace_template(branch, notes)
        assert simple_toml(text) == tomllib.loads(text)
    assert simple_toml(workspace_template('we"ird\\')) is None  # escapes: left to tomllib


LINES = [
    "", "# a comment", "# ü € \u2028 `$x`", "[context]", "[ dream ]", "[x]", "[a.b]", "[[arr]]", "[]",
    'notes_dir = "notes"', "notes_dir='docs'", 'k = "a\\nb"', 'k = "tab\there"', "k = 'it''s'", 'k = "x" # c',
    "k = 0", "k = -0", "k = +7", "k = 01", "k = 1_000", "k = 1e3", "k = 12345678901234567890", "k = true",
    "k = []", "k = [ ]", 'k = ["a", \'b\' ,]', "k = [,]", 'k = ["a" "b"]', 'k = ["a", 1]', "k = {}", "k = { }",
    'k = {a = "b"}', "a.b = 1", '"q" = 1', "k =", "= 1", "k = 1 2", "k\t=\t5", "  k = 5  ", "x = 1", "x = 2",
    "k = \"\x7f\"", "k = 'é'", "k = \"\x01\"", "\r", "k = 5\r", "roots = {}", "[transcripts]", "budget_bytes = 9000",
]  # fmt: skip


def test_simple_toml_answers_only_what_tomllib_answers_alike() -> None:
    """A random file of plain and odd lines: either `simple_toml` leaves it to tomllib (None), or
    tomllib reads it without error into the same tables."""
    rng = random.Random(7)
    answered = 0
    for _ in range(4000):
        text = "\n".join(rng.choices(LINES, k=rng.randint(1, 8)))
        mine = simple_toml(text)
        if mine is None:
            continue
        answered += 1
        assert tomllib.loads(text) == mine, text
    assert answered > 400  # the plain files were read here, not all left to tomllib
