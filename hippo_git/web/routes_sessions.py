"""Sessions: the list, and one session's turns with its x-ray (claims and evidence, incidents and
causes) and card."""

from __future__ import annotations

from typing import Any

from flask import Flask, render_template, request

from hippo_git.errors import HippoError
from hippo_git.web.app import page_key, state, views


def register(app: Flask) -> None:
    @app.get("/sessions")
    def sessions() -> str:
        from hippo_git.index import db
        from hippo_git.index.sessions import list_sessions
        from hippo_git.index.workspace import workspace_filter

        cfg = state().cfg
        everywhere = request.args.get("all") == "1"
        try:
            conn = db.connect(cfg.index_path, readonly=True)
        except db.IndexMissingError:
            return render_template("sessions.html", rows=[], everywhere=everywhere, missing=True)
        try:
            cwds, ids = (None, None) if everywhere else workspace_filter(cfg)
            rows = list_sessions(conn, workspace_cwds=cwds, session_ids=ids, limit=500)
        finally:
            conn.close()
        return render_template("sessions.html", rows=rows, everywhere=everywhere, missing=False)

    @app.get("/sessions/<path:sid>")
    def session(sid: str) -> str:
        from hippo_git.index.sessions import get_session, get_turns, resolve_session_id
        from hippo_git.notes.catalog import notes_signature
        from hippo_git.signals.rollup_card import card
        from hippo_git.signals.rollup_views import xray

        cfg = state().cfg

        def make() -> dict[str, Any]:
            with views() as (conn, index):
                if index is None:
                    raise HippoError("no transcript index yet", hint="run `git hippo ingest` first")
                full = resolve_session_id(index, sid)
                return {"row": get_session(index, full), "turns": get_turns(index, full),
                        "xray": xray(conn, index, full), "card": card(conn, index, cfg, full)}  # fmt: skip

        # The card names the notes the session touched, found among the notes on disk (a scan of
        # them all): the page is kept until the index or a note changes.
        data: dict[str, Any] = state().cached("session", page_key(sid, notes_signature(cfg)), make)
        return render_template("session.html", **data)
