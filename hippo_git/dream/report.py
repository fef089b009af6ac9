"""The run report: `.hippo/reports/<run-id>.json` and `.md`, rewritten after every chunk.

Per chunk and pass: proposals, validation failures and their reasons, verdicts, applied, stale,
model calls, bytes in and out, time; and the cost guards. A resumed run extends its own report.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from hippo_git.files import write_json_atomic, write_text_atomic

REPORT_VERSION = 1


@dataclass
class ProposalEntry:
    """One proposal in a run report: what it changes, whether it was valid, its review, whether it landed."""

    id: str
    op: str
    path: str
    evidence: list[str]
    valid: bool = True
    reasons: list[str] = field(default_factory=list)
    commit: str | None = None
    verdict: str | None = None
    review_reason: str = ""
    applied: bool = False
    stale: bool = False
    note: str = ""  # "resumed", "duplicate of run …", "dry run"


@dataclass
class PassEntry:
    """One pass over one chunk in a run report: what it read, its proposals, model calls and cost."""

    name: str
    notes: int = 0
    turns: int = 0
    cut_turns: int = 0
    skipped: str | None = None
    reply_error: str | None = None
    item_errors: list[str] = field(default_factory=list)
    proposals: list[ProposalEntry] = field(default_factory=list)
    model_calls: int = 0
    bytes_in: int = 0
    bytes_out: int = 0
    seconds: float = 0.0


@dataclass
class ChunkEntry:
    """One chunk of a run report: its time range, its passes, and what landed on the target."""

    since: str
    until: str
    sessions: int = 0
    turns: int = 0
    skipped: str | None = None
    passes: list[PassEntry] = field(default_factory=list)
    applied: list[str] = field(default_factory=list)  # proposal commits that reached the target
    stale: list[str] = field(default_factory=list)
    apply_error: str | None = None
    seconds: float = 0.0


@dataclass
class RunReport:
    """A whole dream run's report: its packs, model, window, chunks, status and limits."""

    run: str
    packs: list[str]
    model: list[str]
    heuristic: bool
    since: str
    until: str
    apply_mode: str  # "fast-forward" | "pull-request" | "no-apply" | "dry-run"
    status: str = "running"  # running | complete | stopped | failed (no model reply could be read)
    stopped: str | None = None  # why the run stopped early
    hint: str | None = None
    chunks: list[ChunkEntry] = field(default_factory=list)
    max_model_calls: int = 0
    max_bytes: int = 0
    guard_hit: str | None = None
    resumed: PassEntry | None = None  # reviews of what a killed run committed without reviewing
    lessons_stopped: str | None = None  # why the lessons scan after the dream stopped early

    def totals(self) -> dict[str, Any]:
        passes = [p for c in self.chunks for p in c.passes] + ([self.resumed] if self.resumed else [])
        props = [e for p in passes for e in p.proposals]
        return {
            "chunks": len(self.chunks),
            "chunks_skipped": sum(1 for c in self.chunks if c.skipped),
            "proposals": len(props),
            "invalid": sum(1 for e in props if not e.valid),
            "committed": sum(1 for e in props if e.commit),
            "confirmed": sum(1 for e in props if e.verdict == "confirm"),
            "rejected": sum(1 for e in props if e.verdict == "reject"),
            "applied": sum(len(c.applied) for c in self.chunks),
            "stale": sum(len(c.stale) for c in self.chunks),
            "model_calls": sum(p.model_calls for p in passes),
            "bytes_in": sum(p.bytes_in for p in passes),
            "bytes_out": sum(p.bytes_out for p in passes),
            "seconds": round(sum(c.seconds for c in self.chunks), 3),
        }

    def why_nothing(self) -> list[str]:
        """Why chunks and passes were skipped, most common first ("407 chunks: <reason>"), for the
        screen: a run that proposed nothing says why there, not only in its report."""
        chunks: dict[str, int] = {}
        passes: dict[str, int] = {}
        for c in self.chunks:
            if c.skipped:
                chunks[c.skipped] = chunks.get(c.skipped, 0) + 1
            for p in c.passes:
                why = p.skipped or (f"reply not read: {p.reply_error}" if p.reply_error else None)
                if why:
                    passes[f"{p.name} {why}"] = passes.get(f"{p.name} {why}", 0) + 1
        lines = [f"{n} chunk(s): {why}" for why, n in sorted(chunks.items(), key=lambda kv: -kv[1])]
        lines += [f"{n} pass run(s): {why}" for why, n in sorted(passes.items(), key=lambda kv: -kv[1])[:3]]
        return lines

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = _plain(self)
        data["version"] = REPORT_VERSION
        data["totals"] = self.totals()
        return data


def _plain(value: Any) -> Any:
    """Dataclasses as dicts, lists as new lists: `asdict` without its deep copies of every leaf
    (the report is rewritten after every chunk, so this is on a dream's hot path)."""
    if isinstance(value, list):
        return [_plain(v) for v in value]
    names = getattr(type(value), "__dataclass_fields__", None)
    if names is not None:
        return {name: _plain(getattr(value, name)) for name in names}
    return value


