"""The rollup, however it is computed (in process or with a worker, in one pass or session by
session, from scratch or updated), holds the same rows as a rebuild from the index."""

from __future__ import annotations

import sqlite3
import sys
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import WORKERS_ENV, Config
from hippo_git.index.ingest import ingest as index_ingest
from hippo_git.signals import rollup_pool
from hippo_git.signals.refresh import ingest
from hippo_git.signals.rollup import rollup_path, update_rollup
from hippo_git.signals.rollup_compute import SessionRows, computed
from tests.conftest import corpus, make_repo
from tests.index_support import config, write_jsonl
from tests.rules_support import claude_session

TABLES = ("sessions", "edits", "commands", "waits", "prs", "claims", "incidents")


def _dump(cfg: Config) -> dict[str, list[tuple[Any, ...]]]:
    conn = sqlite3.connect(rollup_path(cfg))
    try:
        return {t: sorted(conn.execute(f"SELECT * FROM {t}"), key=repr) for t in TABLES}
    finally:
        conn.close()


def _rebuilt(cfg: Config) -> dict[str, list[tuple[Any, ...]]]:
    for suffix in ("", "-wal", "-shm"):
        Path(str(rollup_path(cfg)) + suffix).unlink(missing_ok=True)
    assert update_rollup(cfg).rebuilt
    return _dump(cfg)


