"""Configuration files: validation with file/line/key, suggestions, provenance, HIPPO_HOME."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hippo_git.config import hippo_home, load_config
from hippo_git.errors import ConfigError
from hippo_git.team.setup import init_workspace
from tests.conftest import run_cli


def test_hippo_home_follows_env_and_xdg(tmp_path: Path) -> None:
    assert hippo_home({"HIPPO_HOME": str(tmp_path / "h")}) == tmp_path / "h"
    assert (
        hippo_home({"XDG_DATA_HOME": str(tmp_path / "x"), "HOME": "/nowhere"}) == tmp_path / "x" / "hippo-git"
    )
    assert hippo_home({"HOME": str(tmp_path)}) == tmp_path / ".local/share/hippo-git"


def test_malformed_toml_names_file_and_line(repo: Path) -> None:
    init_workspace(repo)
    path = repo / ".hippo/hippo.toml"
    path.write_text('notes_dir = "notes"\ntarget_branch = \n')
    with pytest.raises(ConfigError) as err:
        load_config(repo)
    assert str(path) in err.value.message and "line 2" in err.value.message
    proc = run_cli(["config", "show"], cwd=repo)
    assert proc.returncode == 1
    assert proc.stderr.splitlines()[0].startswith(f"error: {path}")
    assert "Traceback" not in proc.stderr


def test_unknown_key_suggests_the_closest(repo: Path) -> None:
    path = repo / ".hippo/hippo.toml"
    path.parent.mkdir()
    path.write_text('notes_dir = "notes"\n\n[context]\nbudget_byte = 100\n')
    with pytest.raises(ConfigError) as err:
        load_config(repo)
    assert err.value.message == f"{path}:4: unknown key 'context.budget_byte'"
    assert err.value.hint == "did you mean 'context.budget_bytes'?"


def test_wrong_type_is_named(repo: Path) -> None:
    path = repo / ".hippo/hippo.toml"
    path.parent.mkdir()
    path.write_text('[dream]\napply = "sometimes"\n')
    with pytest.raises(ConfigError, match=r"hippo.toml:2: key 'dream.apply' must be"):
        load_config(repo)
    path.write_text("[context]\nbudget_bytes = -5\n")
    with pytest.raises(ConfigError, match="positive whole number"):
        load_config(repo)


def test_machine_config_errors_and_scope(repo: Path, hermetic_env: Path) -> None:
    home = hippo_home()
    home.mkdir(parents=True)
    (home / "config.toml").write_text('notes_dir = "elsewhere"\n')
    with pytest.raises(ConfigError, match="unknown key 'notes_dir'"):
        load_config(repo)
    (home / "config.toml").write_text(
        'model_command = ["llm", "-m", "x"]\n[transcripts.roots]\ncodex = ["~/rollouts"]\n'
    )
    cfg = load_config(repo)
    assert cfg.model_command == ("llm", "-m", "x")
    assert cfg.sources["model_command"] == str(home / "config.toml")
    assert cfg.transcript_roots["codex"] == (str(hermetic_env / "rollouts"),)


def test_config_show_reports_sources(repo: Path) -> None:
    init_workspace(repo)
    (repo / ".hippo/hippo.toml").write_text('notes_dir = "kb"\n')
    proc = run_cli(["config", "show", "--json"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    rows = {r["key"]: r for r in json.loads(proc.stdout)["settings"]}
    assert rows["notes_dir"]["value"] == "kb"
    assert rows["notes_dir"]["source"].endswith(".hippo/hippo.toml")
    assert rows["context.budget_bytes"]["source"] == "default"
    assert rows["transcripts.roots.aider"]["value"] == [str(repo)]
