"""Cost guards: paid model calls are capped and a stop is said; the built-in model is never capped."""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippo_git.dream.run import DreamOptions, dream
from hippo_git.dream.runner import heuristic_argv
from tests.scripted_model import add_sessions, make_workspace

NOTES = {"notes/build.md": "# Build\n\nRun the tests with `make test`.\n"}
RULES = [
    "Always run the tests with -x, it saves minutes.",
    "Never push to main without a green build.",
    "Always pin the linter version in the lock file.",
]
UNTIL = datetime(2026, 1, 8, tzinfo=UTC)


def _sessions(day: str, name: str) -> tuple[str, str, list[tuple[Any, ...]]]:
    turns: list[tuple[Any, ...]] = [("read", "notes/build.md")]
    turns += [("user", rule.replace("tests", f"tests of {name}")) for rule in RULES]
    return (name, day, turns + [("assistant", "Noted.")])


def test_the_built_in_model_is_never_stopped_by_the_call_cap(tmp_path: Path, hippo: Any) -> None:
    cfg = make_workspace(
        tmp_path / "repo", dict(NOTES), list(heuristic_argv()), settings="[dream]\nmax_model_calls = 2\n"
    )
    add_sessions(cfg, tmp_path / "t", [_sessions("2026-01-05", "alpha"), _sessions("2026-01-06", "beta")])
    report = dream(cfg, DreamOptions(until=UNTIL), env=dict(os.environ), now=UNTIL)
    t = report.totals()
    assert report.status == "complete" and t["model_calls"] > 2 and t["applied"] == 4
    assert (
        "no cap: the built-in model costs nothing"
        in (cfg.hippo_dir / "reports" / f"{report.run}.md").read_text()
    )


def test_a_lessons_scan_stopped_by_the_cap_is_said_on_screen(tmp_path: Path, hippo: Any) -> None:
    from tests.scripted_model import scripted_argv, write_script

    script = write_script(tmp_path / "script.json", [])
    cfg = make_workspace(
        tmp_path / "repo", dict(NOTES), scripted_argv(script), settings="[dream]\nmax_model_calls = 1\n"
    )
    turns: list[tuple[Any, ...]] = [
        ("user", "add a release script"),
        ("assistant", "I committed it without running the linter."),
        ("user", "No, always run the linter before you commit anything."),
        ("assistant", "Done, and I pushed the tag."),
        ("user", "No, never push tags before the release notes are merged."),
    ]
    add_sessions(cfg, tmp_path / "t", [("gamma", "2026-01-05", turns)])
    result = hippo(["dream", "--until", "2026-01-08"], cwd=cfg.root)
    assert result.exit_code == 0, result.output
    assert "lessons scan stopped: the scan reached dream.max_model_calls = 1" in result.output
