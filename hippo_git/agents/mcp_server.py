"""`git hippo mcp`: a stdio MCP server (the official `mcp` SDK) over this workspace's memory.

Tools: `search` (turns of past sessions, from the transcript index), `note_get`, `notes_search`,
`context`, `sessions` and `handoff` (end the session with a handoff). Every result is plain text,
passed through the redactor, naming note paths and session ids an agent can cite.

The server lives as long as the agent's session: it reads config per call (edits to hippo.toml
take effect at once), opens the index read-only per call (an ingest may be writing), and never
loads GitPython (DESIGN §5: no porcelain wrapper in long-running processes).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hippo_git import __version__
from hippo_git.config import Config, load_config
from hippo_git.errors import HippoError

SNIPPET_CHARS = 400
MAX_LIMIT = 50

INSTRUCTIONS = (
    "hippo_git keeps this repository's memory: Markdown notes (cite them by path) and an index of "
    "past agent sessions (cite them by session id and turn). Use notes_search / note_get before "
    "changing unfamiliar code, search for what earlier sessions did, and call handoff before you stop."
)


class Tools:
    """The tool bodies, callable without MCP (tests, other front ends)."""

    def __init__(self, start: Path) -> None:
        self.start = start
        self._redactor: Any = None

    def _cfg(self) -> Config:
        return load_config(self.start)

    def _clean(self, text: str) -> str:
        if self._redactor is None:
            from hippo_git.transcripts.redact import Redactor

            self._redactor = Redactor()
        return str(self._redactor.redact(text))

    def search(
        self, query: str, limit: int = 10, harness: str | None = None, this_workspace: bool = True
    ) -> str:
        from hippo_git.index import db
        from hippo_git.index import search as turn_search
        from hippo_git.index.workspace import workspace_filter

        cfg = self._cfg()
        limit = max(1, min(limit, MAX_LIMIT))
        cwds, ids = workspace_filter(cfg) if this_workspace else (None, None)
        conn = db.connect(cfg.index_path, readonly=True)
        try:
            hits = turn_search.search(conn, query, limit=limit, harness=harness, cwds=cwds, session_ids=ids)
        finally:
            conn.close()
        if not hits:
            scope = "sessions of this workspace" if this_workspace else "the index"
            return f"No turns match {query!r} in {scope}."
        lines = [f"{len(hits)} turns matching {query!r} (cite as session-id#turn):", ""]
        for hit in hits:
            lines.append(
                f"- {hit.session_id}#{hit.seq} · {hit.harness} · {hit.kind} · {hit.ts or '?'} · {hit.cwd or '?'}"
            )
            lines.append("  " + " ".join(str(hit.snippet).split())[:SNIPPET_CHARS])
        return self._clean("\n".join(lines))

    def note_get(self, name: str) -> str:
        from hippo_git.notes import notes_index
        from hippo_git.notes.context import fence_note

        cfg = self._cfg()
        conn = notes_index.open_notes_index(cfg)
        try:
            notes_index.refresh(conn, cfg)
            found = notes_index.IndexResolver(conn).resolve(name)
        finally:
            conn.close()
        if found.status == "ambiguous":
            raise HippoError(
                f"{name!r} names several notes: {', '.join(found.paths)}", hint="ask again by path"
            )
        if found.path is None:
            raise HippoError(f"no note named {name!r} in {cfg.notes_dir}/", hint="try notes_search")
        text = (cfg.root / found.path).read_bytes().decode("utf-8", errors="replace")
        return self._clean(fence_note(found.path, text, "requested"))

    def notes_search(self, query: str, limit: int = 5) -> str:
        from hippo_git.notes import notes_index
        from hippo_git.notes.relevance import rank_relevant

        cfg = self._cfg()
        conn = notes_index.open_notes_index(cfg)
        try:
            notes_index.refresh(conn, cfg)
            ranked = rank_relevant(conn, query, limit=max(1, min(limit, MAX_LIMIT)))
            notes = notes_index.notes_by_path(conn, [r.path for r in ranked])
        finally:
            conn.close()
        if not ranked:
            return f"No notes match {query!r}."
        lines = [f"{len(ranked)} notes matching {query!r} (read one with note_get and its path):", ""]
        for item in ranked:
            note = notes.get(item.path)
            title = note.title if note else item.path
            lines.append(f"- {item.path} — {title} (score {item.score:.2f})")
            lines.append("  " + _summary(cfg.root / item.path))
        return self._clean("\n".join(lines))

    def context(self, task: str | None = None, budget: int | None = None) -> str:
        from hippo_git.notes.context import build_context

        return self._clean(build_context(self._cfg(), task=task, budget=budget).text)

    def sessions(self, limit: int = 10) -> str:
        from hippo_git.notes import declared

        cfg = self._cfg()
        records = declared.recent_records(
            cfg.root, limit=max(1, min(limit, MAX_LIMIT)), scan=max(24, limit * 4)
        )
        if not records:
            return "No sessions are recorded in this workspace yet."
        lines = [f"{len(records)} most recent sessions in this workspace (newest first):", ""]
        for rec in records:
            state = "open" if not rec.get("ended") else f"ended {rec.get('ended')}"
            lines.append(
                f"- {rec['id']} · {rec.get('harness') or '?'} · {rec.get('kind') or '?'} · "
                f"started {rec.get('started') or '?'} · {state}"
            )
            if rec.get("task"):
                lines.append("  task: " + " ".join(str(rec["task"]).split())[:SNIPPET_CHARS])
            if rec.get("handoff"):
                lines.append("  handoff: " + " ".join(str(rec["handoff"]).split())[:SNIPPET_CHARS])
            if rec.get("notes_touched"):
                lines.append("  notes: " + ", ".join(str(n) for n in rec["notes_touched"][:10]))
        return self._clean("\n".join(lines))

    def handoff(self, text: str, session_id: str | None = None) -> str:
        from hippo_git.notes import declared

        if not text.strip():
            raise HippoError(
                "the handoff text is empty", hint="say what is done, what is left, and link the notes"
            )
        record = declared.end_session(self._cfg(), session_id=session_id, handoff=self._clean(text))
        touched = ", ".join(record.get("notes_touched") or []) or "none"
        return f"Session {record['id']} ended with a handoff ({len(text)} chars). Notes named: {touched}."


def _summary(path: Path) -> str:
    """The first lines of a note's body, on one line."""
    try:
        text = path.read_bytes()[:4000].decode("utf-8", errors="ignore")
    except OSError:
        return ""
    if text.startswith("---"):
        end = text.find("\n---", 3)
        text = text[end + 4 :] if end >= 0 else text
    return " ".join(text.split())[:SNIPPET_CHARS]


