"""Incremental ingest: find transcripts, read what changed, redact, and write it into the index.

A source whose size and mtime match the index is skipped before any hashing; the others are
prepared (read from their cursor, parsed, redacted: `index.prepare`), in worker processes when
there is much to read (`index.pipeline`), and written here in the order they were found. Each
source's turns and cursor commit together (batched into
transactions of up to 64 MB read or 2 s), so a killed ingest leaves a consistent index that the
next run completes. A failing source is reported and skipped. Sources are written without a
savepoint each (at a savepoint FTS5 writes out a segment: see `writer`); the rare write that
fails midway undoes its batch, which is then written again source by source, each in its own
savepoint. `full` rebuilds into a temporary file and copies it over the live index with SQLite's
backup API, so readers see the old index or the new one, never half of either.
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.config import Config
from hippo_git.errors import HippoError, UsageError
from hippo_git.index.db import connect, remove_database
from hippo_git.index.lock import IndexLock
from hippo_git.index.pipeline import POOL_MIN_BYTES, prepared, start_workers, worker_count
from hippo_git.index.prepare import Prepared, Task
from hippo_git.index.scrub import Scrubber
from hippo_git.index.sources import FailedSource, Source, discover_sources, pending_sources
from hippo_git.index.workers import Worker
from hippo_git.index.writer import FtsRanges, Signature, flush_fts, stored, write_source
from hippo_git.transcripts.registry import get_adapter, harness_names

# Runs after an ingest with the sessions it changed (None: all of them, after a rebuild).
AfterIngest = Callable[[Config, "set[str] | None"], object]

# Commit at least this often (bytes of transcript read) or this often (seconds), so a killed
# ingest loses little work; each commit makes FTS5 write out a segment and merge, so not oftener.
BATCH_BYTES = 64 * 1024 * 1024
BATCH_SECONDS = 2.0
# The last batch's full-text rows are written once everything is prepared, with no other work
# left to overlap: a commit when this much is left keeps that last stretch short.
TAIL_BYTES = 8 * 1024 * 1024

Progress = Callable[[int, int, int], None]  # (files done, bytes done, total bytes)
__all__ = ["FailedSource", "IngestSummary", "Progress", "ingest", "pending_sources"]


@dataclass
class IngestSummary:
    """What one ingest read and wrote: files, turns, sessions, failures, redactions and skipped records."""

    files_seen: int = 0
    files_read: int = 0
    files_skipped: int = 0  # unchanged since the last ingest
    failed: list[FailedSource] = field(default_factory=list)
    bytes_read: int = 0
    turns_added: int = 0
    turns_removed: int = 0  # replaced turns (re-read sources); not a loss
    sessions: int = 0  # sessions written in this run
    changed_sessions: set[str] = field(default_factory=set)  # their ids (for the rollup)
    secrets: dict[str, int] = field(default_factory=dict)  # redactions by kind
    unknown: int = 0  # records of unknown types, skipped
    torn: int = 0  # torn or garbage lines, skipped
    recovered: int = 0  # `}{`-concatenated objects recovered
    reasoning: int = 0  # reasoning blocks seen (never indexed)
    duplicates: int = 0  # copies of content indexed from another record, skipped
    records_written: int = 0
    records_removed: int = 0
    records_declared: int = 0  # declared records left as they are
    full: bool = False
    seconds: float = 0.0

    def as_dict(self) -> dict[str, Any]:
        return {
            "files": {
                "seen": self.files_seen,
                "read": self.files_read,
                "skipped_unchanged": self.files_skipped,
                "failed": [{"path": f.path, "reason": f.reason} for f in self.failed],
            },
            "bytes_read": self.bytes_read,
            "turns_added": self.turns_added,
            "turns_replaced": self.turns_removed,
            "sessions": self.sessions,
            "secrets_redacted": dict(sorted(self.secrets.items())),
            "skipped": {
                "unknown_records": self.unknown,
                "torn_lines": self.torn,
                "recovered_objects": self.recovered,
                "reasoning_blocks": self.reasoning,
                "duplicate_copies": self.duplicates,
            },
            "records": {
                "written": self.records_written,
                "removed": self.records_removed,
                "declared_kept": self.records_declared,
            },
            "full": self.full,
            "seconds": round(self.seconds, 3),
        }


def ingest(
    cfg: Config,
    *,
    full: bool = False,
    root: Path | None = None,
    harness: str | None = None,
    progress: Progress | None = None,
    records: bool = True,
    after: AfterIngest | None = None,
    workers: int | None = None,
) -> IngestSummary:
    """Bring the index at `cfg.index_path` up to date with the transcripts on this machine.

    `root` + `harness` ingest one place only. `full` without them rebuilds the index from scratch;
    with them it re-reads just those sources whole. `records=False` skips the derived session
    records. `after(cfg, changed)` runs once the index lock is released, with the ids of the sessions
    this run changed (None after a full rebuild): `signals.refresh` passes the rollup update there,
    since the index is below the signals and must not import them. `workers`: processes that parse and redact (default:
    the `ingest.workers` setting; see `pipeline.worker_count`).
    """
    if root is not None and harness is None:
        raise UsageError("--root needs --harness", hint="say which harness wrote the transcripts under it")
    if harness is not None and harness not in harness_names():
        get_adapter(harness)  # raises the UsageError naming the valid harnesses
    started = time.monotonic()
    index_path = cfg.index_path
    with IndexLock(index_path):
        rebuild = full and root is None and harness is None
        db_path = _fresh_rebuild_path(index_path) if rebuild else index_path
        conn = connect(db_path)
        try:
            summary = _run(
                conn, cfg, root=root, harness=harness, reread=full, progress=progress, workers=workers
            )
            summary.full = full
            if records and cfg.hippo_dir.is_dir():
                from hippo_git.index.derive import sync_records

                rec = sync_records(conn, cfg)
                summary.records_written, summary.records_removed = rec.written, rec.removed
                summary.records_declared = rec.declared
            if rebuild:
                conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        finally:
            conn.close()
        if rebuild:
            _install(db_path, index_path)
    if after is not None:
        after(cfg, None if rebuild else summary.changed_sessions)
    summary.seconds = time.monotonic() - started
    return summary


def _run(
    conn: sqlite3.Connection,
    cfg: Config,
    *,
    root: Path | None,
    harness: str | None,
    reread: bool,
    progress: Progress | None,
    workers: int | None,
) -> IngestSummary:
    summary = IngestSummary()
    scrub = Scrubber()  # for source keys and store errors; sources are redacted as they are prepared
    known = {row[0]: row for row in conn.execute("SELECT path, size, mtime_ns, id FROM sources")}
    todo: list[tuple[Source, str, bool]] = []
    tasks: list[Task] = []
    setting = cfg.ingest_workers if workers is None else workers
    total = 0
    started: list[Worker] = []  # once there is much to read, while discovery goes on
    try:
        for src in discover_sources(cfg, root, harness, summary.failed):
            summary.files_seen += 1
            key, row = stored(scrub, known, src.path)
            if row is not None and not reread and row[1] == src.size and row[2] == src.mtime_ns:
                summary.files_skipped += 1
                continue
            todo.append((src, key, row is not None))
            cursor = None if reread or row is None else _cursor(conn, row)
            tasks.append(Task(src.harness, src.path, src.size, src.is_dir, cursor, row is not None))
            total += src.size
            if total - src.size < POOL_MIN_BYTES <= total and setting is None and len(tasks) > 1:
                started = start_workers(worker_count(setting, len(tasks), total))
        jobs = worker_count(setting, len(tasks), total)
        with contextlib.closing(prepared(tasks, jobs, started)) as stream:
            _write_all(conn, scrub, todo, stream, summary, total, progress)
    finally:
        for worker in started:  # those the pipeline never took (it closes its own)
            worker.close()
    for kind, n in scrub.counts.items():
        summary.secrets[kind] = summary.secrets.get(kind, 0) + n
    return summary


def _cursor(conn: sqlite3.Connection, row: tuple[Any, ...]) -> tuple[int, str, int, str | None]:
    """(offset, state_json, size, head_hash) of a known source (read only for those that changed:
    cursor states can be large)."""
    offset, state, head = conn.execute(
        "SELECT offset, state_json, head_hash FROM sources WHERE id = ?", (row[3],)
    ).fetchone()
    return int(offset), str(state), int(row[1]), head


def _write_all(
    conn: sqlite3.Connection,
    scrub: Scrubber,
    todo: list[tuple[Source, str, bool]],
    stream: Iterator[Prepared],
    summary: IngestSummary,
    total: int,
    progress: Progress | None,
) -> None:
    done_bytes = 0
    batch_bytes, batch_start = 0, time.monotonic()
    batch: list[tuple[Source, str, bool, Prepared]] = []  # written since BEGIN
    part, mark = IngestSummary(), scrub.mark()  # the batch's share of the summary, until COMMIT
    pending: FtsRanges = []  # the batch's turns whose full-text rows are written before COMMIT
    # The writer keeps the references itself (a session before its turns, its rows deleted with
    # it): checked by SQLite, every turn inserted looked its session up.
    conn.execute("PRAGMA foreign_keys = OFF")
    conn.execute("BEGIN IMMEDIATE")
    try:
        for n, ((src, key, known), prep) in enumerate(zip(todo, stream, strict=True), 1):
            batch.append((src, key, known, prep))
            if not _store(conn, scrub, src, key, known, prep, part, pending=pending):
                conn.execute("ROLLBACK")
                scrub.reset(mark)
                part = IngestSummary()
                pending.clear()
                conn.execute("BEGIN IMMEDIATE")
                for again in batch:
                    _store(conn, scrub, *again, part, pending=None)
                batch_bytes = BATCH_BYTES  # commit what was written again now
            done_bytes += src.size
            batch_bytes += src.size
            tail = total - done_bytes <= TAIL_BYTES < total - done_bytes + src.size
            if batch_bytes >= BATCH_BYTES or tail or time.monotonic() - batch_start >= BATCH_SECONDS:
                flush_fts(conn, pending)
                conn.execute("COMMIT")
                _merge(summary, part)
                part, mark, batch = IngestSummary(), scrub.mark(), []
                conn.execute("BEGIN IMMEDIATE")
                batch_bytes, batch_start = 0, time.monotonic()
            if progress is not None:
                progress(n, done_bytes, total)
        flush_fts(conn, pending)
        conn.execute("COMMIT")
        _merge(summary, part)
    except BaseException:
        if conn.in_transaction:
            conn.execute("ROLLBACK")
        raise
    finally:
        if not conn.in_transaction:
            conn.execute("PRAGMA foreign_keys = ON")


def _merge(total: IngestSummary, part: IngestSummary) -> None:
    """Add a committed batch's counts to the run's summary."""
    total.failed += part.failed
    total.changed_sessions |= part.changed_sessions
    total.sessions = len(total.changed_sessions)
    for name in (
        "files_read", "bytes_read", "turns_added", "turns_removed",
        "unknown", "torn", "recovered", "reasoning", "duplicates",
    ):  # fmt: skip
        setattr(total, name, getattr(total, name) + getattr(part, name))
    for kind, n in part.secrets.items():
        total.secrets[kind] = total.secrets.get(kind, 0) + n


def _store(
    conn: sqlite3.Connection,
    scrub: Scrubber,
    src: Source,
    key: str,
    known: bool,
    prep: Prepared,
    summary: IngestSummary,
    *,
    pending: FtsRanges | None,
) -> bool:
    """Write one prepared source; a failure is reported, never fatal. Given `pending` (the batch's
    held-back full-text rows), a write that fails midway returns False, leaving the caller to undo
    the transaction; without it the source is written inside a savepoint, full-text rows and all,
    and a failure only drops this source."""
    for kind, n in prep.secrets:
        summary.secrets[kind] = summary.secrets.get(kind, 0) + n
    if prep.error is not None:
        summary.failed.append(FailedSource(src.path, prep.error))
        return True
    isolate = pending is None
    if isolate:
        conn.execute("SAVEPOINT source")
    try:
        stats = write_source(
            conn,
            key=key,
            harness=src.harness,
            sig=Signature(src.size, src.mtime_ns),
            prepared=prep,
            new=not known,
            pending=pending,
        )
    except (sqlite3.IntegrityError, sqlite3.InterfaceError, ValueError, TypeError) as exc:
        if not isolate:
            return False
        conn.execute("ROLLBACK TO source")
        conn.execute("RELEASE source")
        summary.failed.append(FailedSource(src.path, scrub.small(f"cannot store: {exc}")))
        return True
    if isolate:
        conn.execute("RELEASE source")
    summary.files_read += 1
    summary.bytes_read += src.size
    summary.turns_added += stats.turns_added
    summary.turns_removed += stats.turns_removed
    summary.changed_sessions |= stats.sessions
    summary.sessions = len(summary.changed_sessions)
    st = prep.stats
    if st is not None:
        summary.unknown += st.unknown
        summary.torn += st.torn
        summary.recovered += st.recovered
        summary.reasoning += st.reasoning
        summary.duplicates += st.duplicates
    return True


# --- full rebuild ------------------------------------------------------------------------------


def _fresh_rebuild_path(index_path: Path) -> Path:
    tmp = index_path.with_name(index_path.name + ".rebuild")
    remove_database(tmp)
    return tmp


def _install(built: Path, index_path: Path) -> None:
    """Make the freshly built index the live one. When a live index exists, its pages are replaced
    in one transaction through the backup API (open readers keep their snapshot, new ones see the
    new index); renaming over a WAL database that readers hold open could corrupt it. A live file
    that SQLite cannot open (a damaged cache) is simply replaced."""
    if index_path.exists():
        src = sqlite3.connect(str(built))
        try:
            dst = connect(index_path)
        except HippoError:
            dst = None
        try:
            if dst is not None:
                src.backup(dst)
                dst.execute("PRAGMA wal_checkpoint(TRUNCATE)")
                dst.close()
        finally:
            src.close()
        if dst is not None:
            remove_database(built)
            return
    remove_database(index_path)  # a stray -wal of a deleted index must not replay onto the new one
    os.replace(built, index_path)
    remove_database(built)
