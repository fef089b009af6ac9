"""The web view's application: loopback only, a secret token, read-only except confirmed actions.

Every request must carry the token `serve` printed (in the URL once, then an HttpOnly, SameSite
Strict cookie) and a Host header naming the loopback address it listens on (so a page on another
site cannot reach it through DNS rebinding). Actions are POSTs carrying a per-server CSRF token,
from a page that asked for confirmation, with an Origin (when the browser sends one) of this
server; they run the same functions as the CLI. Every response forbids scripts from anywhere but
the server itself and framing: transcript, note and model text is hostile, and the templates
escape it all (Jinja2 autoescaping); the policy is a second wall, not the first.
"""

from __future__ import annotations

import hmac
import secrets
import sqlite3
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from flask import Flask, Response, abort, g, redirect, render_template, request
from werkzeug.wrappers import Response as BaseResponse

from hippo_git.config import Config
from hippo_git.errors import HippoError
from hippo_git.web.doctor_view import DoctorView
from hippo_git.web.render import markdown, marked

COOKIE = "hippo_token"
CSP = (
    "default-src 'none'; style-src 'self'; img-src 'self' data:; script-src 'self'; "
    "form-action 'self'; frame-ancestors 'none'; base-uri 'none'"
)


@dataclass
class WebState:
    """What one server holds: the workspace, its secrets, and caches keyed by what they depend on."""

    cfg: Config
    token: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    csrf: str = field(default_factory=lambda: secrets.token_urlsafe(24))
    port: int = 0
    cache: dict[tuple[str, str], Any] = field(default_factory=dict)
    views_checked: str = ""  # the index signature the rollup was last brought up to date with
    doctor: DoctorView = field(init=False)

    def __post_init__(self) -> None:
        self.doctor = DoctorView(self.cfg.root)

    def cached(self, name: str, key: str, make: Callable[[], Any]) -> Any:
        """`make()` once per (`name`, `key`): `key` is what the value depends on (a commit, a mtime)."""
        if (name, key) not in self.cache:
            for old in [k for k in self.cache if k[0] == name]:
                del self.cache[old]
            self.cache[(name, key)] = make()
        return self.cache[(name, key)]


@contextmanager
def views() -> Iterator[tuple[sqlite3.Connection, sqlite3.Connection | None]]:
    """The rollup and the index; the rollup is brought up to date only when the index changed since
    this server last did so (a check over every session is the slow part of a page)."""
    from hippo_git.signals.open import index_signature, open_views

    st = state()
    now = index_signature(st.cfg)
    with open_views(st.cfg, update=st.views_checked != now) as opened:
        st.views_checked = now
        yield opened


def page_key(*parts: object) -> str:
    """A cache key for data computed from the index and the rollup: they, and `parts`, decide it."""
    from hippo_git.signals.open import index_signature

    return "|".join([index_signature(state().cfg), *map(str, parts)])


def state() -> WebState:
    from flask import current_app

    found: WebState = current_app.config["HIPPO"]
    return found


def _allowed_hosts(port: int) -> set[str]:
    return {f"127.0.0.1:{port}", f"localhost:{port}", f"[::1]:{port}"}


def create_app(cfg: Config, *, token: str | None = None) -> Flask:
    """The Flask application for one workspace (`serve` runs it; tests drive it over a real socket)."""
    from hippo_git.web import routes_dream, routes_memories, routes_notes, routes_sessions, routes_signals

    app = Flask(__name__, static_folder=str(Path(__file__).parent / "static"))
    st = WebState(cfg=cfg)
    if token:
        st.token = token
    app.config["HIPPO"] = st
    app.config["MAX_CONTENT_LENGTH"] = 64 * 1024

    @app.before_request
    def guard() -> Any:
        if st.port and request.host not in _allowed_hosts(st.port):
            abort(403, "this server answers only on its loopback address")
        given = request.args.get("token")
        if given is not None and hmac.compare_digest(given, st.token):
            g.set_cookie = True
            if request.method == "GET":  # drop the token from the address bar and from history
                args = urlencode([(k, v) for k, v in request.args.items(multi=True) if k != "token"])
                response = redirect(request.path + (f"?{args}" if args else ""))
                _set_cookie(response, st.token)
                return response
        elif not hmac.compare_digest(request.cookies.get(COOKIE, ""), st.token):
            abort(403, "open the address that `git hippo serve` printed (it holds the access token)")
        if request.method == "POST":
            origin = request.headers.get("Origin")
            if origin is not None and origin.split("://", 1)[-1] not in _allowed_hosts(st.port):
                abort(403, "a request from another site was refused")
            if not hmac.compare_digest(request.form.get("csrf", ""), st.csrf):
                abort(403, "the form is stale or came from elsewhere; reload the page and try again")
        return None

    @app.after_request
    def headers(response: Response) -> Response:
        response.headers["Content-Security-Policy"] = CSP
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"  # "no-referrer" makes forms send Origin: null
        response.headers["Cache-Control"] = "no-store"
        if g.get("set_cookie"):
            _set_cookie(response, st.token)
        return response

    @app.errorhandler(HippoError)
    def hippo_error(exc: HippoError) -> tuple[str, int]:
        return render_template("error.html", message=exc.message, hint=exc.hint), 400

    @app.errorhandler(403)
    @app.errorhandler(404)
    def http_error(exc: Any) -> tuple[str, int]:
        return render_template("error.html", message=exc.description, hint=None), exc.code

    @app.context_processor
    def globals_() -> dict[str, Any]:
        return {"csrf": st.csrf, "workspace": cfg.root.name}

    app.jinja_env.filters["marked"] = marked
    app.jinja_env.filters["card_html"] = card_html
    for module in (routes_signals, routes_notes, routes_dream, routes_sessions, routes_memories):
        module.register(app)
    return app


def card_html(data: dict[str, Any]) -> Any:
    from hippo_git.signals.rollup_card import card_markdown

    return markdown(card_markdown(data))


def _set_cookie(response: BaseResponse, token: str) -> None:
    response.set_cookie(COOKIE, token, httponly=True, samesite="Strict", path="/")


def confirm_page(action: str, description: str, fields: dict[str, str], back: str) -> str:
    """The page that asks before an action runs: what it will do, and a form that does it."""
    return render_template("confirm.html", action=action, description=description, fields=fields, back=back)


def done(message: str, where: str) -> str:
    """The page after an action; the action changed what doctor reports, so its report is dropped."""
    state().doctor.invalidate()
    return render_template("done.html", message=message, where=where)