@pytest.fixture(params=["in process", "worker"])
def pool(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> str:
    """Compute in process, or with a worker process and chunks of one session (a subagent apart
    from its parent)."""
    if request.param == "worker":
        monkeypatch.setenv(WORKERS_ENV, "1")
        monkeypatch.setattr(rollup_pool, "CHUNK_SESSIONS", 1)
        monkeypatch.setattr(rollup_pool, "CHUNK_CHARS", 1)
    else:
        monkeypatch.setenv(WORKERS_ENV, "0")
    return str(request.param)


def _subagent(
    parent: str, agent: str, cwd: str, steps: list[tuple[str, ...]], start: int
) -> list[dict[str, Any]]:
    records = claude_session(parent, cwd, steps, start_minute=start)
    for r in records:
        r.update(isSidechain=True, agentId=agent, uuid=f"{agent}-{r['uuid']}")
        if r["parentUuid"]:
            r["parentUuid"] = f"{agent}-{r['parentUuid']}"
    return records


def test_updates_hold_the_rows_of_a_rebuild(tmp_path: Path, pool: str) -> None:
    repo = make_repo(tmp_path / "repo")
    folder = tmp_path / "claude" / "proj"
    cfg = config(repo, {"claude-code": [tmp_path / "claude"]})
    app, new = f"{repo}/app.py", "def main() -> None:\n    print('hello, strict world')\n"
    # A parent that says the tests pass on its subagent's run.
    write_jsonl(
        folder / "ppp.jsonl",
        claude_session("ppp", str(repo), [("user", "make it strict"), ("assistant", "Delegated.")])
        + claude_session("ppp", str(repo), [("assistant", "Done: all tests pass.")], start_minute=9),
    )
    tests_run = [
        ("user", "run the tests"),
        ("bash", "uv run pytest -q", "3 passed"),
        ("assistant", "3 passed."),
    ]
    write_jsonl(
        folder / "ppp" / "subagents" / "agent-t1.jsonl", _subagent("ppp", "t1", str(repo), tests_run, 2)
    )
    for sid, start in (("zzz", 0), ("xxx", 2), ("yyy", 3)):  # the same change to app.py, at once
        steps = [("user", "fix it"), ("edit", app, "pass", new), ("bash", "make", "error", "error")]
        records = claude_session(sid, str(repo), [*steps, ("assistant", "Fixed.")], start_minute=start)
        write_jsonl(folder / f"{sid}.jsonl", records)
    index_ingest(cfg, records=False)
    first = update_rollup(cfg)
    assert first.recomputed == first.sessions == 5
    rows = _dump(cfg)
    claim = [r for r in rows["claims"] if r[0] == "ppp"]
    assert [(r[5], r[6], r[9]) for r in claim] == [("checked", "ppp/agent-t1", "uv run pytest -q")]
    assert rows == _rebuilt(cfg)

    # The subagent's later run fails (its parent's claim with it); yyy goes on; a new session comes.
    failed: list[tuple[str, ...]] = [("bash", "uv run pytest -q", "Exit code 1\n1 failed", "error")]
    write_jsonl(
        folder / "ppp" / "subagents" / "agent-t1.jsonl",
        _subagent("ppp", "t1", str(repo), failed, 5),
        append=True,
    )
    write_jsonl(
        folder / "yyy.jsonl",
        claude_session("yyy", str(repo), [("edit", app, "a", "b"), ("bash", "make", "ok")], start_minute=4),
        append=True,
    )
    write_jsonl(folder / "www.jsonl", claude_session("www", str(repo), [("user", "no, revert that")]))
    assert ingest(cfg, records=False).changed_sessions == {"ppp/agent-t1", "yyy", "www"}  # and its rollup
    rows = _dump(cfg)
    assert [r[5] for r in rows["claims"] if r[0] == "ppp"] == ["contradicted"]
    assert rows == _rebuilt(cfg)
    # zzz's transcript goes: its rows, and the clashes others had with it, go too.
    assert {r[9] for r in rows["incidents"] if r[0] == "xxx" or r[0] == "yyy"} & {"zzz"}
    (folder / "zzz.jsonl").unlink()
    ingest(cfg, full=True, records=False)
    rows = _dump(cfg)
    assert "zzz" not in {r[0] for r in rows["sessions"]} | {r[9] for r in rows["incidents"]}
    assert rows == _rebuilt(cfg)


def test_a_worker_and_this_process_agree_on_the_corpus(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = corpus("transcripts")
    harnesses = [p.name for p in root.iterdir() if p.is_dir()]
    repo = make_repo(tmp_path / "repo")
    cfg = Config(root=repo, home=tmp_path / "home", transcript_roots={h: (str(root / h),) for h in harnesses})
    index_ingest(cfg, records=False)
    alone = _rebuilt(replace(cfg, ingest_workers=0))
    assert len(alone["sessions"]) > 20 and alone["commands"] and alone["incidents"]
    here: list[str] = []  # the sessions this process computed

    def counted(*args: Any) -> Iterator[SessionRows]:
        for rows in computed(*args):
            here.append(rows.sid)
            yield rows

    monkeypatch.setattr(rollup_pool, "computed", counted)
    cfg = replace(cfg, ingest_workers=1)
    monkeypatch.setattr(rollup_pool, "CHUNK_SESSIONS", 3)
    assert _rebuilt(cfg) == alone
    assert 0 < len(here) < len(alone["sessions"])  # the worker computed the others
    # A chunk too large to send whole, and the chunks of a worker that cannot start, are computed here.
    for setting in ((rollup_pool, "SEND_BYTES", 1), (sys, "executable", "/bin/false")):
        with monkeypatch.context() as patch:
            patch.setattr(*setting)
            here.clear()
            assert _rebuilt(cfg) == alone
            assert len(here) == len(alone["sessions"])


def test_chunks_keep_a_family_together_and_cover_every_session(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(rollup_pool, "CHUNK_SESSIONS", 2)
    cwds: dict[str, str | None] = {f"s{n:03d}": None for n in range(7)}
    cwds |= {"s002/agent-1": "/w", "s002/agent-2": "/w"}
    chunks = rollup_pool.chunks(cwds, total=len(cwds))
    flat = [sid for pairs, _ in chunks for sid, _ in pairs]
    assert flat == sorted(cwds)
    family = [pairs for pairs, _ in chunks if ("s002", None) in pairs][0]
    assert [sid for sid, _ in family][-2:] == ["s002/agent-1", "s002/agent-2"]
    # Each chunk reads its own range of the turns table, up to where the next one starts.
    scans = [scan for _, scan in chunks]
    assert scans[0] is not None and scans[0][0] == "s000" and scans[-1] is not None and scans[-1][1] is None
    # A few sessions of many: read one by one, not by range.
    assert all(scan is None for _, scan in rollup_pool.chunks(cwds, total=100 * len(cwds)))
