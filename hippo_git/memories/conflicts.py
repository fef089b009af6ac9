"""Memories that contradict each other, and settling one: the loser's value is rejected for good.

Two memories conflict when they are about the same subject (most of their words shared) and
either one negates what the other says ("use X" / "never use X"), or a value changed between
them ("port 8080" / "port 9090"). Found without a model, by words; `resolve` keeps one, records
the other's text in `memories/rejected.jsonl` (shared through git) so neither a dream nor a
capture nor an import brings it back, and commits that.
"""

from __future__ import annotations

import hashlib
import json
import re
import sqlite3
from dataclasses import dataclass

from hippo_git.errors import HippoError
from hippo_git.files import write_text_atomic
from hippo_git.memories.record import NEGATIONS, Memory, negated, normalise, now_iso, words
from hippo_git.memories.remember import rejected_path, rejected_values
from hippo_git.memories.store import Store, all_memories, get_memory, note_bodies, search

SAME_SUBJECT = 0.5  # Jaccard of the words other than negations and values
CANDIDATES = 10
NOTE_CANDIDATES = 5
_VALUE = re.compile(r"\d|[./:=@]")
_STOP = frozenset(
    [
        "a",
        "an",
        "the",
        "is",
        "are",
        "be",
        "to",
        "of",
        "in",
        "on",
        "for",
        "and",
        "or",
        "with",
        "it",
        "this",
        "that",
        "we",
        "use",
        "uses",
    ]
)


@dataclass(frozen=True)
class Conflict:
    """Two memories that contradict each other, how (negation or changed value) and in what."""

    id: str
    a: Memory
    b: Memory
    kind: str  # negation | changed value
    detail: str

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "detail": self.detail,
            "memories": [
                {"id": m.id, "text": m.text, "created": m.created, "confidence": m.confidence, "path": m.path}
                for m in (self.a, self.b)
            ],
        }


def _tokens(text: str) -> list[str]:
    return re.findall(r"[\w.:/=@'-]+", text.lower())


def contradiction(a: str, b: str) -> tuple[str, str] | None:
    """(kind, detail) when texts `a` and `b` contradict each other, else None."""
    if normalise(a) == normalise(b):
        return None
    ta, tb = set(_tokens(a)), set(_tokens(b))
    neg_a, neg_b = negated(a), negated(b)
    core_a = {t.strip(".:") for t in ta - NEGATIONS if t not in _STOP}
    core_b = {t.strip(".:") for t in tb - NEGATIONS if t not in _STOP}
    if not core_a or not core_b:
        return None
    if neg_a != neg_b:
        overlap = len(core_a & core_b) / len(core_a | core_b)
        if overlap >= SAME_SUBJECT:
            said = (a if neg_a else b).strip()
            return "negation", f"one says the opposite: {said[:80]!r}"
        return None
    only_a, only_b = core_a - core_b, core_b - core_a
    shared = core_a & core_b
    if not only_a or not only_b or len(shared) < 2:
        return None
    if len(only_a) > 2 or len(only_b) > 2:
        return None
    if len(shared) / len(core_a | core_b) < SAME_SUBJECT and not (
        any(_VALUE.search(t) for t in only_a) and any(_VALUE.search(t) for t in only_b)
    ):
        return None
    return "changed value", f"{', '.join(sorted(only_a))} → {', '.join(sorted(only_b))}"


def conflict_id(a: str, b: str) -> str:
    first, second = sorted((a, b))
    return "c-" + hashlib.sha256(f"{first}\n{second}".encode()).hexdigest()[:8]


def _core(text: str) -> frozenset[str]:
    """The words `contradiction` compares: no negations, no stop words."""
    return frozenset(t.strip(".:") for t in set(_tokens(text)) - NEGATIONS if t not in _STOP)


def _may_contradict(a: int, b: int, shared: int) -> bool:
    """Whether texts with `a` and `b` core words, `shared` of them in common, can contradict:
    a negation needs half of all their words shared, a changed value all but two on each side
    (so `b` lies between `a / 2` and `max(2a, a + 2)`)."""
    union = a + b - shared
    return shared >= 1 and (2 * shared >= union or (shared >= 2 and a - shared <= 2 and b - shared <= 2))


