"""A committed hippo.toml is input from whoever pushed it: notes_dir may not point outside the work
tree or into .git/ or .hippo/ (issue 12), and nothing then serves or validates outside files."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_git.agents.mcp_server import Tools
from hippo_git.config import load_config
from hippo_git.errors import ConfigError
from hippo_git.team.doctor import run_doctor
from tests.conftest import make_repo, run_cli

OUTSIDE = "# Outside\n\nPRIVATE-OUTSIDE-TEXT lives here.\n"


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "ws")
    assert run_cli(["init", "--no-hooks"], cwd=root).returncode == 0
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "index.md").write_text(OUTSIDE)
    (root / ".git" / "index.md").write_text(OUTSIDE)
    (root / ".hippo" / "index.md").write_text(OUTSIDE)
    return root


def _set(ws: Path, notes_dir: str) -> None:
    (ws / ".hippo" / "hippo.toml").write_text(f"notes_dir = {json.dumps(notes_dir)}\n")


BAD = [
    "../outside",
    "notes/../../outside",
    ".git",
    ".hippo",
    "docs/.git",
    "/tmp",
    "~/notes",
    "C:/notes",
    "a\\b",
]


@pytest.mark.parametrize("value", BAD)
def test_config_refuses_a_notes_dir_outside_the_work_tree(ws: Path, value: str) -> None:
    _set(ws, value)
    with pytest.raises(ConfigError) as err:
        load_config(ws)
    assert "notes_dir" in err.value.message and "hippo.toml" in err.value.message
    proc = run_cli(["context"], cwd=ws)
    assert proc.returncode == 1 and "PRIVATE-OUTSIDE-TEXT" not in proc.stdout
    lines = proc.stderr.strip().splitlines()
    assert "notes_dir" in lines[0] and "Traceback" not in proc.stderr


def test_a_notes_dir_that_is_a_link_out_of_the_work_tree_or_into_git_is_refused(ws: Path) -> None:
    os.symlink(ws.parent / "outside", ws / "kb")
    os.symlink(ws / ".git", ws / "gitlink")
    for value in ("kb", "gitlink"):
        _set(ws, value)
        with pytest.raises(ConfigError, match="symbolic link"):
            load_config(ws)


@pytest.mark.parametrize(("value", "kept"), [("notes", "notes"), ("notes/", "notes"), ("docs/kb", "docs/kb")])
def test_ordinary_notes_dirs_are_kept(ws: Path, value: str, kept: str) -> None:
    _set(ws, value)
    assert load_config(ws).notes_dir == kept


def test_hooks_mcp_and_doctor_serve_nothing_from_outside(ws: Path) -> None:
    _set(ws, "../outside")
    payload = {"session_id": "s-1", "cwd": str(ws), "hook_event_name": "SessionStart", "source": "startup"}
    proc = subprocess.run(
        [sys.executable, "-m", "hippo_git", "hook", "session-start"],
        cwd=ws,
        input=json.dumps(payload),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stderr) == (0, "")  # a hook never fails the agent
    assert "PRIVATE-OUTSIDE-TEXT" not in proc.stdout
    with pytest.raises(ConfigError, match="notes_dir"):
        Tools(ws).note_get("index")
    report = run_doctor(ws, probe=False)
    texts = [f"{c.name}: {c.status}: {c.saw}" for c in report.checks]
    assert any("notes_dir" in t and ": red:" in t for t in texts), texts
    assert not any("outside" in t and ": green:" in t for t in texts), texts


def test_init_writes_nothing_outside_for_a_bad_notes_dir(tmp_path: Path) -> None:
    root = make_repo(tmp_path / "fresh")
    proc = run_cli(["init", "--no-hooks", "--notes-dir", "../escaped"], cwd=root)
    assert proc.returncode == 1 and "--notes-dir" in proc.stderr and "Traceback" not in proc.stderr
    assert not (tmp_path / "escaped").exists()


def test_a_note_that_is_a_link_out_of_the_notes_is_never_indexed_or_served(ws: Path) -> None:
    os.symlink(ws.parent / "outside" / "index.md", ws / "notes" / "private.md")
    os.symlink(ws / "notes" / "index.md", ws / "notes" / "alias.md")  # inside: still a note
    cfg = load_config(ws)
    from hippo_git.notes.notes_index import refresh_notes_index

    refresh_notes_index(cfg)
    with pytest.raises(Exception, match="no note named"):
        Tools(ws).note_get("private")
    assert "notes/alias.md" in Tools(ws).note_get("alias")
    proc = run_cli(["context", "--task", "private outside text lives here"], cwd=ws)
    assert proc.returncode == 0 and "notes/private.md" not in proc.stdout
    assert "PRIVATE-OUTSIDE-TEXT" not in proc.stdout
