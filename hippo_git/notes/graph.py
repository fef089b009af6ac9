"""The link graph of a set of notes: links out, links in, orphans, broken and ambiguous links."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import NamedTuple

from hippo_git.notes.parse import Note
from hippo_git.notes.resolve import Resolution, Resolver, normalise

__all__ = ["Graph", "LinkProblem", "Resolution", "Resolver", "broken_links", "build_graph", "normalise"]


class LinkProblem(NamedTuple):
    path: str  # the note holding the link
    line: int
    target: str
    kind: str  # "broken" | "ambiguous"
    candidates: tuple[str, ...] = ()

    def as_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "line": self.line,
            "target": self.target,
            "kind": self.kind,
            "candidates": list(self.candidates),
        }


def broken_links(
    notes: Iterable[Note], known: Iterable[Note | str | tuple[str, str]], notes_dir: str = ""
) -> list[LinkProblem]:
    """Broken and ambiguous links of `notes`, resolved against `known` (notes or repo paths).

    For the pre-commit check: `notes` are the staged notes, `known` every note of the tree being
    committed (unchanged ones may be given as paths; they then resolve by path and stem only).
    """
    resolver = Resolver(known, notes_dir)
    problems: list[LinkProblem] = []
    for note in notes:
        for link in note.links:
            res = resolver.resolve(link.target)
            if res.status != "ok":
                problems.append(LinkProblem(note.path, link.line, link.target, res.status, res.paths))
    return problems


@dataclass
class Graph:
    """Resolved links between notes. `out`/`into` map a note path to linked note paths."""

    notes: dict[str, Note]
    out: dict[str, list[str]] = field(default_factory=dict)
    into: dict[str, list[str]] = field(default_factory=dict)
    problems: list[LinkProblem] = field(default_factory=list)

    def orphans(self, exempt: Iterable[str] = ()) -> list[str]:
        """Notes with no links in or out (self-links do not count)."""
        skip = set(exempt)
        return sorted(p for p in self.notes if p not in skip and not self.out.get(p) and not self.into.get(p))


def build_graph(notes: Iterable[Note], notes_dir: str = "", resolver: Resolver | None = None) -> Graph:
    by_path = {n.path: n for n in notes}
    resolver = resolver or Resolver(by_path.values(), notes_dir)
    graph = Graph(notes=by_path)
    cache: dict[str, Resolution] = {}
    for note in by_path.values():
        outs: list[str] = []
        for link in note.links:
            res = cache.get(link.target)
            if res is None:
                res = cache[link.target] = resolver.resolve(link.target)
            if res.status != "ok":
                graph.problems.append(LinkProblem(note.path, link.line, link.target, res.status, res.paths))
                continue
            dest = res.paths[0]
            if dest != note.path and dest not in outs:
                outs.append(dest)
        graph.out[note.path] = outs
        for dest in outs:
            graph.into.setdefault(dest, []).append(note.path)
    return graph
