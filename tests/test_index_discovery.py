"""Discovery decides once per folder what it used to decide per file, with the same answers:
whether a source lies in the model runs' scratch folders (as given or through symlinks), and
what an unchanged source's signature is (read through a covering index)."""

from __future__ import annotations

import os
from pathlib import Path

from hippo_git.config import Config
from hippo_git.index.db import connect
from hippo_git.index.sources import _Guard
from hippo_git.signals.refresh import ingest
from tests.index_support import claude_lines, config, write_jsonl


def _per_file(roots: list[str], path: str) -> bool:
    """The guard's definition, path by path."""
    folder, name = os.path.split(path)
    candidates = (path, os.path.join(os.path.realpath(folder), name))
    return any(p == r or p.startswith(r + os.sep) for p in candidates for r in roots)


def test_the_per_folder_guard_answers_as_the_per_file_one(tmp_path: Path) -> None:
    home = tmp_path / "home"
    runs = home / "model-runs"
    (runs / "run-1" / "deep").mkdir(parents=True)
    (home / "model-runs-not").mkdir()
    (tmp_path / "alias").symlink_to(runs / "run-1")
    (tmp_path / "plain").mkdir()
    guard = _Guard(Config(root=tmp_path, home=home))
    paths = [
        str(runs),  # a root itself
        str(runs / "a.jsonl"),
        str(runs / "run-1" / "deep" / "b.jsonl"),
        str(home / "model-runs-not" / "c.jsonl"),  # a sibling whose name starts like a root
        str(home / "d.jsonl"),
        str(tmp_path / "alias" / "e.jsonl"),  # under a root through a symlinked folder
        str(tmp_path / "plain" / "f.jsonl"),
    ]
    expected = [_per_file(guard.roots, p) for p in paths]
    assert expected == [True, True, True, False, False, True, False]
    for _ in range(2):  # asked again, answered from what was learnt of each folder
        assert [guard.forbidden(p) for p in paths] == expected


def test_an_unchanged_corpus_is_skipped_by_its_signatures(tmp_path: Path, repo: Path) -> None:
    for n in range(3):
        write_jsonl(tmp_path / "p" / f"s-{n}.jsonl", claude_lines(f"s-{n}", "/w", [("user", f"hello {n}")]))
    cfg = config(repo, {"claude-code": [tmp_path / "p"]})
    assert ingest(cfg).files_read == 3
    again = ingest(cfg)
    assert (again.files_read, again.files_skipped) == (0, 3)
    conn = connect(cfg.index_path, readonly=True)
    plan = conn.execute("EXPLAIN QUERY PLAN SELECT path, size, mtime_ns, id FROM sources").fetchall()
    conn.close()
    assert "COVERING INDEX sources_signature" in " ".join(str(step[-1]) for step in plan)


def test_a_reader_of_an_index_without_the_signature_index_needs_no_ingest(tmp_path: Path, repo: Path) -> None:
    write_jsonl(tmp_path / "p" / "s-1.jsonl", claude_lines("s-1", "/w", [("user", "hello")]))
    cfg = config(repo, {"claude-code": [tmp_path / "p"]})
    ingest(cfg)
    conn = connect(cfg.index_path)  # as an ingest of the release before it left the index
    conn.execute("DROP INDEX sources_signature")
    conn.execute("DELETE FROM migrations WHERE name = '0003-sources-signature'")
    conn.close()
    reader = connect(cfg.index_path, readonly=True)
    assert reader.execute("SELECT count(*) FROM turns").fetchone() == (1,)
    reader.close()
    ingest(cfg)  # the next ingest adds it
    conn = connect(cfg.index_path, readonly=True)
    assert conn.execute("SELECT 1 FROM sqlite_master WHERE name = 'sources_signature'").fetchone()
    conn.close()
