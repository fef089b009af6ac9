"""`git hippo demo DIR`: the main job end to end on built-in sample data, in a scratch repository.

It makes a new repository, sets hippo up, writes the shipped sample transcripts as if Claude Code
had run them there, indexes them, dreams over them with the built-in offline model, and reports
what changed. Its `$HIPPO_HOME` lives inside the scratch repository's `.git/`, so the demo never
touches this machine's real index.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

from hippo_git.config import load_config
from hippo_git.dream.run import DreamOptions, dream
from hippo_git.dream.runner import heuristic_argv
from hippo_git.dream.samples import install_samples
from hippo_git.dream.views import proposals_view
from hippo_git.errors import HippoError
from hippo_git.git.repo import config_get, config_set, run_git
from hippo_git.index.db import connect
from hippo_git.index.search import search
from hippo_git.signals.refresh import ingest
from hippo_git.team.setup import init_workspace

PROJECT = {
    "README.md": "# demo\n\nA tiny Python project that hippo_git's sample agent sessions worked on.\n",
    "pyproject.toml": '[project]\nname = "demo"\nversion = "0.1.0"\n',
    "src/demo/__init__.py": '"""The demo package."""\n',
}
DEMO_QUERY = "uv sync"


@dataclass
class DemoResult:
    """What the demo did in its scratch repository: ingest, dream, changes, a search, and what was learnt."""

    workdir: Path
    home: Path
    ingest: dict[str, Any] = field(default_factory=dict)
    dream: dict[str, Any] = field(default_factory=dict)
    changes: list[dict[str, str]] = field(default_factory=list)
    search: list[dict[str, str]] = field(default_factory=list)
    before: str = ""  # the target's tip before the dream: `git diff BEFORE..main` is what was learnt
    learnt: str = ""  # that diff, limited to the notes

    def learnt_lines(self) -> dict[str, list[str]]:
        """Added lines per note, from the diff."""
        found: dict[str, list[str]] = {}
        path = ""
        for line in self.learnt.splitlines():
            if line.startswith("+++ "):
                path = line[4:].removeprefix("b/")
                found.setdefault(path, [])
            elif line.startswith("+") and path:
                found[path].append(line[1:])
        return {note: lines for note, lines in found.items() if lines}

    def as_dict(self) -> dict[str, Any]:
        return {
            "workdir": str(self.workdir),
            "hippo_home": str(self.home),
            "ingest": self.ingest,
            "dream": self.dream,
            "changes": self.changes,
            "search": {"query": DEMO_QUERY, "hits": self.search},
            "learnt": {"before": self.before, "diff": self.learnt},
        }


def _new_repository(target: Path) -> None:
    if target.exists() and any(target.iterdir()):
        raise HippoError(
            f"{target} exists and is not empty", hint="name a new folder: git hippo demo NEW_DIR"
        )
    target.mkdir(parents=True, exist_ok=True)
    run_git(["init", "-q", "-b", "main"], cwd=target)
    # A fresh machine may have no git identity; the scratch repository gets one of its own.
    if not config_get(target, "user.email"):
        config_set(target, "user.name", "hippo demo")
        config_set(target, "user.email", "demo@hippo.invalid")
    for rel, text in PROJECT.items():
        path = target / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")


def run_demo(
    target: Path,
    *,
    env: Mapping[str, str],
    now: datetime,
    step: Callable[[str], None] = lambda message: None,
) -> DemoResult:
    target = target.resolve()
    _new_repository(target)
    init_workspace(target)
    run_git(["add", "-A"], cwd=target)
    run_git(["commit", "-q", "-m", "A demo project with hippo_git set up"], cwd=target)
    step(f"created {target}: a git repository with hippo set up")
    home = target / ".git" / "hippo-demo-home"
    cfg = replace(load_config(target, env={**env, "HIPPO_HOME": str(home)}), model_command=heuristic_argv())
    samples = home / "sample-transcripts"
    install_samples(target, samples, now)
    summary = ingest(cfg, root=samples, harness="claude-code")
    result = DemoResult(workdir=target, home=home, ingest=summary.as_dict())
    step(f"indexed {summary.sessions} sample sessions ({summary.turns_added} turns)")
    result.before = run_git(["rev-parse", "HEAD"], cwd=target).stdout.strip()
    report = dream(cfg, DreamOptions(), env=env, now=now)
    result.dream = report.to_dict()
    if report.status != "complete":
        raise HippoError(
            f"the demo dream stopped: {report.stopped}", hint=report.hint or "run `git hippo doctor`"
        )
    step("dreamed over them with the built-in offline model")
    for view in proposals_view(target, report.run, target_branch=cfg.target_branch):
        result.changes.append(
            {
                "status": view.status,
                "subject": view.subject,
                "commit": view.commit[:12],  # what `git log` shows and `git show` takes
                "proposal": view.proposal[:12],
            }
        )
    result.learnt = run_git(
        ["diff", result.before, cfg.target_branch, "--", cfg.notes_dir], cwd=target
    ).stdout
    conn = connect(cfg.index_path, readonly=True)
    try:
        hits = search(conn, DEMO_QUERY, limit=3)
    finally:
        conn.close()
    result.search = [{"turn": f"{h.session_id}#{h.seq}", "kind": h.kind, "snippet": h.snippet} for h in hits]
    return result
