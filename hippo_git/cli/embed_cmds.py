"""`embed`: the `[semantic]` extra's turn embeddings (`search` picks its ranking in `search_fast`)."""

from __future__ import annotations

from typing import Any

import click

from hippo_git.cli.render import ProgressBar, emit_json, json_option, say
from hippo_git.config import Config, load_config, machine_config
from hippo_git.errors import NotARepoError


def _config() -> Config:
    """The workspace's settings, or the machine's outside a repository."""
    try:
        return load_config()
    except NotARepoError:
        return machine_config()


@click.command("embed")
@json_option
def embed_cmd(as_json: bool) -> None:
    """Embed indexed turns for semantic search (needs the [semantic] extra), in batches, reusing the
    vectors of unchanged text. After the first run, `ingest` embeds new turns itself."""
    from hippo_git.index.embed import embed_index

    cfg = _config()
    bar = ProgressBar("embedding turns", min_total=0, show_pos=True)
    try:
        summary = embed_index(cfg.index_path, cfg.home, cfg.semantic_model, progress=bar)
    finally:
        bar.close()
    if as_json:
        emit_json(summary.as_dict())
        return
    say(
        f"{summary.embedded} turns embedded, {summary.reused} reused ({summary.model},"
        f" {summary.turns_per_second:.1f} turns/s); store {summary.store_bytes:,} bytes"
    )


def embed_after_ingest(cfg: Config) -> dict[str, Any] | None:
    """For `ingest`: embed its new turns when embeddings are on (see `index.embed`)."""
    from hippo_git.index.embed import refresh_after_ingest

    bar = ProgressBar("embedding new turns", min_total=0, show_pos=True)
    try:
        summary = refresh_after_ingest(cfg.index_path, cfg.home, cfg.semantic_model, progress=bar)
    finally:
        bar.close()
    return summary.as_dict() if summary else None
