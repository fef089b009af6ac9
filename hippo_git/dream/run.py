"""`git hippo dream`: chunks × passes → propose → validate → commit → review → receipt → apply.

The window runs from where the last run stopped (per pack, `.hippo/dream-state.json`) to now, in
chunks of `dream.chunk_hours`. Each chunk runs every pass; a chunk is marked done (and the window
advanced) only after all its passes finished and its changes were applied or left to the apply at
the run's end (which a resumed run always makes), so a killed run is resumed under the same run id
and commits, receipts and applies nothing twice (each is idempotent per proposal id).
`checkpoint(step)` is called between the steps, so tests can stop a run at any of them.
"""

from __future__ import annotations

import secrets
import shutil
import sqlite3
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from hippo_git.config import Config
from hippo_git.dream import gather
from hippo_git.dream.costs import CostGuardReached
from hippo_git.dream.packs import Pack, default_packs, find_pack
from hippo_git.dream.report import RunReport, load_chunks, write_report
from hippo_git.dream.run_end import UnreadableReplies, chunk_done, finish, stop
from hippo_git.dream.run_passes import PROGRESS_EVERY_S, ApplyStopped, PassRunner
from hippo_git.dream.runner import Model, ModelRunError, default_model_command, is_heuristic, make_model
from hippo_git.dream.state import CurrentRun, DreamLock, load_state, save_state
from hippo_git.dream.window import plan_window
from hippo_git.errors import HippoError
from hippo_git.index import db
from hippo_git.index.records import read_records

STEPS = ("propose", "validate", "commit", "review", "receipt", "apply", "state")


@dataclass(frozen=True)
class DreamOptions:
    """How to run a dream: the window, the packs, and whether to commit or apply at all."""

    since: datetime | None = None
    until: datetime | None = None
    packs: tuple[str, ...] = ()
    dry_run: bool = False
    no_apply: bool = False


def _pick_packs(cfg: Config, names: Sequence[str]) -> list[Pack]:
    return [find_pack(cfg.hippo_dir, n) for n in names] if names else default_packs(cfg.hippo_dir)


def new_run_id(now: datetime) -> str:
    return now.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(2)


def apply_mode(cfg: Config, opts: DreamOptions) -> str:
    if opts.dry_run:
        return "dry-run"
    if opts.no_apply:
        return "no-apply"
    return cfg.dream.apply


def dream(
    cfg: Config,
    opts: DreamOptions,
    *,
    env: Mapping[str, str],
    now: datetime,
    model: Model | None = None,
    checkpoint: Callable[[str], None] = lambda step: None,
    on_chunk: Callable[[int, int], None] = lambda done, total: None,
    run_id: str | None = None,
) -> RunReport:
    """Run (or resume) a dream; returns its report, also written to .hippo/reports/<run-id>.*

    `model` replaces the configured model command and `run_id` the generated id (tests, benchmarks).
    """
    if not (cfg.hippo_dir / "hippo.toml").is_file():
        raise HippoError(
            f"{cfg.root} is not set up for hippo (no .hippo/hippo.toml)", hint="run `git hippo init` first"
        )
    with DreamLock(cfg.hippo_dir):
        packs = _pick_packs(cfg, opts.packs)
        names = [p.name for p in packs]
        state = load_state(cfg.hippo_dir)
        records = read_records(cfg.root)
        same = state.current is not None and state.current.packs == names and not opts.dry_run
        resume = state.current if same else None
        conn = _open_index(cfg)
        try:
            plan = plan_window(state, packs, records, conn, since=opts.since, resume=resume)
            since = plan.since
            until = opts.until or now
            run_id = resume.run if resume is not None else run_id or new_run_id(now)
            # scratch folders a killed run left behind (the lock says no call of this run is alive)
            shutil.rmtree(cfg.home / "model-runs" / run_id, ignore_errors=True)
            if model is None:
                argv = default_model_command(cfg.model_command, env.get("PATH"))
                model = make_model(argv, cfg.home, run_id, env, cfg.dream.model_timeout_s)
            report = RunReport(
                run=run_id,
                packs=names,
                model=list(model.argv),
                heuristic=is_heuristic(model.argv),
                since=gather.iso(since) if since else "",
                until=gather.iso(until),
                apply_mode=apply_mode(cfg, opts),
                max_model_calls=cfg.dream.max_model_calls,
                max_bytes=cfg.dream.max_bytes,
            )
            if resume is not None:
                report.chunks = load_chunks(cfg.hippo_dir, run_id)
            if since is None or since >= until:
                report.status = "complete"
                report.stopped = (
                    "no sessions recorded in this workspace yet"
                    if since is None
                    else "nothing new since the last run"
                )
                report.hint = "run `git hippo ingest` first" if since is None else None
                write_report(cfg.hippo_dir, report)
                return report
            current = resume or CurrentRun(
                run=run_id,
                packs=names,
                since=gather.iso(since),
                seen_id=plan.seen_id,
                seen_until=plan.seen_until,
                upto_id=plan.upto_id,
            )
            if not opts.dry_run:
                state.current = current
                save_state(cfg.hippo_dir, state)
            run = PassRunner(cfg, packs, run_id, model, report, opts.dry_run, checkpoint)
            todo = gather.chunks(since, until, cfg.dream.chunk_hours)
            try:
                if resume is not None:
                    run.review_pending(conn)
                for n, chunk in enumerate(todo):
                    on_chunk(n, len(todo))
                    if chunk.key not in current.done:
                        run.report_progress(run.chunk(chunk, records, conn, plan.new), every=PROGRESS_EVERY_S)
                        if not opts.dry_run:
                            chunk_done(cfg, state, current, chunk)
                        checkpoint("state")
                run.apply_rest(resumed=resume is not None)
                on_chunk(len(todo), len(todo))
            except (CostGuardReached, ModelRunError, ApplyStopped, UnreadableReplies) as exc:
                return stop(cfg, report, exc, run_id)
        finally:
            if conn is not None:
                conn.close()
        finished = finish(cfg, state, report, run.branch.tip is not None, until, dry_run=opts.dry_run)
        # --- issue 7: a finished dream also drafts lessons, with the same model (never fails the dream)
        if not opts.dry_run:
            from hippo_git.dream.lessons import scan_after_dream

            scanned = scan_after_dream(cfg, env=env, now=now, model=model)
            if scanned.stopped:  # said on screen: a scan cut short leaves candidates for the next one
                finished.lessons_stopped = scanned.stopped
                write_report(cfg.hippo_dir, finished)
        return finished


def _open_index(cfg: Config) -> sqlite3.Connection | None:
    try:
        return db.connect(cfg.index_path, readonly=True)
    except db.IndexMissingError:
        return None
