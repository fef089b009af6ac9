"""`notes list|show|links`: the notes of the working tree, found by name, with their links."""

from __future__ import annotations

import difflib
import os
from dataclasses import dataclass, field

from hippo_git.config import Config
from hippo_git.errors import HippoError
from hippo_git.notes import notes_index
from hippo_git.notes.graph import Graph, Resolver, build_graph
from hippo_git.notes.parse import Note, parse_note_text


@dataclass(frozen=True)
class NoteRow:
    """One note in `notes list`: title, link counts, size and last commit."""

    path: str
    title: str
    links_out: int
    links_in: int
    size: int
    last_change: dict[str, str] | None  # commit, date, subject; None when never committed

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "title": self.title,
            "links_out": self.links_out,
            "links_in": self.links_in,
            "bytes": self.size,
            "last_change": self.last_change,
        }


@dataclass(frozen=True)
class OutLink:
    """A link out of a note: its target, line, and whether it resolves (ok, broken or ambiguous)."""

    target: str
    line: int
    status: str  # ok | broken | ambiguous
    paths: tuple[str, ...]  # the note (ok) or the candidates (ambiguous)

    def as_dict(self) -> dict[str, object]:
        out: dict[str, object] = {"target": self.target, "line": self.line, "status": self.status}
        if self.status == "ok":
            out["path"] = self.paths[0]
        elif self.status == "ambiguous":
            out["candidates"] = list(self.paths)
        return out


@dataclass
class NoteLinks:
    """A note's links: those out of it (resolved) and the notes that link into it."""

    path: str
    title: str
    out: list[OutLink] = field(default_factory=list)
    into: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "title": self.title,
            "out": [o.as_dict() for o in self.out],
            "in": self.into,
        }


def notes_signature(cfg: Config) -> str:
    """Changes when a note is added, removed, renamed or edited: counts, sizes and mtimes of the
    notes folder's files and folders (a walk of stat calls, without reading any file)."""
    count = size = newest = 0
    for folder, dirs, files in os.walk(cfg.notes_path):
        newest = max(newest, os.stat(folder).st_mtime_ns)
        for name in files:
            try:
                st = os.stat(os.path.join(folder, name))
            except OSError:
                continue
            count, size, newest = count + 1, size + st.st_size, max(newest, st.st_mtime_ns)
        dirs.sort()
    return f"{count}:{size}:{newest}"


def load_graph(cfg: Config) -> Graph:
    """Every note's metadata (from the refreshed notes index) and the link graph."""
    conn = notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        notes = notes_index.all_notes(conn)
    finally:
        conn.close()
    return build_graph(notes, cfg.notes_dir)


def list_notes(cfg: Config, with_history: bool = True, *, graph: Graph | None = None) -> list[NoteRow]:
    graph = graph or load_graph(cfg)
    history = {}
    if with_history and graph.notes:
        from hippo_git.git.history import last_changes

        history = last_changes(cfg.root, cfg.notes_dir)
    rows = []
    for path, note in sorted(graph.notes.items()):
        change = history.get(path)
        rows.append(
            NoteRow(
                path=path,
                title=note.title,
                links_out=len(graph.out.get(path, [])),
                links_in=len(graph.into.get(path, [])),
                size=note.size,
                last_change={"commit": change.commit, "date": change.date, "subject": change.subject}
                if change
                else None,
            )
        )
    return rows


def find_note(cfg: Config, name: str, graph: Graph | None = None) -> str:
    """The path of the note NAME means: a path (repo- or notes-relative), a stem or a title."""
    graph = graph or load_graph(cfg)
    wanted = name.strip().replace("\\", "/")
    for candidate in (wanted, f"{cfg.notes_dir}/{wanted}", f"{wanted}.md", f"{cfg.notes_dir}/{wanted}.md"):
        if candidate in graph.notes:
            return candidate
    res = Resolver(graph.notes.values(), cfg.notes_dir).resolve(wanted)
    if res.status == "ok" and res.path is not None:
        return res.path
    if res.status == "ambiguous":
        raise HippoError(
            f"{name!r} names more than one note: {', '.join(res.paths)}", hint="give the path instead"
        )
    choices = {n.title: p for p, n in graph.notes.items()} | {p: p for p in graph.notes}
    close = difflib.get_close_matches(wanted, list(choices), n=3, cutoff=0.5)
    hint = (
        "did you mean " + " or ".join(repr(choices[c]) for c in close) + "?"
        if close
        else "`git hippo notes list` lists them"
    )
    raise HippoError(f"no note named {name!r} in {cfg.notes_dir}/", hint=hint)


def show_note(cfg: Config, name: str, *, graph: Graph | None = None) -> Note:
    """The note NAME means, parsed from the file (with its body)."""
    path = find_note(cfg, name, graph)
    try:
        text = (cfg.root / path).read_bytes().decode("utf-8", errors="replace")
    except OSError as exc:
        raise HippoError(f"cannot read {path}: {exc.strerror}") from None
    return parse_note_text(text, path, cfg.notes_dir)


def note_links(
    cfg: Config, name: str, *, graph: Graph | None = None, resolver: Resolver | None = None
) -> NoteLinks:
    """`resolver`: one built over `graph`'s notes, which a caller showing many notes keeps."""
    graph = graph or load_graph(cfg)
    path = find_note(cfg, name, graph)
    note = graph.notes[path]
    resolver = resolver or Resolver(graph.notes.values(), cfg.notes_dir)
    result = NoteLinks(path=path, title=note.title, into=sorted(graph.into.get(path, [])))
    for link in note.links:
        res = resolver.resolve(link.target)
        result.out.append(OutLink(link.target, link.line, res.status, res.paths))
    return result
