"""What a dream reads: the window's chunks, each chunk's sessions and turns, and the notes they touched.

Sessions come from the workspace's session records (derived by ingest or declared by agents),
turns from the index (already redacted, invariant 2), notes from the tree the proposals build on
(the run's proposals branch, else the target branch), never from the working tree.
"""

from __future__ import annotations

import re
import sqlite3
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hippo_git.dream.evidence import NoteText, PassInput, SessionBrief, TurnRef, fit_budget
from hippo_git.dream.packs import Pass
from hippo_git.dream.validate import path_problems
from hippo_git.errors import HippoError
from hippo_git.git.object_store import NULL_OID
from hippo_git.git.objects import GitStore
from hippo_git.index.sessions import get_turns
from hippo_git.notes.graph import Resolver
from hippo_git.notes.parse import link_targets

if TYPE_CHECKING:
    from hippo_git.dream import window


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
    """One time slice of a dream's window, processed as a unit."""

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


@dataclass
class ChunkEvidence:
    """What a chunk holds: its sessions, the notes they touched, and their turns."""

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
    new: window.NewTurns | None = None,
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
    reads_notes = "notes" in p.spec.reads or "new_notes" in p.spec.reads
    shown_notes = list(notes.values()) if reads_notes else []
    kept_notes, kept_turns, cut = fit_budget(shown_notes, turns, sessions, p.spec.budget_bytes)
    return PassInput(
        notes=tuple(kept_notes),
        turns=tuple(kept_turns),
        sessions=tuple(sessions),
        reverted={n.path: tuple(reverted(n.path)) for n in kept_notes},
        cut_turns=cut,
    )


# Words too common in agent sessions to name a topic.
_STOP = frozenset(
    [
        "about",
        "above",
        "after",
        "again",
        "against",
        "along",
        "already",
        "also",
        "always",
        "another",
        "anything",
        "around",
        "because",
        "before",
        "being",
        "below",
        "between",
        "both",
        "build",
        "called",
        "cannot",
        "change",
        "changed",
        "changes",
        "check",
        "could",
        "doing",
        "done",
        "during",
        "each",
        "either",
        "error",
        "every",
        "everything",
        "example",
        "failed",
        "file",
        "files",
        "first",
        "fixed",
        "following",
        "found",
        "going",
        "great",
        "have",
        "having",
        "here",
        "however",
        "instead",
        "into",
        "issue",
        "just",
        "know",
        "later",
        "least",
        "like",
        "line",
        "lines",
        "little",
        "looks",
        "make",
        "makes",
        "many",
        "maybe",
        "might",
        "more",
        "most",
        "much",
        "must",
        "need",
        "needs",
        "never",
        "next",
        "nothing",
        "notes",
        "number",
        "often",
        "only",
        "other",
        "output",
        "please",
        "point",
        "pretty",
        "probably",
        "really",
        "right",
        "same",
        "second",
        "should",
        "since",
        "something",
        "still",
        "such",
        "sure",
        "take",
        "than",
        "thank",
        "thanks",
        "that",
        "their",
        "them",
        "then",
        "there",
        "these",
        "they",
        "thing",
        "things",
        "think",
        "this",
        "those",
        "though",
        "through",
        "today",
        "together",
        "tried",
        "under",
        "until",
        "using",
        "very",
        "want",
        "wants",
        "well",
        "were",
        "what",
        "when",
        "where",
        "which",
        "while",
        "will",
        "with",
        "without",
        "work",
        "works",
        "would",
        "write",
        "wrong",
        "your",
        "yours",
        "added",
        "adding",
        "command",
        "commands",
        "running",
        "should",
    ]
)
_TOPIC_WORD = re.compile(r"\b[a-z][a-z0-9]{4,24}\b")
MAX_TOPICS = 5
NO_TOPICS = "no recurring topic without a note"


def recurring_topics(ev: ChunkEvidence, notes_dir: str, known: Callable[[str], bool]) -> dict[str, list[str]]:
    """Note paths for the topics that recur in the chunk's prompts and answers (a word in two or more
    turns), most sessions and turns first, with the sessions that mention each; a topic a note
    already covers (`known(path)`) is left out."""
    turns: dict[str, set[str]] = {}
    sessions: dict[str, list[str]] = {}
    for t in ev.turns:
        if t.kind not in ("prompt", "answer"):
            continue
        for word in set(_TOPIC_WORD.findall(t.text.lower())) - _STOP:
            turns.setdefault(word, set()).add(t.id)
            if t.session not in sessions.setdefault(word, []):
                sessions[word].append(t.session)
    ranked = sorted(
        (w for w, ids in turns.items() if len(ids) >= 2),
        key=lambda w: (-len(sessions[w]), -len(turns[w]), w),
    )
    found: dict[str, list[str]] = {}
    for word in ranked:
        path = f"{notes_dir.strip('/')}/{word}.md"
        if not known(path):
            found[path] = sessions[word]
        if len(found) >= MAX_TOPICS:
            break
    return found


def topic_notes(
    ev: ChunkEvidence, store: GitStore, head: str | None, root: Path, notes_dir: str
) -> dict[str, NoteText]:
    """Empty notes for the chunk's recurring topics that no note covers yet (on the proposals
    branch, or by name in the working tree)."""
    resolver = Resolver(note_paths_on_disk(root, notes_dir), notes_dir)

    def known(path: str) -> bool:
        stem = path.rsplit("/", 1)[-1].removesuffix(".md")
        on_branch = head is not None and store.blob_at(head, path) != NULL_OID
        return on_branch or resolver.resolve(stem).path is not None

    topics = recurring_topics(ev, notes_dir, known)
    return {path: NoteText(path, "", NULL_OID, tuple(s), new=True) for path, s in topics.items()}
