"""`git hippo search` without click: the search and its rendering, shared with the click command
(`search_cmds.search_cmd`), and `run_fast`, which answers the plain forms of the command before
click and the command group are imported.

A cold search spent about twice as long loading click and the group as a search on a small index
takes, so `python -m hippo_git search` (and the `git-hippo` script) come here first. Anything this
parser does not know (help, a bad value, `--harness`, whose choices come from the adapters) goes to
the click command, which answers it with its usual messages.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from hippo_git.cli.plain_args import split_plain
from hippo_git.errors import HippoError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any

    from hippo_git.capture.markdown import DocumentHit
    from hippo_git.config import Config
    from hippo_git.index.embed import Ranking
    from hippo_git.index.search import Hit

ANSI_MARKS = ("\x1b[1;33m", "\x1b[0m")
MAX_LIMIT = 1000


def index_path() -> Path:
    """The index of this machine (`Config.index_path`, which no config file moves); search and
    sessions work outside a repository too, and `--all` reads no config file."""
    from hippo_git.config import hippo_home

    return hippo_home() / "index.sqlite"


def workspace_config() -> Config | None:
    """This repository's settings (read once per search, for the hits and the Markdown folders
    alike); None outside a repository."""
    from hippo_git.config import load_config
    from hippo_git.errors import NotARepoError

    try:
        return load_config()
    except NotARepoError:
        return None


def find_hits(
    query: str,
    *,
    cfg: Config | None,
    limit: int = 20,
    harness: str | None = None,
    since: str | None = None,
    session_id: str | None = None,
    everywhere: bool = False,
    fts: bool = False,
    marks: tuple[str, str] | None = None,
) -> tuple[list[Hit], bool, Ranking]:
    """(hits, whether every session on this machine was searched, how they were ranked): this
    repository's sessions unless `everywhere` or outside a repository; fused with embeddings when
    the `[semantic]` extra has them, else lexical only (and the ranking says why)."""
    from hippo_git.config import machine_config
    from hippo_git.index.db import connect
    from hippo_git.index.embed import Ranking, ranking_for
    from hippo_git.index.search import MARKS, search
    from hippo_git.index.sessions import resolve_session_id

    cwds: list[str] | None = None
    ids: list[str] | None = None
    everywhere = everywhere or cfg is None
    if cfg is not None and not everywhere:
        from hippo_git.index.workspace import workspace_filter

        cwds, ids = workspace_filter(cfg)
    conn = connect(index_path(), readonly=True)
    try:
        sid = resolve_session_id(conn, session_id) if session_id else None
        if fts:
            ranking = Ranking("lexical", "")  # an FTS5 expression is exact by request: nothing to say
        else:
            cfg = cfg or machine_config()
            ranking = ranking_for(conn, index_path(), cfg.home, cfg.semantic_model, query)
        hits = search(
            conn,
            query,
            limit=limit,
            harness=harness,
            since=since,
            session=sid,
            cwds=cwds,
            session_ids=ids,
            fts=fts,
            marks=marks or MARKS,
            rerank=ranking.rerank,
        )
    finally:
        conn.close()
    return hits, everywhere, ranking


def find_documents(
    query: str, *, cfg: Config | None, limit: int, fts: bool, marks: tuple[str, str] | None
) -> list[DocumentHit]:
    """This repository's `capture.markdown_dirs` matches (none outside a repository), listed after
    the turns; changed files are re-read first, so results are current without the watcher."""
    if cfg is None or not cfg.capture.markdown_dirs:
        return []
    from hippo_git.capture import markdown
    from hippo_git.index.search import MARKS

    return markdown.search(cfg, query, limit=limit, fts=fts, marks=marks or MARKS)


def marks_for(as_json: bool) -> tuple[str, str] | None:
    """Highlights for a terminal; None (the index's plain marks) for pipes and JSON."""
    return ANSI_MARKS if not as_json and sys.stdout.isatty() else None


def hits_rows(hits: list[Hit], docs: list[DocumentHit], ranking: str) -> list[dict[str, Any]]:
    """`--json`'s rows: the turns, each saying how it was ranked, then the Markdown files."""
    return [{**h.as_dict(), "ranking": ranking} for h in hits] + [d.as_dict() for d in docs]


def hits_json(hits: list[Hit], docs: list[DocumentHit], ranking: str) -> str:
    rows = hits_rows(hits, docs, ranking)
    return json.dumps(rows, indent=2, ensure_ascii=False, default=str)


def hit_lines(hits: list[Hit], docs: list[DocumentHit]) -> list[str]:
    out: list[str] = []
    for h in hits:
        when = (h.ts or "")[:16].replace("T", " ")
        out.append(
            f"{h.session_id}#{h.seq}  {h.harness}  {when}  {h.kind}  {h.cwd or ''}  {h.title or ''}".rstrip()
        )
        out.append("    " + " ".join(h.snippet.split()))
    for d in docs:
        out.append(f"{d.path}  markdown  {d.title}")
        out.append("    " + " ".join(d.snippet.split()))
    return out


def nothing_found(everywhere: bool) -> str:
    if everywhere:
        return "no matching turns on this machine"
    return "no matching turns in this repository's sessions; --all searches every session on this machine"


_FLAGS = {"--all": "everywhere", "--workspace": None, "--fts": "fts", "--json": "as_json"}
_VALUES = {"-n": "limit", "--limit": "limit", "--since": "since", "--session": "session_id"}


def parse(argv: list[str]) -> dict[str, Any] | None:
    """The search's options from the plain forms of its command line, or None for the click command
    to answer (help, an unknown option, a missing or bad value, no query words)."""
    opts: dict[str, Any] = {"limit": 20, "since": None, "session_id": None}
    opts.update(everywhere=False, fts=False, as_json=False)
    split = split_plain(argv, _FLAGS, _VALUES)
    if split is None:
        return None
    words, found = split
    opts.update(found)
    if not words:
        return None
    if not str(opts["limit"]).isdigit() or not 1 <= int(opts["limit"]) <= MAX_LIMIT:
        return None
    opts["limit"] = int(opts["limit"])
    opts["query"] = " ".join(words)
    return opts


def run_fast(argv: list[str]) -> int | None:
    """The exit status of `git hippo search ARGV`, or None when the click command must answer."""
    opts = parse(argv)
    if opts is None:
        return None
    as_json = opts.pop("as_json")
    query, marks = opts.pop("query"), marks_for(as_json)
    try:
        cfg = workspace_config()
        hits, everywhere, ranking = find_hits(query, cfg=cfg, marks=marks, **opts)
        docs = find_documents(query, cfg=cfg, limit=opts["limit"], fts=opts["fts"], marks=marks)
        if opts["since"] or opts["session_id"]:
            docs = []  # a time or session filter asks about turns; files have neither
    except HippoError as exc:
        sys.stderr.write(exc.for_person())
        return exc.exit_code
    except Exception:  # noqa: BLE001 - the full command reports and logs it
        return None
    if ranking.mode == "lexical" and ranking.note:
        sys.stderr.write(ranking.note + "\n")
    if as_json:
        sys.stdout.write(hits_json(hits, docs, ranking.mode) + "\n")
        return 0
    if not hits and not docs:
        sys.stderr.write(nothing_found(everywhere) + "\n")
    lines = hit_lines(hits, docs)
    if lines:
        sys.stdout.write("\n".join(lines) + "\n")
    return 0
