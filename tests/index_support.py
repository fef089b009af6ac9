"""Helpers for the index tests: Claude-Code-shaped transcripts (FORMATS.md §1) and configs."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from hippo_git.config import Config, load_config


def claude_lines(
    sid: str,
    cwd: str,
    exchanges: list[tuple[str, str]],
    *,
    start_minute: int = 0,
    day: str = "2026-01-05",
    title: str | None = None,
) -> list[dict[str, Any]]:
    """JSONL records of one session. `exchanges` are (role, text) with role in
    user | assistant | read:<path> | edit:<path> (a tool call and its result)."""
    lines: list[dict[str, Any]] = []
    if title:
        lines.append({"type": "summary", "summary": title, "leafUuid": f"{sid}-leaf"})
    parent = None
    for n, (role, text) in enumerate(exchanges):
        minute = start_minute + n
        ts = f"{day}T{10 + minute // 60:02d}:{minute % 60:02d}:00.000Z"
        base = {
            "sessionId": sid,
            "cwd": cwd,
            "gitBranch": "main",
            "version": "2.1.7",
            "timestamp": ts,
            "isSidechain": False,
            "userType": "external",
            "parentUuid": parent,
        }
        uuid = f"{sid}-{n}"
        if role == "user":
            lines.append({**base, "type": "user", "uuid": uuid, "message": {"role": "user", "content": text}})
        elif role == "assistant":
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "uuid": uuid,
                    "requestId": f"req-{uuid}",
                    "message": {
                        "id": f"msg-{uuid}",
                        "role": "assistant",
                        "model": "claude-test",
                        "content": [{"type": "text", "text": text}],
                    },
                }
            )
        else:
            tool, path = role.split(":", 1)
            name = "Read" if tool == "read" else "Edit"
            args = (
                {"file_path": path}
                if tool == "read"
                else {"file_path": path, "old_string": "a", "new_string": text}
            )
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "uuid": uuid,
                    "requestId": f"req-{uuid}",
                    "message": {
                        "id": f"msg-{uuid}",
                        "role": "assistant",
                        "model": "claude-test",
                        "content": [{"type": "tool_use", "id": f"toolu-{uuid}", "name": name, "input": args}],
                    },
                }
            )
            lines.append(
                {
                    **base,
                    "type": "user",
                    "uuid": uuid + "r",
                    "message": {
                        "role": "user",
                        "content": [{"type": "tool_result", "tool_use_id": f"toolu-{uuid}", "content": text}],
                    },
                }
            )
            uuid += "r"
        parent = uuid
    return lines


def write_jsonl(path: Path, records: list[dict[str, Any]], *, append: bool = False) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a" if append else "w", encoding="utf-8") as fh:
        for rec in records:
            fh.write(json.dumps(rec) + "\n")
    return path


def set_roots(home: Path, roots: dict[str, list[Path]]) -> None:
    """Point harnesses at folders through the machine config ($HIPPO_HOME/config.toml)."""
    home.mkdir(parents=True, exist_ok=True)
    lines = ["[transcripts.roots]"]
    lines += [f'"{name}" = {json.dumps([str(p) for p in paths])}' for name, paths in roots.items()]
    (home / "config.toml").write_text("\n".join(lines) + "\n")


def hippo_home() -> Path:
    return Path(os.environ["HIPPO_HOME"])


def config(repo: Path, roots: dict[str, list[Path]] | None = None) -> Config:
    if roots is not None:
        set_roots(hippo_home(), roots)
    return load_config(repo)


def dump_turns(index: Path) -> list[tuple[Any, ...]]:
    """Every turn's identity and content, in order, for comparing two indexes."""
    import sqlite3

    conn = sqlite3.connect(index)
    try:
        return conn.execute(
            "SELECT session_id, seq, kind, text, ts, tool FROM turns ORDER BY session_id, seq"
        ).fetchall()
    finally:
        conn.close()


def fts_consistent(index: Path) -> bool:
    """FTS5's own integrity check of the external-content index against the turns table."""
    import sqlite3

    conn = sqlite3.connect(index)
    try:
        conn.execute("INSERT INTO turns_fts(turns_fts, rank) VALUES ('integrity-check', 1)")
        return conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    except sqlite3.DatabaseError:
        return False
    finally:
        conn.close()


WORDS = [
    "index",
    "cursor",
    "commit",
    "branch",
    "rebase",
    "merge",
    "notes",
    "search",
    "token",
    "parser",
    "adapter",
    "session",
    "worktree",
    "ingest",
    "schema",
    "migration",
    "snippet",
    "ranking",
    "budget",
    "context",
    "review",
    "receipt",
    "proposal",
    "apply",
    "revert",
    "lock",
    "reader",
    "writer",
    "batch",
    "transaction",
    "redact",
    "secret",
    "harness",
    "prompt",
    "answer",
    "tool",
    "output",
    "error",
]


def make_corpus(folder: Path, files: int, exchanges: int, *, seed: int = 7) -> list[Path]:
    """`files` Claude Code sessions of `exchanges` user/assistant pairs with varied words."""
    import random

    rnd = random.Random(seed)
    out = []
    for f in range(files):
        sid = f"bulk-{f:05d}-{rnd.randrange(16**8):08x}"
        pairs: list[tuple[str, str]] = []
        for _ in range(exchanges):
            pairs.append(("user", " ".join(rnd.choices(WORDS, k=12)) + f" case{rnd.randrange(5000)}"))
            pairs.append(("assistant", " ".join(rnd.choices(WORDS, k=60)) + f" item{rnd.randrange(5000)}"))
        out.append(
            write_jsonl(
                folder / f"proj-{f % 7}" / f"{sid}.jsonl", claude_lines(sid, f"/work/p{f % 7}", pairs)
            )
        )
    return out
