"""`git hippo graph NOTE|SESSION`: what a note or a session is connected to, a few hops out.

Nodes are notes (memories are notes under `notes_dir/memories/`), sessions and files. Edges:
note → note by `[[links]]`; session → note when the session read, edited or cited it (its session
record's `notes_touched`, and the links of a declared session's handoff); session → file when the
session edited it (`files_edited`). Edges are walked both ways, so a note leads to the sessions that
worked on it and, through them, to the files they changed. Everything comes from the notes index
and the session records in `.hippo/sessions/`: no transcript index is needed.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field
from typing import Any

from hippo_git.config import Config
from hippo_git.errors import HippoError, UsageError
from hippo_git.notes.catalog import find_note, load_graph
from hippo_git.notes.graph import Graph
from hippo_git.notes.parse import link_targets
from hippo_git.notes.resolve import Resolver

MAX_HOPS = 5


@dataclass(frozen=True)
class Edge:
    """A connection between two graph nodes: a link between notes, or a session touching or editing a note."""

    source: str
    target: str
    kind: str  # links | touched | edited

    def as_dict(self) -> dict[str, str]:
        return {"from": self.source, "to": self.target, "kind": self.kind}


@dataclass
class Walk:
    """What `graph` found from a start node within a number of hops: the nodes and the edges between them."""

    start: str
    hops: int
    nodes: dict[str, dict[str, Any]] = field(default_factory=dict)  # id → kind, label, hop
    edges: list[Edge] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "start": self.start,
            "hops": self.hops,
            "nodes": [{"id": k, **v} for k, v in self.nodes.items()],
            "edges": [e.as_dict() for e in self.edges],
        }


def session_node(sid: str) -> str:
    return f"session:{sid}"


def file_node(path: str) -> str:
    return f"file:{path}"


def _edges(cfg: Config, graph: Graph, records: list[dict[str, Any]]) -> list[Edge]:
    edges = [Edge(src, dest, "links") for src, outs in graph.out.items() for dest in outs]
    resolver = Resolver(graph.notes.values(), cfg.notes_dir)
    for rec in records:
        node = session_node(str(rec["id"]))
        touched = {str(p) for p in rec.get("notes_touched") or () if str(p) in graph.notes}
        for target in link_targets(str(rec.get("handoff") or "")):
            res = resolver.resolve(target)
            if res.status == "ok" and res.path is not None:
                touched.add(res.path)
        edges += [Edge(node, path, "touched") for path in sorted(touched)]
        for path in sorted({str(p) for p in rec.get("files_edited") or ()}):
            edges.append(Edge(node, path if path in graph.notes else file_node(path), "edited"))
    return edges


def walk(cfg: Config, start: str, hops: int = 1) -> Walk:
    """The nodes within `hops` edges of `start` (a note name or path, or a session id or prefix)."""
    from hippo_git.index.records import read_records

    if not 0 <= hops <= MAX_HOPS:
        raise UsageError(f"--hops must be between 0 and {MAX_HOPS}, not {hops}")
    graph = load_graph(cfg)
    records = read_records(cfg.root)
    origin = _origin(cfg, graph, records, start)
    around: dict[str, list[Edge]] = {}
    for edge in dict.fromkeys(_edges(cfg, graph, records)):
        around.setdefault(edge.source, []).append(edge)
        around.setdefault(edge.target, []).append(edge)
    by_session = {session_node(str(r["id"])): r for r in records}
    result = Walk(start=origin, hops=hops)
    result.nodes[origin] = _describe(origin, 0, graph, by_session)
    queue = deque([origin])
    seen_edges: set[Edge] = set()
    while queue:
        node = queue.popleft()
        hop = result.nodes[node]["hop"]
        if hop >= hops:
            continue
        for edge in around.get(node, ()):
            other = edge.target if edge.source == node else edge.source
            if edge not in seen_edges:
                seen_edges.add(edge)
                result.edges.append(edge)
            if other not in result.nodes:
                result.nodes[other] = _describe(other, hop + 1, graph, by_session)
                queue.append(other)
    # Edges between nodes that are both shown, even when found at the last hop.
    for edge in dict.fromkeys(e for edges in around.values() for e in edges):
        if edge not in seen_edges and edge.source in result.nodes and edge.target in result.nodes:
            seen_edges.add(edge)
            result.edges.append(edge)
    return result


def _origin(cfg: Config, graph: Graph, records: list[dict[str, Any]], start: str) -> str:
    wanted = start.strip()
    if not wanted:
        raise UsageError(
            "graph needs a note or a session", hint="git hippo graph notes/x.md  |  git hippo graph SESSION"
        )
    ids = [str(r["id"]) for r in records]
    if wanted.startswith("session:"):
        wanted = wanted.removeprefix("session:")
    elif wanted not in ids:
        try:
            return find_note(cfg, wanted, graph)
        except HippoError:
            pass
    if wanted in ids:
        return session_node(wanted)
    matches = [i for i in ids if i.startswith(wanted)]
    if len(matches) == 1:
        return session_node(matches[0])
    if matches:
        raise HippoError(
            f"{start!r} is ambiguous: {', '.join(sorted(matches)[:5])}", hint="give more of the id"
        )
    raise HippoError(
        f"no note or session named {start!r}",
        hint="`git hippo notes list` lists notes, `git hippo sessions --workspace` sessions",
    )


def _describe(node: str, hop: int, graph: Graph, by_session: dict[str, dict[str, Any]]) -> dict[str, Any]:
    if node.startswith("session:"):
        rec = by_session.get(node, {})
        label = rec.get("task") or rec.get("title") or ""
        return {"kind": "session", "label": str(label)[:120], "hop": hop}
    if node.startswith("file:"):
        return {"kind": "file", "label": node.removeprefix("file:"), "hop": hop}
    note = graph.notes.get(node)
    kind = "memory" if "/memories/" in f"/{node}" else "note"
    return {"kind": kind, "label": note.title if note else node, "hop": hop}
