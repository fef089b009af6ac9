"""How a dream run ends: the window advanced per finished chunk, the state and the closing report,
or a stop (guard, model failure, apply stopped) or a failure (no reply could be read)."""

from __future__ import annotations

from datetime import datetime

from hippo_git.config import Config
from hippo_git.dream import gather
from hippo_git.dream.costs import CostGuardReached
from hippo_git.dream.report import RunReport, write_report
from hippo_git.dream.state import CurrentRun, DreamState, save_state
from hippo_git.errors import HippoError

NO_NOTES = ("touched or cited no notes", gather.NO_TOPICS)  # skips that a first note would end


class UnreadableReplies(HippoError):
    """No proposing reply of a chunk could be read: the model does not speak the protocol, so going
    on would advance the window over sessions nobody looked at."""


def chunk_done(cfg: Config, state: DreamState, current: CurrentRun, chunk: gather.Chunk) -> None:
    """The window advances over a finished chunk (and only then), for every pack of the run."""
    current.done.append(chunk.key)
    for name in current.packs:
        old = gather.parse_time(state.windows.get(name))
        if old is None or chunk.until > old:
            state.windows[name] = gather.iso(chunk.until)
    save_state(cfg.hippo_dir, state)


def finish(
    cfg: Config, state: DreamState, report: RunReport, proposed: bool, until: datetime, *, dry_run: bool
) -> RunReport:
    report.status = "complete"
    if not dry_run:
        upto = state.current.upto_id if state.current is not None else None
        if upto is not None:
            for name in report.packs:
                state.marks[name] = max(upto, state.marks.get(name, 0))
        state.current = None
        state.runs.append(
            {"run": report.run, "packs": report.packs, "until": gather.iso(until), "status": "complete"}
        )
        save_state(cfg.hippo_dir, state)
    if report.apply_mode == "pull-request" and proposed:
        report.hint = f"open a pull request: `git hippo sync --proposals {report.run}`"
    elif report.apply_mode == "no-apply" and proposed:
        report.hint = f"apply the confirmed changes with `git hippo apply {report.run}`"
    elif not report.totals()["proposals"] and any(r in w for w in report.why_nothing() for r in NO_NOTES):
        report.hint = (
            "dreams update the notes sessions read or cite ([[links]] in a handoff), and start notes for "
            "topics that recur; write a first note for what your sessions are about, or link one"
        )
    write_report(cfg.hippo_dir, report)
    return report


def stop(cfg: Config, report: RunReport, exc: HippoError, run_id: str) -> RunReport:
    """The run stops early; the unfinished chunk is redone (idempotently) by the next `dream`.
    A model that answers nothing readable fails the run (`failed`): no window advanced over it."""
    report.status = "failed" if isinstance(exc, UnreadableReplies) else "stopped"
    report.stopped = exc.message
    if isinstance(exc, CostGuardReached):
        report.guard_hit = exc.message
    resume = f"run `git hippo dream` again to resume run {run_id} where it stopped"
    report.hint = (
        exc.hint if isinstance(exc, CostGuardReached) else "; then ".join(filter(None, [exc.hint, resume]))
    )
    write_report(cfg.hippo_dir, report)
    return report
