"""The pre-commit hook's own read of notes_dir (`config_files.workspace_notes_dir`) agrees with
the full `load_config`, in what it answers and in what it refuses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.config_files import workspace_notes_dir
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