def load_chunks(hippo_dir: Path, run_id: str) -> list[ChunkEntry]:
    """The chunks of an earlier report of the same run (a resumed run keeps them)."""
    try:
        data = json.loads(report_paths(hippo_dir, run_id)[0].read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return []
    out = []
    for c in data.get("chunks") or []:
        try:
            passes = [
                PassEntry(**{**p, "proposals": [ProposalEntry(**e) for e in p.get("proposals") or []]})
                for p in c.get("passes") or []
            ]
            out.append(ChunkEntry(**{**c, "passes": passes}))
        except TypeError:
            continue  # a report of another version: start its chunk list afresh
    return out


def report_paths(hippo_dir: Path, run_id: str) -> tuple[Path, Path]:
    base = hippo_dir / "reports" / run_id
    return base.with_suffix(".json"), base.with_suffix(".md")


def write_report(hippo_dir: Path, report: RunReport) -> tuple[Path, Path]:
    json_path, md_path = report_paths(hippo_dir, report.run)
    # A running report is rewritten after every chunk of a long run: on one line, which json's C
    # encoder writes (indenting is done in pure Python and made this rewrite a dream's largest cost).
    write_json_atomic(json_path, report.to_dict(), indent=None if report.status == "running" else 2)
    write_text_atomic(md_path, render_markdown(report))
    return json_path, md_path


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def _cap(report: RunReport, cap: int) -> str:
    return "no cap: the built-in model costs nothing" if report.heuristic else f"cap {cap}"


def render_markdown(report: RunReport) -> str:
    t = report.totals()
    lines = [
        f"# Dream run {report.run}",
        "",
        f"- status: **{report.status}**" + (f" — {report.stopped}" if report.stopped else ""),
        f"- window: {report.since} → {report.until} ({t['chunks']} chunks, {t['chunks_skipped']} skipped)",
        f"- packs: {', '.join(report.packs)}; apply: {report.apply_mode}",
        f"- model: `{' '.join(report.model)}`" + (" (built-in heuristic)" if report.heuristic else ""),
        f"- proposals: {t['proposals']} ({t['invalid']} failed validation), committed {t['committed']}, "
        f"confirmed {t['confirmed']}, rejected {t['rejected']}, applied {t['applied']}, stale {t['stale']}",
        f"- cost: {t['model_calls']} model calls ({_cap(report, report.max_model_calls)}), "
        f"{t['bytes_in']} bytes in ({_cap(report, report.max_bytes)}), {t['bytes_out']} bytes out, {t['seconds']} s"
        + (f"; **guard reached: {report.guard_hit}**" if report.guard_hit else ""),
    ]
    if report.lessons_stopped:
        lines.append(f"- lessons scan stopped: {report.lessons_stopped}")
    if report.hint:
        lines.append(f"- next: {report.hint}")
    if report.resumed and report.resumed.proposals:
        lines += ["", "## Reviews of proposals a stopped run had committed", ""]
        lines += [
            f"- {e.id[:12]} {e.op} `{e.path}`: {e.verdict} ({_cell(e.review_reason)})"
            for e in report.resumed.proposals
        ]
    for chunk in report.chunks:
        lines += ["", f"## {chunk.since} → {chunk.until}", ""]
        if chunk.skipped:
            lines.append(f"skipped: {chunk.skipped}")
            continue
        lines.append(f"{chunk.sessions} sessions, {chunk.turns} turns, {chunk.seconds:.2f} s")
        if chunk.apply_error:
            lines.append(f"apply stopped: {chunk.apply_error}")
        for p in chunk.passes:
            lines += ["", f"### {p.name}", ""]
            if p.skipped:
                lines.append(f"skipped: {p.skipped}")
                continue
            lines.append(
                f"{p.notes} notes, {p.turns} turns ({p.cut_turns} cut by budget); {p.model_calls} model calls, "
                f"{p.bytes_in} bytes in, {p.bytes_out} bytes out, {p.seconds:.2f} s"
            )
            if p.reply_error:
                lines.append(f"reply not read: {p.reply_error}")
            lines += [f"- not a proposal: {_cell(e)}" for e in p.item_errors]
            if p.proposals:
                lines += ["", "| proposal | change | result |", "|---|---|---|"]
            for e in p.proposals:
                if not e.valid:
                    result = "refused: " + "; ".join(e.reasons)
                else:
                    result = e.verdict or "not reviewed"
                    result += f" ({e.review_reason})" if e.review_reason else ""
                    result += ", applied" if e.applied else ", stale" if e.stale else ""
                    result += f" [{e.note}]" if e.note else ""
                change = f"{e.op} `{e.path}` from {', '.join(e.evidence)}"
                lines.append(f"| {e.id[:12]} | {_cell(change)} | {_cell(result)} |")
    return "\n".join(lines) + "\n"
