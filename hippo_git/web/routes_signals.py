"""Overview (charts), fleet, incidents, the lessons inbox (keep / dismiss), doctor, search."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import Flask, render_template, request

from hippo_git.web.app import confirm_page, done, page_key, state, views
from hippo_git.web.render import MARKS, bar_chart


def register(app: Flask) -> None:
    @app.get("/")
    def overview() -> str:
        from hippo_git.signals.rollup_card import duration
        from hippo_git.signals.rollup_views import overview as compute

        cfg = state().cfg
        days = min(max(request.args.get("days", 14, type=int) or 14, 1), 366)

        def make() -> dict[str, Any]:
            with views() as (conn, _):
                return compute(conn, cfg, days=days)

        data = state().cached("overview", page_key(days, date.today()), make)
        per_day = list(reversed(data["per_day"]))
        charts = [
            bar_chart([(d["day"], d["sessions"]) for d in per_day], title="sessions per day"),
            bar_chart(
                [(d["day"], round(d["work_seconds"] / 3600, 2)) for d in per_day],
                title="work hours per day",
                unit=" h",
            ),
            bar_chart([(d["day"], d["incidents"]) for d in per_day], title="incidents per day"),
        ]
        return render_template("overview.html", data=data, charts=charts, days=days, duration=duration)

    @app.get("/fleet")
    def fleet() -> str:
        from hippo_git.signals.rollup_card import duration
        from hippo_git.signals.rollup_views import fleet as compute

        def make() -> list[dict[str, Any]]:
            with views() as (conn, _):
                return compute(conn)

        rows = state().cached("fleet", page_key(), make)
        return render_template("fleet.html", rows=rows, duration=duration)

    @app.get("/incidents")
    def incidents() -> str:
        from hippo_git.signals.rollup_views import incidents as compute
        from hippo_git.signals.rollup_views import workspace_scope

        cfg = state().cfg
        everywhere = request.args.get("all") == "1"

        def make() -> list[dict[str, Any]]:
            with views() as (conn, index):
                return compute(conn, index, scope=None if everywhere else workspace_scope(cfg), limit=200)

        rows = state().cached("incidents", page_key(everywhere), make)
        return render_template("incidents.html", rows=rows, everywhere=everywhere)

    @app.get("/lessons")
    def lessons() -> str:
        from hippo_git.dream.lessons_inbox import list_lessons

        items = list_lessons(state().cfg, pending_only=request.args.get("all") != "1")
        return render_template("lessons.html", items=items)

    @app.get("/lessons/<lesson_id>/keep")
    def lesson_keep_confirm(lesson_id: str) -> str:
        from hippo_git.dream.lessons_inbox import pending

        lesson = pending(state().cfg, lesson_id)
        return confirm_page(
            f"/lessons/{lesson.id}/keep",
            f"Keep lesson {lesson.id}: append its rule to {lesson.note} as a proposal with a receipt "
            f"(revertable): {lesson.entry.strip()}",
            {},
            "/lessons",
        )

    @app.post("/lessons/<lesson_id>/keep")
    def lesson_keep(lesson_id: str) -> str:
        from hippo_git.dream.lessons_keep import keep

        result = keep(state().cfg, lesson_id)
        return done(
            f"kept {result['lesson']}: appended to {result['path']} in {result['commit'][:12]}", "/lessons"
        )

    @app.get("/lessons/<lesson_id>/dismiss")
    def lesson_dismiss_confirm(lesson_id: str) -> str:
        from hippo_git.dream.lessons_inbox import pending

        lesson = pending(state().cfg, lesson_id)
        return confirm_page(
            f"/lessons/{lesson.id}/dismiss",
            f"Dismiss lesson {lesson.id}; the same rule is not drafted again: {lesson.rule}",
            {},
            "/lessons",
        )

    @app.post("/lessons/<lesson_id>/dismiss")
    def lesson_dismiss(lesson_id: str) -> str:
        from hippo_git.dream.lessons_inbox import dismiss

        item = dismiss(state().cfg, lesson_id)
        return done(f"dismissed {item.id}; it will not be drafted again", "/lessons")

    @app.get("/doctor")
    def doctor() -> str:
        from hippo_git.web.doctor_view import age_text

        report, computed, refreshing = state().doctor.current(fresh=request.args.get("fresh") == "1")
        return render_template(
            "doctor.html", report=report, computed=age_text(computed), refreshing=refreshing
        )

    @app.get("/search")
    def search() -> str:
        query = request.args.get("q", "").strip()
        hits: list[Any] = []
        if query:
            from hippo_git.index import db
            from hippo_git.index.search import search as run
            from hippo_git.index.workspace import workspace_filter

            cfg = state().cfg
            try:
                conn = db.connect(cfg.index_path, readonly=True)
            except db.IndexMissingError:
                return render_template("search.html", query=query, hits=[], missing=True)
            try:
                cwds, ids = (None, None) if request.args.get("all") == "1" else workspace_filter(cfg)
                hits = run(conn, query, limit=50, cwds=cwds, session_ids=ids, marks=MARKS)
            finally:
                conn.close()
        return render_template("search.html", query=query, hits=hits, missing=False)
