"""The pydantic model of a session record (a contract: see `records.py` for the file layout).

Imported only by code that validates records, never on the agent-hook path.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field


class SessionRecord(BaseModel):
    """`.hippo/sessions/<safe id>.json`, version 1. Unknown fields are kept (newer writers)."""

    model_config = ConfigDict(extra="allow")

    version: Literal[1] = 1
    kind: Literal["derived", "declared"]
    id: str = Field(min_length=1)
    harness: str | None = None
    started: str | None = None
    ended: str | None = None
    cwd: str | None = None
    title: str | None = None
    task: str | None = None  # the first prompt (derived) or the declared task, ≤ 300 chars, redacted
    notes_touched: list[str] = Field(default_factory=list)  # repo-relative note paths
    files_edited: list[str] = Field(default_factory=list)  # repo-relative paths
    handoff: str | None = None
    turns: int = 0
    context_bytes: int | None = None  # bytes of context given at session start (declared)
    prompts: list[str] = Field(default_factory=list)  # prompts recorded by the agent hook (declared)
