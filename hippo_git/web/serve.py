"""`git hippo serve`: run the web view on a loopback port until Ctrl-C."""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass

from werkzeug.serving import BaseWSGIServer, make_server

from hippo_git.config import Config
from hippo_git.errors import HippoError
from hippo_git.web.app import WebState, create_app

HOST = "127.0.0.1"


@dataclass
class Server:
    """A running web view: its address (with the token) and how to stop it."""

    url: str
    port: int
    server: BaseWSGIServer
    state: WebState

    def stop(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def start(cfg: Config, port: int = 0, *, token: str | None = None) -> Server:
    """Start serving in a background thread (port 0: a free one) and return at once."""
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # no request log on the person's terminal
    app = create_app(cfg, token=token)
    try:
        server = make_server(HOST, port, app, threaded=True)
    except OSError as exc:
        raise HippoError(
            f"cannot listen on {HOST}:{port}: {exc.strerror}", hint="pick another --port"
        ) from None
    st: WebState = app.config["HIPPO"]
    st.port = server.server_port
    threading.Thread(target=server.serve_forever, name="hippo-web", daemon=True).start()
    return Server(f"http://{HOST}:{st.port}/?token={st.token}", st.port, server, st)


def serve(cfg: Config, port: int = 0, *, announce: Callable[[str], None], open_browser: bool = False) -> None:
    """Serve until interrupted; `announce` gets the address to open (it holds the access token)."""
    running = start(cfg, port)
    announce(running.url)
    if open_browser:
        import webbrowser

        webbrowser.open(running.url)
    try:
        threading.Event().wait()
    finally:
        running.stop()