def build_server(start: Path) -> Any:
    """The MCPServer with hippo's tools registered."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    tools = Tools(start)
    server = MCPServer("hippo", version=__version__, instructions=INSTRUCTIONS, log_level="WARNING")

    def guarded(fn: Any) -> Any:
        import functools

        @functools.wraps(fn)
        def call(*args: Any, **kwargs: Any) -> str:
            try:
                return str(fn(*args, **kwargs))
            except HippoError as exc:
                raise ToolError(exc.message + (f" (hint: {exc.hint})" if exc.hint else "")) from None

        return call

    descriptions = {
        "search": "Search the turns of past agent sessions (redacted) by words; this workspace's sessions by default.",
        "note_get": "Read one note by name, title or path (e.g. 'storage' or 'notes/design/storage.md').",
        "notes_search": "Find notes relevant to some words; returns paths, titles and first lines.",
        "context": "The context block for a task: entry and required notes, recent sessions, relevant notes.",
        "sessions": "The most recent agent sessions recorded in this workspace, with tasks and handoffs.",
        "handoff": "End the current session with a handoff for the next one; name notes as [[links]].",
    }
    for name, description in descriptions.items():
        server.add_tool(
            guarded(getattr(tools, name)), name=name, description=description, structured_output=False
        )
    from hippo_git.agents.mcp_memories import DESCRIPTIONS, MemoryTools

    memory_tools = MemoryTools(start)
    for name, description in DESCRIPTIONS.items():
        server.add_tool(
            guarded(getattr(memory_tools, name)), name=name, description=description, structured_output=False
        )
    return server


def run_stdio(start: Path) -> None:
    import anyio

    anyio.run(build_server(start).run_stdio_async)
