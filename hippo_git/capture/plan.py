"""What the watcher watches: every registered workspace's transcript roots, notes and extra
Markdown folders, and which of them a changed path belongs to.

Rebuilt at every reconciling scan, so a transcript folder that appears later (a harness used for
the first time) is watched from then on.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.config import Config, load_config
from hippo_git.errors import HippoError

TRANSCRIPT, NOTES = "transcript", "notes"


@dataclass(frozen=True)
class Place:
    """One folder the watcher watches: what it holds (transcripts or notes) and which workspaces read it."""

    path: str  # absolute, no trailing separator
    kind: str  # TRANSCRIPT | NOTES
    harness: str  # for transcripts; "" for notes
    recursive: bool
    workspaces: tuple[str, ...]  # roots of the workspaces that read it


@dataclass
class Plan:
    """Everything the watcher watches: each workspace's config, the watched places, and unreadable configs."""

    configs: dict[str, Config] = field(default_factory=dict)  # workspace root → its config
    places: list[Place] = field(default_factory=list)
    problems: list[str] = field(default_factory=list)  # workspaces whose config cannot be read

    def classify(self, path: str) -> Place | None:
        """The most specific watched place holding `path`."""
        best: Place | None = None
        for place in self.places:
            inside = path == place.path or path.startswith(place.path + os.sep)
            if not inside:
                continue
            if not place.recursive and os.path.dirname(path) != place.path:
                continue
            if best is None or len(place.path) > len(best.path):
                best = place
        return best

    def watched(self) -> list[Place]:
        """The places that exist now (only those can be watched)."""
        return [p for p in self.places if os.path.isdir(p.path)]

    def key(self) -> tuple[tuple[str, bool], ...]:
        return tuple(sorted({(p.path, p.recursive) for p in self.watched()}))


def build_plan(roots: list[Path], env: dict[str, str] | None = None) -> Plan:
    plan = Plan()
    merged: dict[tuple[str, str, str, bool], list[str]] = {}
    for root in roots:
        try:
            cfg = load_config(root, env)
        except HippoError as exc:
            plan.problems.append(f"{root}: {exc.message}")
            continue
        ws = str(cfg.root)
        plan.configs[ws] = cfg
        runs = os.path.abspath(cfg.home / "model-runs")
        for harness, paths in cfg.transcript_roots.items():
            for p in paths:
                path = os.path.abspath(p)
                if path == runs or path.startswith(runs + os.sep):
                    continue  # invariant 4: model runs are never read
                # Aider writes its history at the workspace root: watching the whole tree would
                # follow every build; its folder alone is enough (subfolders: the scan).
                recursive = harness != "aider"
                merged.setdefault((path, TRANSCRIPT, harness, recursive), []).append(ws)
        for folder in (cfg.notes_dir, *cfg.capture.markdown_dirs):
            path = os.path.abspath(cfg.root / folder)
            merged.setdefault((path, NOTES, "", True), []).append(ws)
    plan.places = [
        Place(path, kind, harness, recursive, tuple(dict.fromkeys(ws)))
        for (path, kind, harness, recursive), ws in merged.items()
    ]
    return plan
