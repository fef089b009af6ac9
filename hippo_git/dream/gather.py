"""What a dream reads: the window's chunks, each chunk's sessions and turns, and the notes they touched.

Sessions come from the workspace's session records (derived by ingest or declared by agents),
turns from the index (already redacted, invariant 2), notes from the tree the proposals build on
(the run's proposals branch, else the target branch), never from the working tree.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from hippo_git.dream.evidence import NoteText, PassInput, SessionBrief, TurnRef, fit_budget
from hippo_git.dream.packs import Pass
from hippo_git.dream.validate import path_problems
from hippo_git.errors import HippoError
from hippo_git.git.objects import NULL_OID, GitStore
from hippo_git.index.sessions import get_turns
from hippo_git.notes.graph import Resolver
from hippo_git.notes.parse import link_targets


def parse_time(value: object) -> datetime | None:
    """An ISO-8601 time as an aware UTC datetime (naive times are UTC), or None."""
    if not isinstance(value, str) or not value.strip():
        return None
    try:
        when = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        return None
    return when.replace(tzinfo=UTC) if when.tzinfo is None else when.astimezone(UTC)


def iso(when: datetime) -> str:
    return when.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass(frozen=True)
class Chunk:
    since: datetime
    until: datetime

    @property
    def key(self) -> str:
        return f"{iso(self.since)}/{iso(self.until)}"


def chunks(since: datetime, until: datetime, hours: int) -> list[Chunk]:
    out = []
    start = since
    while start < until:
        end = min(start + timedelta(hours=hours), until)
        out.append(Chunk(start, end))
        start = end
    return out


def earliest_start(records: Sequence[dict[str, Any]]) -> datetime | None:
    times = [t for r in records if (t := parse_time(r.get("started"))) is not None]
    return min(times) if times else None


@dataclass(frozen=True)
class NewTurns:
    """Which turns a run has not dreamt over: those ingested after its packs' last run (`seqs`,
    session → turn seqs, from the index's ingest sequence) and any from `until` (the end of the
    last window) on. Chunks before `until` then show only what arrived since, not what was seen."""

    until: datetime
    seqs: dict[str, set[int]]

    def session(self, record: dict[str, Any]) -> bool:
        ended = parse_time(record.get("ended")) or parse_time(record.get("started"))
        return str(record.get("id")) in self.seqs or (ended is not None and ended >= self.until)

    def turn(self, session: str, seq: int, ts: datetime | None, started: datetime | None) -> bool:
        when = ts or started
        return seq in self.seqs.get(session, ()) or (when is not None and when >= self.until)


def earliest_new(new: dict[str, dict[int, str | None]], records: Sequence[dict[str, Any]]) -> datetime | None:
    """The time of the earliest turn ingested since a mark, among this workspace's sessions."""
    times = []
    for record in records:
        seqs = new.get(str(record.get("id")))
        if seqs:
            stamps = [t for ts in seqs.values() if (t := parse_time(ts)) is not None]
            when = min(stamps) if stamps else parse_time(record.get("started"))
            if when is not None:
                times.append(when)
    return min(times) if times else None


@dataclass
class ChunkEvidence:
    sessions: list[SessionBrief] = field(default_factory=list)
    touched: dict[str, list[str]] = field(default_factory=dict)  # note path → session ids
    turns: list[TurnRef] = field(default_factory=list)


def _in_chunk(record: dict[str, Any], chunk: Chunk) -> bool:
    started = parse_time(record.get("started"))
    ended = parse_time(record.get("ended")) or started
    if started is None or ended is None:
        return False
    return started < chunk.until and ended >= chunk.since


def note_paths_on_disk(root: Path, notes_dir: str) -> list[str]:
    """Note paths in the working tree, to resolve the [[links]] a handoff cites."""
    base = root / notes_dir
    if not base.is_dir():
        return []
    return sorted(p.relative_to(root).as_posix() for p in base.rglob("*.md") if p.is_file())


def chunk_evidence(
    records: Sequence[dict[str, Any]],
    conn: sqlite3.Connection | None,
    chunk: Chunk,
    *,
    root: Path,
    notes_dir: str,
    new: NewTurns | None = None,
) -> ChunkEvidence:
    """The chunk's sessions, the notes they touched or cited, and their turns inside the chunk
    (only the turns `new` names as not dreamt over yet, when given)."""
    ev = ChunkEvidence()
    resolver: Resolver | None = None
    for record in sorted(records, key=lambda r: (str(r.get("started")), str(r.get("id")))):
        if not _in_chunk(record, chunk) or (new is not None and not new.session(record)):
            continue
        sid = str(record["id"])
        handoff = str(record.get("handoff") or "")
        ev.sessions.append(
            SessionBrief(
                id=sid,
                harness=str(record.get("harness") or ""),
                started=record.get("started"),
                ended=record.get("ended"),
                task=str(record.get("task") or "")[:300],
                handoff=handoff[:2000],
            )
        )
        cited = [p for p in record.get("notes_touched") or [] if isinstance(p, str)]
        if handoff:
            resolver = resolver or Resolver(note_paths_on_disk(root, notes_dir), notes_dir)
            cited += [r.path for t in link_targets(handoff) if (r := resolver.resolve(t)).path]
        for path in cited:
            if not path_problems(path, root, notes_dir):
                ev.touched.setdefault(path, [])
                if sid not in ev.touched[path]:
                    ev.touched[path].append(sid)
        if conn is None:
            continue
        started = parse_time(record.get("started"))
        started_in = chunk.since <= (started or chunk.since) < chunk.until
        for row in get_turns(conn, sid):
            ts = parse_time(row.ts)
            if new is not None and not new.turn(sid, row.seq, ts, started):
                continue
            if (ts is None and started_in) or (ts is not None and chunk.since <= ts < chunk.until):
                ev.turns.append(
                    TurnRef(
                        session=sid,
                        seq=row.seq,
                        kind=row.kind,
                        text=row.text,
                        ts=row.ts,
                        tool=row.tool,
                        is_error=row.is_error,
                    )
                )
    return ev


def read_notes(store: GitStore, base: str | None, touched: dict[str, list[str]]) -> dict[str, NoteText]:
    """The touched notes as they are in commit `base`; notes absent there or not regular files are left out."""
    notes: dict[str, NoteText] = {}
    if base is None:
        return notes
    for path, sessions in sorted(touched.items()):
        try:
            blob = store.blob_at(base, path)
        except HippoError:
            continue  # a symbolic link or a folder in the tree: never a note a dream may change
        if blob == NULL_OID:
            continue
        data = store.read_blob(blob)
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            continue
        notes[path] = NoteText(path=path, text=text, blob=blob, sessions=tuple(sessions))
    return notes


def pass_input(
    p: Pass,
    ev: ChunkEvidence,
    notes: dict[str, NoteText],
    reverted: Callable[[str], Sequence[str]],
) -> PassInput:
    """What pass `p` is shown: the touched notes and the chunk's turns of its kinds, within budget."""
    kinds = set(p.spec.turn_kinds)
    turns = [t for t in ev.turns if t.kind in kinds] if "turns" in p.spec.reads else []
    sessions = ev.sessions if "sessions" in p.spec.reads else []
    shown_notes = list(notes.values()) if "notes" in p.spec.reads else []
    kept_notes, kept_turns, cut = fit_budget(shown_notes, turns, sessions, p.spec.budget_bytes)
    return PassInput(
        notes=tuple(kept_notes),
        turns=tuple(kept_turns),
        sessions=tuple(sessions),
        reverted={n.path: tuple(reverted(n.path)) for n in kept_notes},
        cut_turns=cut,
    )
