"""`capture.markdown_dirs`: their files are searchable with `git hippo search`, current after a
change with the watcher running and without it (ingest and search refresh them too)."""

from __future__ import annotations

import json
import os
import sqlite3
from pathlib import Path

from hippo_git.capture import markdown
from hippo_git.config import load_config
from tests.capture_support import capture_config, hippo_home, running, wait_for
from tests.conftest import run_cli

ADR = "# Parser cache\n\nWe keep the parser cache compressed with zstandard, keyed by path.\n"


def _workspace(repo: Path) -> Path:
    (repo / ".hippo").mkdir(exist_ok=True)
    (repo / ".hippo/hippo.toml").write_text('notes_dir = "notes"\n[capture]\nmarkdown_dirs = ["docs/adr"]\n')
    (repo / "notes").mkdir(exist_ok=True)
    folder = repo / "docs" / "adr"
    folder.mkdir(parents=True)
    return folder


def _search(repo: Path, *words: str) -> list[dict[str, object]]:
    proc = run_cli(["search", *words, "--json"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    return [hit for hit in json.loads(proc.stdout) if hit["kind"] == "markdown"]


def _stored(repo: Path) -> dict[str, str]:
    """path → title as the index holds them now, without refreshing it."""
    path = markdown.index_path(load_config(repo))
    if not path.exists():
        return {}
    conn = sqlite3.connect(path)
    try:
        return dict(conn.execute("SELECT path, title FROM documents").fetchall())
    except sqlite3.OperationalError:
        return {}
    finally:
        conn.close()


def test_search_and_ingest_find_the_markdown_folders_and_follow_changes(repo: Path) -> None:
    folder = _workspace(repo)
    (folder / "0001-cache.md").write_text(ADR)
    (folder / ".draft.md").write_text("zstandard in a hidden draft\n")
    assert run_cli(["ingest"], cwd=repo).returncode == 0  # builds the transcript index search needs
    (hits,) = [_search(repo, "zstandard")]
    assert [(h["path"], h["title"]) for h in hits] == [("docs/adr/0001-cache.md", "Parser cache")]
    assert "«zstandard»" in str(hits[0]["snippet"])

    page = folder / "0001-cache.md"
    page.write_text(ADR.replace("zstandard", "lz4"))
    os.utime(page, ns=(1, 1))  # a change the (size, mtime) check must see even from the past
    assert _search(repo, "zstandard") == []
    assert [h["path"] for h in _search(repo, "lz4")] == ["docs/adr/0001-cache.md"]

    (folder / "0002-queue.md").write_text("# Queue\n\nJobs retry with backoff.\n")
    ingest = run_cli(["ingest", "--json"], cwd=repo)
    assert ingest.returncode == 0, ingest.stderr
    assert json.loads(ingest.stdout)["markdown"]["updated"] == ["docs/adr/0002-queue.md"]
    page.unlink()
    assert _search(repo, "lz4") == []
    assert set(_stored(repo)) == {"docs/adr/0002-queue.md"}
    text = run_cli(["search", "backoff"], cwd=repo)
    assert "docs/adr/0002-queue.md  markdown  Queue" in text.stdout


def test_the_watcher_reads_a_changed_markdown_file_again(tmp_path: Path, repo: Path) -> None:
    folder = _workspace(repo)
    capture_config(hippo_home(), tmp_path / "claude")
    with running(repo):
        (folder / "0003-deploy.md").write_text("# Deploy\n\nTag first.\n")
        assert wait_for(lambda: _stored(repo).get("docs/adr/0003-deploy.md") == "Deploy")
        (folder / "0003-deploy.md").write_text("# Deploying\n\nTag first, then push.\n")
        assert wait_for(lambda: _stored(repo).get("docs/adr/0003-deploy.md") == "Deploying")