def find_conflicts(conn: sqlite3.Connection, store: Store) -> list[Conflict]:
    """Every pair of kept memories that contradict each other, and every note statement a memory
    contradicts (each pair once, oldest first).

    Candidates come from an inverted index of the texts' core words, and only pairs that share
    enough words to pass `contradiction` are compared: a search per memory (what `conflicts_of`
    does for one) cost seconds per thousand memories in a large repository."""
    settled = {item.get("id") for item in rejected_values(store)}
    memories = [m for m in all_memories(conn, store) if m.id not in settled]
    # items: memories first, then note statements (path, sentence) with their core words
    texts: list[tuple[Memory | tuple[str, str], frozenset[str]]] = [(m, _core(m.text)) for m in memories]
    for path, body in note_bodies(conn, store):
        texts += [((path, sentence), _core(sentence)) for sentence in note_sentences(body)]
    # word → size of the text's core → texts: a text can only contradict one of a size near its own
    postings: dict[str, dict[int, list[int]]] = {}
    for n, (_, core) in enumerate(texts):
        for word in core:
            postings.setdefault(word, {}).setdefault(len(core), []).append(n)
    found: dict[str, Conflict] = {}
    noted: set[tuple[str, str]] = set()  # (memory id, note path): one statement per note, as before
    for i, memory in enumerate(memories):
        core = texts[i][1]
        if not core:
            continue
        sizes = range((len(core) + 1) // 2, max(2 * len(core), len(core) + 2) + 1)
        shared: dict[int, int] = {}
        for word in core:
            by_size = postings[word]
            for size in sizes:
                for j in by_size.get(size, ()):
                    shared[j] = shared.get(j, 0) + 1
        shared.pop(i, None)
        for j in sorted(shared):
            item, other_core = texts[j]
            if not _may_contradict(len(core), len(other_core), shared[j]):
                continue
            if isinstance(item, Memory):
                if j < i:
                    continue  # this pair was looked at from the other side
                cid = conflict_id(memory.id, item.id)
                older, newer = sorted((memory, item), key=lambda m: (m.created, m.id))
                hit = contradiction(older.text, newer.text)
                if hit is not None:
                    found.setdefault(cid, Conflict(cid, older, newer, hit[0], hit[1]))
                continue
            path, sentence = item
            if (memory.id, path) in noted or not (words(memory.text) & words(sentence)):
                continue
            hit = contradiction(memory.text, sentence)
            if hit is not None:
                noted.add((memory.id, path))
                conflict = _with_note(memory, path, sentence, hit)
                found.setdefault(conflict.id, conflict)
    return sorted(found.values(), key=lambda c: (c.a.created, c.id))


def _add_conflicts(
    conn: sqlite3.Connection,
    store: Store,
    memory: Memory,
    settled: set[str | None],
    found: dict[str, Conflict],
    candidates: int,
) -> None:
    """Add to `found` what `memory` contradicts among its `candidates` nearest memories and its
    nearest notes."""
    for path, _, _, body, _ in search(conn, store, memory.text, candidates):
        other_id = path.rsplit("/", 1)[-1].removesuffix(".md")
        if other_id == memory.id or other_id in settled:
            continue
        if not (words(memory.text) & words(body)):
            continue
        cid = conflict_id(memory.id, other_id)
        if cid in found:
            continue
        other = get_memory(conn, store, other_id)
        if other is None:
            continue
        older, newer = sorted((memory, other), key=lambda m: (m.created, m.id))
        hit = contradiction(older.text, newer.text)
        if hit is None:
            continue
        found[cid] = Conflict(cid, older, newer, hit[0], hit[1])
    for conflict in _note_conflicts(conn, store, memory):
        found.setdefault(conflict.id, conflict)


_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n")
_MARKUP = re.compile(r"^\s*(?:[-*+]|\d+[.)]|#+)\s+")


def note_sentences(body: str) -> list[str]:
    """The statements of a note: its lines and sentences outside code, without list markers."""
    out: list[str] = []
    fenced = False
    for line in body.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if fenced:
            continue
        for sentence in _SENTENCE.split(_MARKUP.sub("", line)):
            if len(sentence.strip()) >= 8:
                out.append(sentence.strip())
    return out


def _note_conflicts(conn: sqlite3.Connection, store: Store, memory: Memory) -> list[Conflict]:
    """A note statement the memory contradicts (the note is `b`; its id is the note's path)."""
    out: list[Conflict] = []
    for path, _, _, body, _ in search(conn, store, memory.text, NOTE_CANDIDATES, memories=False):
        for sentence in note_sentences(body):
            if not (words(memory.text) & words(sentence)):
                continue
            hit = contradiction(memory.text, sentence)
            if hit is not None:
                out.append(_with_note(memory, path, sentence, hit))
                break
    return out


def _with_note(memory: Memory, path: str, sentence: str, hit: tuple[str, str]) -> Conflict:
    """The conflict of `memory` with a note's statement (the note is `b`; its id is the path)."""
    note = Memory(id=path, text=sentence, path=path, source="note")
    return Conflict(conflict_id(memory.id, path), memory, note, hit[0], hit[1])


def conflicts_of(conn: sqlite3.Connection, store: Store, memory_id: str) -> list[Conflict]:
    """The conflicts one memory is in, from its own searches only (`inspect` must not pay for
    every memory's): a wider set of memory candidates than `find_conflicts` takes per memory, so a
    memory whose own nearest ones hold this one is among them too."""
    settled = {item.get("id") for item in rejected_values(store)}
    memory = get_memory(conn, store, memory_id)
    if memory is None or memory.id in settled:
        return []
    found: dict[str, Conflict] = {}
    _add_conflicts(conn, store, memory, settled, found, CANDIDATES * 5)
    return sorted(found.values(), key=lambda c: (c.a.created, c.id))


@dataclass(frozen=True)
class Resolution:
    """How a conflict was settled: the memory kept, the one rejected, and the commit that did it."""

    conflict: str
    kept: str
    rejected: str
    forgotten: bool
    commit: str | None
    edited: str | None = None  # the note whose statement was taken out, when a memory won over it

    def as_dict(self) -> dict[str, object]:
        return dict(self.__dict__)


def pick(conflicts: list[Conflict], ident: str, keep: str) -> tuple[Conflict, Memory, Memory]:
    """(conflict, kept, loser) named by a conflict id or one of its memories' ids, and `keep`."""
    ident, keep = ident.strip(), keep.strip()
    matching = [c for c in conflicts if c.id.startswith(ident) or ident in (c.a.id, c.b.id)]
    matching = [
        c for c in matching if keep in (c.a.id, c.b.id) or any(m.id.startswith(keep) for m in (c.a, c.b))
    ]
    if not matching:
        raise HippoError(
            f"no conflict {ident!r} with a memory {keep!r} in it", hint="`git hippo conflicts` lists them"
        )
    if len(matching) > 1:
        raise HippoError(f"{ident!r} names {len(matching)} conflicts", hint="give the conflict id (c-…)")
    c = matching[0]
    kept, loser = (c.a, c.b) if c.a.id.startswith(keep) else (c.b, c.a)
    return c, kept, loser


def without_statement(text: str, statement: str) -> str | None:
    """`text` (a note) with `statement` taken out: its whole line when the line says only that,
    else the sentence alone. None when the note no longer holds it."""
    lines = text.splitlines(keepends=True)
    for n, line in enumerate(lines):
        if statement not in line:
            continue
        rest = _MARKUP.sub("", line).strip().replace(statement, "", 1).strip()
        if not rest:
            return "".join(lines[:n] + lines[n + 1 :])
        cut = line.replace(statement, "", 1)
        return "".join([*lines[:n], re.sub(r"(?<=\S)  +", " ", cut).rstrip() + "\n", *lines[n + 1 :]])
    return None


def rejected_id(loser: Memory) -> str:
    """The id a rejected value is recorded under: a memory's id, or a note's path and statement
    (one note may lose several statements, one by one)."""
    if loser.source != "note":
        return loser.id
    return f"{loser.path}#" + hashlib.sha256(loser.text.encode("utf-8")).hexdigest()[:8]


def record_rejected(store: Store, loser: Memory, kept: Memory, now: str | None = None) -> None:
    """Append the loser's value to the shared list of rejected values (once)."""
    ident = rejected_id(loser)
    if any(item.get("id") == ident for item in rejected_values(store)):
        return
    loser = loser._replace(id=ident)
    path = rejected_path(store)
    existing = path.read_text(encoding="utf-8") if path.exists() else ""
    line = json.dumps(
        {"id": loser.id, "text": loser.text, "kept": kept.id, "date": now or now_iso()}, ensure_ascii=False
    )
    write_text_atomic(
        path, existing + ("" if not existing or existing.endswith("\n") else "\n") + line + "\n"
    )
