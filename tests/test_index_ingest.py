"""Incremental ingest: the real corpus, unchanged re-runs, grown/shrunk/rewritten files, failures,
the model-runs exclusion, `--full`, and the lock."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_git.errors import HippoError, LockedError, UsageError
from hippo_git.index.db import connect
from hippo_git.index.lock import IndexLock, is_held, lock_path_for
from hippo_git.signals.refresh import ingest
from tests.conftest import corpus, make_repo, run_cli
from tests.index_support import claude_lines, config, dump_turns, fts_consistent, write_jsonl

CORPUS_DIRS = {
    "claude-code": "claude-code",
    "codex": "codex",
    "opencode": "opencode",
    "gemini-cli": "gemini-cli",
    "cursor": "cursor",
    "deepseek-harness": "deepseek-harness",
    "muse-code": "muse-code",
    "aider": "aider",
}


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    return make_repo(tmp_path / "repo")


def fresh_dump(
    tmp_path: Path, repo: Path, roots: dict[str, list[Path]], monkeypatch: pytest.MonkeyPatch
) -> list:
    """The turns a clean ingest of the same transcripts produces (in another HIPPO_HOME)."""
    old = os.environ["HIPPO_HOME"]
    monkeypatch.setenv("HIPPO_HOME", str(tmp_path / "clean-home"))
    try:
        cfg = config(repo, roots)
        ingest(cfg)
        return dump_turns(cfg.index_path)
    finally:
        monkeypatch.setenv("HIPPO_HOME", old)


def test_every_corpus_file_ingests_and_an_unchanged_rerun_adds_nothing(repo: Path) -> None:
    base = corpus("transcripts")
    roots = {h: [base / d] for h, d in CORPUS_DIRS.items()}
    cfg = config(repo, roots)
    first = ingest(cfg)
    assert first.failed == []
    assert first.files_read == first.files_seen >= 30
    assert first.turns_added > 1500
    conn = connect(cfg.index_path, readonly=True)
    harnesses = {r[0] for r in conn.execute("SELECT DISTINCT harness FROM sessions")}
    indexed = {r[0] for r in conn.execute("SELECT path FROM sources")}
    conn.close()
    assert harnesses == set(CORPUS_DIRS)
    # Every transcript file of the corpus is read: found by the adapter's discovery, or (names a
    # harness would not have written, e.g. `session-01.jsonl` for Codex) named with --root.
    for harness, folder in CORPUS_DIRS.items():
        for path in sorted((base / folder).rglob("*")):
            if path.suffix not in (".jsonl", ".md", ".db", ".json") or "storage_" in str(path):
                continue
            if str(path) not in indexed and not path.name.endswith(".meta.json"):
                one = ingest(cfg, root=path, harness=harness)
                assert one.failed == [] and one.files_read == 1, path
                indexed.add(str(path))
    assert fts_consistent(cfg.index_path)

    again = ingest(cfg)
    assert again.files_read == 0 and again.turns_added == 0 and again.turns_removed == 0
    assert again.files_skipped == first.files_seen
    assert again.failed == []
    conn = connect(cfg.index_path, readonly=True)
    assert conn.execute("SELECT count(*) FROM sources").fetchone()[0] == len(indexed)
    conn.close()


def test_grown_file_appends_without_duplicates(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "claude"
    path = folder / "proj" / "s-grow.jsonl"
    pairs = [("user", "first question about parsers"), ("assistant", "first answer about parsers")]
    write_jsonl(path, claude_lines("s-grow", "/work/x", pairs))
    roots = {"claude-code": [folder]}
    cfg = config(repo, roots)
    assert ingest(cfg).turns_added == 2

    more = claude_lines(
        "s-grow", "/work/x", [*pairs, ("user", "second question"), ("assistant", "second answer")]
    )
    write_jsonl(path, more[2:], append=True)
    grown = ingest(cfg)
    assert grown.files_read == 1
    assert grown.turns_added == 2 and grown.turns_removed == 0
    assert dump_turns(cfg.index_path) == fresh_dump(tmp_path, repo, roots, monkeypatch)

    # A torn last line (still being written) is left for the next run, then picked up once whole.
    line = json.dumps(
        claude_lines(
            "s-grow", "/work/x", [*pairs, ("user", "q"), ("assistant", "a"), ("user", "third question")]
        )[4]
    )
    with path.open("a") as fh:
        fh.write(line[:40])
    torn = ingest(cfg)
    assert torn.turns_added == 0 and torn.failed == []
    with path.open("a") as fh:
        fh.write(line[40:] + "\n")
    done = ingest(cfg)
    assert done.turns_added == 1
    assert dump_turns(cfg.index_path) == fresh_dump(tmp_path, repo, roots, monkeypatch)


def test_shrunk_or_rewritten_file_replaces_its_turns(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "claude"
    path = folder / "proj" / "s-edit.jsonl"
    long = [("user", f"question number {i}") for i in range(6)]
    write_jsonl(path, claude_lines("s-edit", "/work/x", long))
    write_jsonl(
        folder / "proj" / "s-other.jsonl", claude_lines("s-other", "/work/x", [("user", "unrelated")])
    )
    roots = {"claude-code": [folder]}
    cfg = config(repo, roots)
    ingest(cfg)

    write_jsonl(path, claude_lines("s-edit", "/work/x", [("user", "shorter now")]))  # shrank
    shrunk = ingest(cfg)
    assert shrunk.files_read == 1 and shrunk.turns_removed == 6 and shrunk.turns_added == 1
    assert dump_turns(cfg.index_path) == fresh_dump(tmp_path, repo, roots, monkeypatch)

    # Same size or longer, but the head differs: a different file now, read whole.
    rewritten = claude_lines(
        "s-new", "/work/y", [("user", "brand new session"), ("assistant", "with an answer")]
    )
    write_jsonl(path, rewritten)
    again = ingest(cfg)
    assert again.turns_removed == 1 and again.turns_added == 2
    turns = dump_turns(cfg.index_path)
    assert turns == fresh_dump(tmp_path, repo, roots, monkeypatch)
    assert {t[0] for t in turns} == {"s-new", "s-other"}  # the old session went with its turns
    conn = connect(cfg.index_path, readonly=True)
    assert {r[0] for r in conn.execute("SELECT id FROM sessions")} == {"s-new", "s-other"}
    conn.close()
    assert fts_consistent(cfg.index_path)


def test_failing_source_is_reported_and_skipped(
    tmp_path: Path, repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = tmp_path / "claude" / "proj"
    write_jsonl(folder / "good.jsonl", claude_lines("s-good", "/work/x", [("user", "fine")]))
    folder.mkdir(parents=True, exist_ok=True)
    sock = socket.socket(socket.AF_UNIX)
    monkeypatch.chdir(folder)  # a relative name: macOS caps socket paths at 104 bytes
    sock.bind("broken.jsonl")  # listed like a file, but cannot be read
    try:
        cfg = config(repo, {"claude-code": [tmp_path / "claude"]})
        summary = ingest(cfg)
    finally:
        sock.close()
    assert summary.turns_added == 1
    assert [f.path for f in summary.failed] == [str(folder / "broken.jsonl")]
    assert summary.failed[0].reason


def test_model_runs_are_never_ingested(tmp_path: Path, repo: Path) -> None:
    home = Path(os.environ["HIPPO_HOME"])
    write_jsonl(
        home / "model-runs" / "run-1" / "leak.jsonl", claude_lines("s-model", "/m", [("user", "model run")])
    )
    write_jsonl(home / "elsewhere" / "ok.jsonl", claude_lines("s-ok", "/m", [("user", "kept")]))
    cfg = config(repo, {"claude-code": [home]})
    summary = ingest(cfg)
    assert summary.files_read == 1
    conn = connect(cfg.index_path, readonly=True)
    assert [r[0] for r in conn.execute("SELECT id FROM sessions")] == ["s-ok"]
    conn.close()


def test_model_runs_reached_through_a_symlinked_folder_are_never_ingested(tmp_path: Path, repo: Path) -> None:
    home = Path(os.environ["HIPPO_HOME"])
    write_jsonl(
        home / "model-runs" / "run-1" / "deep" / "leak.jsonl",
        claude_lines("s-model", "/m", [("user", "model run")]),
    )
    write_jsonl(tmp_path / "real" / "proj" / "ok.jsonl", claude_lines("s-ok", "/m", [("user", "kept")]))
    (tmp_path / "real" / "runs").symlink_to(home / "model-runs")  # not walked (a folder symlink)
    (tmp_path / "alias").symlink_to(home / "model-runs" / "run-1")  # a configured root that is one
    cfg = config(repo, {"claude-code": [tmp_path / "real", tmp_path / "alias"]})
    summary = ingest(cfg)
    assert summary.files_read == 1
    conn = connect(cfg.index_path, readonly=True)
    assert [r[0] for r in conn.execute("SELECT id FROM sessions")] == ["s-ok"]
    conn.close()


def test_root_and_harness_ingest_one_place(tmp_path: Path, repo: Path) -> None:
    a = write_jsonl(tmp_path / "a" / "s-a.jsonl", claude_lines("s-a", "/w", [("user", "alpha")]))
    write_jsonl(tmp_path / "b" / "s-b.jsonl", claude_lines("s-b", "/w", [("user", "beta")]))
    cfg = config(repo, {"claude-code": [tmp_path / "a", tmp_path / "b"]})
    with pytest.raises(UsageError):
        ingest(cfg, root=tmp_path / "a")
    one = ingest(cfg, root=a, harness="claude-code")
    assert one.files_read == 1
    rest = ingest(cfg, harness="claude-code")
    assert rest.files_read == 1 and rest.files_skipped == 1


def test_full_rebuild_matches_and_replaces_the_index(tmp_path: Path, repo: Path) -> None:
    folder = tmp_path / "claude"
    write_jsonl(folder / "s-1.jsonl", claude_lines("s-1", "/w", [("user", "one"), ("assistant", "two")]))
    write_jsonl(folder / "s-2.jsonl", claude_lines("s-2", "/w", [("user", "three")]))
    cfg = config(repo, {"claude-code": [folder]})
    ingest(cfg)
    before = dump_turns(cfg.index_path)
    (folder / "s-2.jsonl").unlink()  # a transcript that is gone stays in the index until --full
    assert dump_turns(cfg.index_path) == before
    reader = connect(cfg.index_path, readonly=True)  # a reader open across the rebuild
    summary = ingest(cfg, full=True)
    assert summary.full and summary.files_read == 1
    assert reader.execute("SELECT count(*) FROM turns").fetchone()[0] == 2
    reader.close()
    assert {t[0] for t in dump_turns(cfg.index_path)} == {"s-1"}
    assert fts_consistent(cfg.index_path)
    assert not list(cfg.index_path.parent.glob("*.rebuild*"))
    assert ingest(cfg).files_read == 0


def test_second_ingest_is_refused_with_a_clear_message(tmp_path: Path, repo: Path) -> None:
    cfg = config(repo, {"claude-code": [tmp_path / "none"]})
    with IndexLock(cfg.index_path):
        assert is_held(cfg.index_path)
        with pytest.raises(LockedError) as err:
            ingest(cfg)
        assert f"pid {os.getpid()}" in str(err.value)
        proc = run_cli(["ingest"], cwd=repo)
        assert proc.returncode == 1
        assert "another ingest" in proc.stderr and "Traceback" not in proc.stderr
    assert not is_held(cfg.index_path)


def test_lock_left_by_a_dead_process_is_taken_over(tmp_path: Path, repo: Path) -> None:
    cfg = config(repo, {"claude-code": [tmp_path / "none"]})
    holder = subprocess.run(
        [sys.executable, "-c", "import os,sys; print(os.getpid())"],
        capture_output=True,
        text=True,
        check=True,
    )
    lock = lock_path_for(cfg.index_path)
    lock.parent.mkdir(parents=True, exist_ok=True)
    lock.write_text(holder.stdout)  # the pid of a process that has exited
    assert not is_held(cfg.index_path)
    assert ingest(cfg).failed == []


def test_cli_ingest_reports_on_stderr_and_json_on_stdout(tmp_path: Path, repo: Path) -> None:
    folder = tmp_path / "claude"
    write_jsonl(folder / "s-cli.jsonl", claude_lines("s-cli", "/w", [("user", "hello"), ("assistant", "hi")]))
    config(repo, {"claude-code": [folder]})
    proc = run_cli(["ingest", "--json"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    assert data["files"]["read"] == 1 and data["turns_added"] == 2
    assert "read 1 files" in proc.stderr
    again = run_cli(["ingest"], cwd=repo)
    assert again.returncode == 0 and again.stdout == ""
    assert "skipped 1 unchanged" in again.stderr


def test_pending_sources_counts_what_ingest_would_read(tmp_path: Path, repo: Path) -> None:
    from hippo_git.index.ingest import pending_sources

    folder = tmp_path / "claude"
    a = write_jsonl(folder / "s-a.jsonl", claude_lines("s-a", "/w", [("user", "alpha")]))
    cfg = config(repo, {"claude-code": [folder]})
    assert pending_sources(cfg) == (1, a.stat().st_size)  # no index yet: everything
    assert not cfg.index_path.exists()
    ingest(cfg)
    assert pending_sources(cfg) == (0, 0)
    write_jsonl(a, claude_lines("s-a", "/w", [("user", "alpha"), ("assistant", "beta")])[1:], append=True)
    assert pending_sources(cfg) == (1, a.stat().st_size)


def test_full_rebuild_replaces_a_damaged_index(tmp_path: Path, repo: Path) -> None:
    folder = tmp_path / "claude"
    write_jsonl(folder / "s-1.jsonl", claude_lines("s-1", "/w", [("user", "one")]))
    cfg = config(repo, {"claude-code": [folder]})
    cfg.index_path.parent.mkdir(parents=True, exist_ok=True)
    cfg.index_path.write_bytes(b"this is not a database" * 300)
    with pytest.raises(HippoError) as err:
        ingest(cfg)
    assert "--full" in (err.value.hint or "")
    assert ingest(cfg, full=True).turns_added == 1
    assert [t[0] for t in dump_turns(cfg.index_path)] == ["s-1"]
