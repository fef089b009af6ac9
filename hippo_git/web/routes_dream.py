"""Dream runs: each run's proposals with diffs (read with unidiff), evidence turns, receipts and
verify's verdict; apply a confirmed run and revert a change, after a confirmation page."""

from __future__ import annotations

from typing import Any

from flask import Flask, render_template

from hippo_git.errors import HippoError
from hippo_git.web.app import confirm_page, done, page_key, state
from hippo_git.web.render import diff_rows


def _evidence(evidence: tuple[str, ...]) -> dict[str, Any]:
    """Each cited turn's text, from the index (None when it is not on this machine)."""
    from hippo_git.index import db
    from hippo_git.index.sessions import get_turns

    found: dict[str, Any] = {e: None for e in evidence}
    try:
        conn = db.connect(state().cfg.index_path, readonly=True)
    except db.IndexMissingError:
        return found
    try:
        for ev in evidence:
            session, _, seq = ev.rpartition("#")
            if seq.isdigit():
                rows = get_turns(conn, session, [int(seq)])
                found[ev] = rows[0] if rows else None
    finally:
        conn.close()
    return found


def _refs_key() -> str:
    """What a run's page depends on in git: the run branches, the receipts and the target's tip."""
    from hippo_git.git.objects import GitStore

    cfg = state().cfg
    store = GitStore(cfg.root)
    tips = [
        *store.refs("refs/heads/hippo/proposals/"),
        ("receipts", store.ref_target("refs/notes/hippo/receipts")),
        ("target", store.ref_target(f"refs/heads/{cfg.target_branch}")),
    ]
    return ";".join(f"{name}={tip}" for name, tip in tips)


def register(app: Flask) -> None:
    @app.get("/runs")
    def runs() -> str:
        from hippo_git.dream.views import runs_view

        root = state().cfg.root
        rows = state().cached("runs", _refs_key(), lambda: list(reversed(runs_view(root))))
        return render_template("runs.html", runs=rows)

    @app.get("/runs/<run>")
    def run(run: str) -> str:
        from hippo_git.dream.views import proposals_view

        def make() -> tuple[list[dict[str, Any]], dict[str, Any]]:
            views = proposals_view(state().cfg.root, run)
            items = [{"v": v, "diff": diff_rows(v.diff), "evidence": _evidence(v.evidence)} for v in views]
            return items, _verify_run(run)

        items, verified = state().cached("run", page_key(run, _refs_key()), make)
        return render_template("run.html", run=run, items=items, verify=verified)

    @app.get("/runs/<run>/apply")
    def apply_confirm(run: str) -> str:
        return confirm_page(
            f"/runs/{run}/apply",
            f"Apply the confirmed proposals of run {run} to {state().cfg.target_branch} "
            "(only those whose receipt confirms them and whose note is unchanged; compare-and-swap).",
            {},
            f"/runs/{run}",
        )

    @app.post("/runs/<run>/apply")
    def apply(run: str) -> str:
        from hippo_git.dream.apply import apply_run

        cfg = state().cfg
        result = apply_run(cfg.root, cfg, run)
        return done(
            f"run {result.run}: {len(result.applied)} applied, {len(result.already)} already applied, "
            f"{len(result.stale)} stale, {len(result.refused)} not confirmed",
            f"/runs/{run}",
        )

    @app.get("/proposals/<ident>/revert")
    def revert_confirm(ident: str) -> str:
        return confirm_page(
            f"/proposals/{ident}/revert",
            f"Revert the applied change {ident[:12]}: a git revert on {state().cfg.target_branch} "
            "with a revert receipt; refused when the note changed since.",
            {},
            "/runs",
        )

    @app.post("/proposals/<ident>/revert")
    def revert(ident: str) -> str:
        from hippo_git.dream.revert import revert as run_revert

        result = run_revert(state().cfg.root, ident)
        what = "reverted" if result.created else "already reverted"
        return done(f"{what} {result.path}: {result.applied[:12]} by {result.revert_commit[:12]}", "/runs")


def _verify_run(run: str) -> dict[str, Any]:
    """verify's verdict over the run's proposal commits (the range a pull request of it would be)."""
    from hippo_git.dream.proposals import run_commits
    from hippo_git.git.objects import GitStore
    from hippo_git.team.verify import verify

    store = GitStore(state().cfg.root)
    commits = run_commits(store, run)
    if not commits:
        return {"ok": None, "problems": []}
    try:
        report = verify(state().cfg.root, f"{commits[0].parent}..{commits[-1].commit}")
    except HippoError as exc:  # a verdict that cannot be computed is shown, not raised
        return {"ok": False, "checks": {}, "error": exc.message}
    return {"ok": report.ok, "checks": {c.sha: c for c in report.checks}, "error": None}
