"""`git hippo config set`: one value changes in the user's TOML, every comment and line around it kept."""

from __future__ import annotations

import difflib
import json
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.errors import ConfigError
from hippo_git.team.settings import set_setting
from hippo_git.team.setup import init_workspace
from tests.conftest import run_cli


def _changed_lines(before: str, after: str) -> list[str]:
    return [
        line
        for line in difflib.unified_diff(before.splitlines(), after.splitlines(), lineterm="", n=0)
        if line[:1] in "+-" and not line.startswith(("+++", "---"))
    ]


def test_set_changes_one_line_and_keeps_the_comments(repo: Path) -> None:
    init_workspace(repo, install_hooks=False)
    toml = repo / ".hippo/hippo.toml"
    before = toml.read_text().replace("chunk_hours = 24", "chunk_hours = 24  # my reason")
    toml.write_text(before)
    proc = run_cli(["config", "set", "dream.chunk_hours", "12"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    after = toml.read_text()
    assert _changed_lines(before, after) == [
        "-chunk_hours = 24  # my reason",
        "+chunk_hours = 12  # my reason",
    ]
    assert load_config(repo).dream.chunk_hours == 12
    proc = run_cli(
        ["config", "set", "ci.install", "hippo-git @ git+https://example.com/h@abc", "--json"], cwd=repo
    )
    assert json.loads(proc.stdout)["new"] == "hippo-git @ git+https://example.com/h@abc"
    assert load_config(repo).ci_install == "hippo-git @ git+https://example.com/h@abc"


def test_a_missing_table_is_added_and_lists_parse_as_toml(repo: Path) -> None:
    init_workspace(repo, install_hooks=False)
    toml = repo / ".hippo/hippo.toml"
    toml.write_text("# just this\n")
    set_setting(repo, "context.required", '["build.md", "style.md"]')
    set_setting(repo, "transcripts.roots.codex", '["~/rollouts"]')
    text = toml.read_text()
    assert text.startswith("# just this\n")
    cfg = load_config(repo)
    assert cfg.context.required == ("build.md", "style.md")
    assert cfg.transcript_roots["codex"][0].endswith("rollouts")


def test_wrong_values_and_keys_are_refused_with_the_file_untouched(repo: Path) -> None:
    init_workspace(repo, install_hooks=False)
    toml = repo / ".hippo/hippo.toml"
    before = toml.read_text()
    with pytest.raises(ConfigError, match="must be a positive whole number"):
        set_setting(repo, "dream.chunk_hours", "-3")
    with pytest.raises(ConfigError, match="unknown key") as err:
        set_setting(repo, "dream.chunkhours", "3")
    assert "dream.chunk_hours" in (err.value.hint or "")
    with pytest.raises(ConfigError, match="unknown key"):
        set_setting(repo, "ingest.workers", "2")  # a machine setting
    assert toml.read_text() == before
    bad = run_cli(["config", "set", "dream.chunk_hours", "soon"], cwd=repo)
    assert bad.returncode == 2 and "not a value for dream.chunk_hours" in bad.stderr


def test_machine_settings_go_to_hippo_home(repo: Path, hermetic_env: Path) -> None:
    change = set_setting(repo, "ingest.workers", "2", machine=True)
    assert change.path == hermetic_env / "hippo-home" / "config.toml"
    assert load_config(repo).ingest_workers == 2
