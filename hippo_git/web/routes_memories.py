"""Memories (with strength, confidence and usage) and conflicts; forget a memory and resolve a
conflict, after a confirmation page, through the same code as the CLI."""

from __future__ import annotations

from flask import Flask, render_template, request

from hippo_git.web.app import confirm_page, done, state


def register(app: Flask) -> None:
    @app.get("/memories")
    def memories() -> str:
        from hippo_git.memories.listing import list_memories

        cfg = state().cfg
        return render_template("memories.html", rows=list_memories(cfg, cfg.home))

    @app.get("/memories/<ident>")
    def memory(ident: str) -> str:
        from hippo_git.memories.manage import inspect

        cfg = state().cfg
        return render_template("memory.html", item=inspect(cfg, cfg.home, ident).as_dict())

    @app.get("/memories/<ident>/forget")
    def forget_confirm(ident: str) -> str:
        return confirm_page(
            f"/memories/{ident}/forget",
            f"Forget memory {ident}: its file is removed and the removal staged for you to commit "
            "(from the personal store: committed there).",
            {},
            "/memories",
        )

    @app.post("/memories/<ident>/forget")
    def forget(ident: str) -> str:
        from hippo_git.memories.manage import forget as run

        cfg = state().cfg
        gone = run(cfg, cfg.home, ident)
        staged = "; commit the staged removal" if gone.staged else ""
        return done(f"forgot {gone.id} ({gone.path}){staged}", "/memories")

    @app.get("/conflicts")
    def conflicts() -> str:
        from hippo_git.memories.manage import list_conflicts
        from hippo_git.memories.store import global_store
        from hippo_git.notes.catalog import notes_signature

        cfg = state().cfg
        # Found again only when a note or memory changed here or in the personal store.
        personal = global_store(cfg.home).config()
        key = f"{notes_signature(cfg)}|{notes_signature(personal)}"
        items = state().cached("conflicts", key, lambda: [c.as_dict() for c in list_conflicts(cfg, cfg.home)])
        return render_template("conflicts.html", items=items)

    @app.get("/conflicts/<ident>/resolve")
    def resolve_confirm(ident: str) -> str:
        keep = request.args.get("keep", "")
        forget_loser = request.args.get("forget") == "1"
        return confirm_page(
            f"/conflicts/{ident}/resolve",
            f"Resolve conflict {ident}: keep {keep}; the other value is remembered as rejected, so no "
            f"dream, capture or import brings it back{' and its memory is removed' if forget_loser else ''}. "
            "This makes a commit.",
            {"keep": keep, "forget": "1" if forget_loser else ""},
            "/conflicts",
        )

    @app.post("/conflicts/<ident>/resolve")
    def resolve(ident: str) -> str:
        from hippo_git.memories.manage import resolve as run

        cfg = state().cfg
        result = run(
            cfg, cfg.home, ident, request.form.get("keep", ""), forget_loser=request.form.get("forget") == "1"
        )
        where = f" in {result.commit[:12]}" if result.commit else ""
        return done(
            f"resolved {result.conflict}: kept {result.kept}, rejected {result.rejected}{where}", "/conflicts"
        )
