"""Sample transcripts for the quick start: two small Claude Code sessions shipped in packs/core/samples.

`install_samples` writes them under `dest` as if Claude Code had run them in `workspace` over the
two days before `now`, so `git hippo ingest --root DEST --harness claude-code` assigns them to the
workspace and a `git hippo dream` (with the built-in heuristic model) finds what to propose.
"""

from __future__ import annotations

import json
from datetime import datetime, timedelta
from pathlib import Path

from hippo_git.dream.packs import CORE, shipped_root
from hippo_git.files import write_text_atomic


def sample_dir() -> Path:
    return shipped_root() / CORE / "samples"


def install_samples(workspace: Path, dest: Path, now: datetime) -> list[Path]:
    """Write the sample transcripts for `workspace` into `dest/<project folder>/`; returns the files."""
    workspace_text = json.dumps(str(workspace.resolve()))[1:-1]  # as it appears inside a JSON string
    days = {
        "@DAY1@": (now - timedelta(days=2)).strftime("%Y-%m-%d"),
        "@DAY2@": (now - timedelta(days=1)).strftime("%Y-%m-%d"),
    }
    # Claude Code names a project's folder after its path with every "/" (and ".") turned into "-".
    project = dest / str(workspace.resolve()).replace("/", "-").replace(".", "-")
    written = []
    for src in sorted(sample_dir().glob("*.jsonl")):
        text = src.read_text(encoding="utf-8").replace("@WORKSPACE@", workspace_text)
        for key, value in days.items():
            text = text.replace(key, value)
        target = project / src.name
        write_text_atomic(target, text)
        written.append(target)
    return written
