"""Episode summaries at capture time: with a model configured, what a captured stretch of a session
decided, preferred and left to do, written into the index as an `episode` turn.

The window is the session's prompts and answers since the last episode, its newest 14,000
characters at most; under 200 characters it is not worth a model call. The model runs through the
dream's isolated runner (invariant 4), the transcript text fenced as untrusted data; its reply is
validated, redacted (invariant 2) and announced in the outbox before it is written, so a failed
write replays the same summary rather than asking again. Without a model, capture is ingest only.
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

from hippo_git.capture import outbox
from hippo_git.capture.heartbeat import capture_dir
from hippo_git.capture.steps import EPISODE, with_lock_retry
from hippo_git.config import Config
from hippo_git.files import write_json_atomic

WINDOW_CHARS = 14_000
MIN_CHARS = 200
SUMMARY_CHARS = 4_000
_KINDS = ("prompt", "answer", "summary")
_SAFE = re.compile(r"[^A-Za-z0-9._-]")

INSTRUCTIONS = """\
Summarise the stretch of an AI coding session below for the team's memory. List only what a
teammate would need later: decisions taken (and why), preferences the person stated about how
to work, and follow-ups left open. Leave a list empty when the session has nothing for it. Each
item is one short sentence."""
REPLY = """\
Reply with one JSON object and nothing else:
{"decisions": ["..."], "preferences": ["..."], "follow_ups": ["..."]}"""


@dataclass(frozen=True)
class EpisodeResult:
    """Whether an episode summary was written for a captured stretch, and why (not)."""

    written: bool
    reason: str  # why not, or what was written

    def as_dict(self) -> dict[str, object]:
        return {"written": self.written, "reason": self.reason}


def _mark_path(home: Path, session_id: str) -> Path:
    return capture_dir(home) / "episodes" / f"{_SAFE.sub('_', session_id)[:120]}.json"


def _through(home: Path, session_id: str) -> int:
    try:
        return int(json.loads(_mark_path(home, session_id).read_text(encoding="utf-8"))["through"])
    except (OSError, ValueError, KeyError, TypeError):
        return -1


def window(cfg: Config, session_id: str, after_seq: int) -> tuple[str, int]:
    """(text, last seq) of the session's prompts and answers after `after_seq`, newest WINDOW_CHARS."""
    from hippo_git.index.db import IndexMissingError, connect

    try:
        conn = connect(cfg.index_path, readonly=True)
    except IndexMissingError:
        return "", after_seq
    try:
        rows = conn.execute(
            f"SELECT seq, kind, text FROM turns WHERE session_id = ? AND seq > ? AND kind IN "
            f"({','.join('?' * len(_KINDS))}) ORDER BY seq",
            (session_id, after_seq, *_KINDS),
        ).fetchall()
    finally:
        conn.close()
    if not rows:
        return "", after_seq
    parts = [f"[{kind}] {text}" for _seq, kind, text in rows]
    text = "\n\n".join(parts)
    if len(text) > WINDOW_CHARS:
        text = text[-WINDOW_CHARS:]
    return text, int(rows[-1][0])


def prompt_for(session_id: str, text: str) -> str:
    from hippo_git.dream.prompt import Block, Section, render

    section = Section(
        "The session",
        "The newest part of one session, oldest turn first; each turn starts with its kind.",
        (Block({"type": "transcript", "session": session_id}, text),),
    )
    request, _ = render({"task": "episode"}, INSTRUCTIONS, [section], REPLY)
    return request


def parse_reply(stdout: str) -> str:
    """The model's reply as the episode's text; raises ValueError when it is not the asked shape."""
    from pydantic import BaseModel, ConfigDict

    class Reply(BaseModel):
        model_config = ConfigDict(extra="ignore")
        decisions: list[str] = []
        preferences: list[str] = []
        follow_ups: list[str] = []

    raw = stdout.strip()
    start, end = raw.find("{"), raw.rfind("}")
    if start < 0 or end < start:
        raise ValueError("the reply holds no JSON object")
    reply = Reply.model_validate_json(raw[start : end + 1])
    lines: list[str] = []
    for title, items in (
        ("Decisions", reply.decisions),
        ("Preferences", reply.preferences),
        ("Follow-ups", reply.follow_ups),
    ):
        kept = [" ".join(i.split()) for i in items if i.strip()]
        if kept:
            lines += [f"{title}:", *(f"- {i}" for i in kept)]
    return "\n".join(lines)[:SUMMARY_CHARS]


def store_episode(cfg: Config, session_id: str, text: str, ts: str) -> bool:
    """Write the (already redacted) episode under the ingest lock."""
    from hippo_git.index.db import connect
    from hippo_git.index.episodes import write_episode
    from hippo_git.index.lock import IndexLock

    with IndexLock(cfg.index_path):
        conn = connect(cfg.index_path)
        try:
            return write_episode(conn, session_id, text, ts or None)
        finally:
            conn.close()


def capture_episode(cfg: Config, session_id: str, env: Mapping[str, str]) -> EpisodeResult:
    """Summarise what the session did since its last episode, when a model is configured."""
    if not cfg.model_command:
        return EpisodeResult(False, "no model configured: capture is ingest only")
    after = _through(cfg.home, session_id)
    text, last = window(cfg, session_id, after)
    if len(text) < MIN_CHARS:
        return EpisodeResult(False, f"window of {len(text)} characters: not worth a model call")
    from hippo_git.dream.runner import CommandModel
    from hippo_git.transcripts.redact import Redactor

    model = CommandModel(
        argv=tuple(cfg.model_command),
        home=cfg.home,
        run_id=f"capture-{_SAFE.sub('_', session_id)[:40]}",
        parent_env=env,
        timeout_s=float(cfg.dream.model_timeout_s),
    )
    summary = Redactor().redact(parse_reply(model(prompt_for(session_id, text)).stdout))
    if not summary:
        _mark(cfg.home, session_id, last)
        return EpisodeResult(False, "the model found nothing to keep")
    ts = datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z")
    data = {"workspace": str(cfg.root), "session_id": session_id, "text": summary, "ts": ts}
    with outbox.write_ahead(cfg.home, EPISODE, data):
        written = with_lock_retry(
            lambda: store_episode(cfg, session_id, summary, ts), cfg.capture.lock_timeout_s
        )
    _mark(cfg.home, session_id, last)
    return EpisodeResult(written, f"{len(summary)} characters" if written else "session not in the index")


def _mark(home: Path, session_id: str, through: int) -> None:
    with contextlib.suppress(OSError):
        write_json_atomic(_mark_path(home, session_id), {"through": through})
