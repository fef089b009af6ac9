"""Notes: the list, one note rendered with its links in and out, a link graph and its git history."""

from __future__ import annotations

from flask import Flask, redirect, render_template, request
from werkzeug.wrappers import Response

from hippo_git.notes.graph import Graph
from hippo_git.web.app import state
from hippo_git.web.render import link_graph, markdown


def register(app: Flask) -> None:
    @app.get("/notes")
    def notes() -> str:
        from hippo_git.notes.catalog import list_notes, notes_signature

        cfg = state().cfg
        key = notes_signature(cfg)
        rows = state().cached(
            "note-rows", key, lambda: list_notes(cfg, with_history=False, graph=_graph(key))
        )
        history = state().cached("history", _history_key(), _last_changes)
        page = max(request.args.get("page", 1, type=int) or 1, 1)
        pages = max((len(rows) + PAGE - 1) // PAGE, 1)
        shown = rows[(page - 1) * PAGE : page * PAGE]
        return render_template(
            "notes.html", rows=shown, total=len(rows), page=page, pages=pages, history=history
        )

    @app.get("/note")
    def note_by_name() -> Response:
        from urllib.parse import quote

        from hippo_git.notes.catalog import find_note

        return redirect("/notes/" + quote(find_note(state().cfg, request.args.get("name", ""))))

    @app.get("/notes/<path:path>")
    def note(path: str) -> str:
        from hippo_git.git.history import file_history
        from hippo_git.notes.catalog import note_links, notes_signature, show_note
        from hippo_git.notes.resolve import Resolver

        cfg = state().cfg
        key = notes_signature(cfg)
        graph = _graph(key)
        parsed = show_note(cfg, path, graph=graph)
        # Resolving links against 5,000 notes starts with a table of them all: kept like the graph.
        resolver = state().cached("resolver", key, lambda: Resolver(graph.notes.values(), cfg.notes_dir))
        links = note_links(cfg, parsed.path, graph=graph, resolver=resolver)
        out = [o.paths[0] for o in links.out if o.status == "ok"]
        return render_template(
            "note.html",
            note=parsed,
            body=markdown(parsed.body),
            links=links,
            graph=link_graph(parsed.path, links.into, sorted(set(out))),
            history=file_history(cfg.root, parsed.path, limit=50),
        )


PAGE = 500  # notes per page of the list


def _graph(key: str | None = None) -> Graph:
    """The notes and their links, rebuilt only when a note file changed (`key`: the notes' signature)."""
    from hippo_git.notes.catalog import load_graph, notes_signature

    cfg = state().cfg
    graph: Graph = state().cached("graph", key or notes_signature(cfg), lambda: load_graph(cfg))
    return graph


def _history_key() -> str:
    """HEAD's commit: the notes' last changes only change when it does. Read in-process: starting
    `git rev-parse` was most of the notes list's time on a busy machine."""
    from hippo_git.git.objects import GitStore

    return GitStore(state().cfg.root).ref_target("HEAD") or ""


def _last_changes() -> dict[str, object]:
    from hippo_git.git.history import last_changes

    cfg = state().cfg
    return dict(last_changes(cfg.root, cfg.notes_dir))
