"""`git hippo serve`: the local web view."""

from __future__ import annotations

import click

from hippo_git.cli.render import say
from hippo_git.config import load_config


@click.command("serve")
@click.option(
    "--port", default=0, type=click.IntRange(0, 65535), help="Port on 127.0.0.1 (default: a free one)."
)
@click.option("--open", "open_browser", is_flag=True, help="Open the address in a browser.")
def serve_cmd(port: int, open_browser: bool) -> None:
    """Serve a local web view of the notes, dream runs, sessions and signals (loopback only)."""
    from hippo_git.web.serve import serve

    def announce(url: str) -> None:
        click.echo(url)
        say("serving on loopback only; the address holds an access token. Ctrl-C stops it.")

    serve(load_config(), port, announce=announce, open_browser=open_browser)
