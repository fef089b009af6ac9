"""Ingest, then bring the rollup up to date: what `git hippo ingest` and the agent hooks run.

The index knows nothing of the signals above it; this passes the rollup update in as the
ingest's `after` step, so per-session facts are recomputed only for the sessions that changed.
"""

from __future__ import annotations

from pathlib import Path

from hippo_git.config import Config
from hippo_git.index.ingest import IngestSummary, Progress
from hippo_git.index.ingest import ingest as index_ingest
from hippo_git.signals.rollup import update_rollup


def ingest(
    cfg: Config,
    *,
    full: bool = False,
    root: Path | None = None,
    harness: str | None = None,
    progress: Progress | None = None,
    records: bool = True,
    workers: int | None = None,
) -> IngestSummary:
    """`index.ingest.ingest`, followed by the rollup update of the sessions it changed."""
    return index_ingest(
        cfg,
        full=full,
        root=root,
        harness=harness,
        progress=progress,
        records=records,
        after=update_rollup,
        workers=workers,
    )
