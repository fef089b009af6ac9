"""The built-in reviewer of memory proposals: fixed checks, receipts, and `git hippo dream`
reviewing and applying memories nobody reviewed yet."""

from __future__ import annotations

import dataclasses
import json
from datetime import UTC, datetime
from pathlib import Path

import pytest

from hippo_git.config import load_config
from hippo_git.dream.evidence import NoteText, TurnRef
from hippo_git.dream.heuristic import answer
from hippo_git.dream.memory_proposals import propose_memories
from hippo_git.dream.memory_review import reviewer_pass
from hippo_git.dream.protocol import review_request
from hippo_git.dream.records import Proposal
from hippo_git.memories.record import make_memory, render
from hippo_git.memories.review_checks import KEPT_KIND, REJECTED_KIND, file_problems, review_memory
from hippo_git.memories.service import recall_here
from tests.conftest import git

NOW = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
GOOD = make_memory("The integration tests need Docker running", tags=["tests"], now=NOW)
PATH = f"notes/memories/{GOOD.id}.md"


def _file(**changes: object) -> str:
    return render(GOOD._replace(**changes))  # type: ignore[arg-type]


def test_a_valid_new_memory_is_confirmed() -> None:
    assert file_problems(_file(), PATH) == []
    assert review_memory("append", "", None, _file(), PATH)[0] == "confirm"


@pytest.mark.parametrize(
    ("text", "path", "found"),
    [
        (_file(text="Deploy with token ghp_abcdefghijklmnopqrstuvwxyz0123456789"), PATH, "redactor"),
        (_file(text="x" * 4100), PATH, "characters"),
        (_file(text="   "), PATH, "empty"),
        (_file(), "notes/memories/m-0000000000.md", "not the file's name"),
        (_file(confidence="certain"), PATH, "confidence"),
        (_file(created="yesterday"), PATH, "not a time"),
        ("no front matter here\n", PATH, "no front matter"),
        ("---\nid: [oops\n---\nbody\n", PATH, "not valid YAML"),
    ],
)
def test_an_invalid_memory_is_rejected(text: str, path: str, found: str) -> None:
    verdict, reason = review_memory("append", "", None, text, path)
    assert verdict == "reject" and found in reason, reason


def test_repeats_and_rejected_values_are_rejected() -> None:
    kept = [("m-1111111111", "integration tests need docker running")]
    assert review_memory("append", "", None, _file(), PATH, kept) == (
        "reject",
        "repeats the kept memory m-1111111111",
    )
    # "never X" beside "X" is a conflict for `conflicts`, not a repeat
    never = _file(text="The integration tests never need Docker running")
    assert review_memory("append", "", None, never, PATH, kept)[0] == "confirm"
    verdict, reason = review_memory("append", "", None, _file(), PATH, (), [GOOD.text])
    assert verdict == "reject" and "rejected" in reason
    # an existing file is not a new memory
    assert review_memory("append", _file(), None, _file(), PATH)[0] == "reject"


def test_tombstones_and_merges() -> None:
    before = _file()
    tomb = _file(kind="forgotten", text="(forgotten)")
    assert review_memory("replace", before, before, tomb, PATH)[0] == "confirm"
    merged = _file(text=GOOD.text + " (and the compose plugin)", tags=("tests", "docker"))
    kept = [("m-1111111111", GOOD.text)]
    assert review_memory("replace", before, before, merged, PATH, kept)[0] == "confirm"
    renamed = _file(id="m-2222222222")
    assert review_memory("replace", before, before, renamed, PATH)[1] == "the change renames the memory"
    assert review_memory("replace", before, "not there", merged, PATH)[0] == "reject"


def test_the_heuristic_model_reviews_a_memory_request(repo: Path) -> None:
    """Through the model protocol: the request text a model command would read on stdin."""
    p = reviewer_pass(load_config(repo))
    proposal = Proposal(
        op="append", path=PATH, new=_file(), evidence=("memory-agent#0",), pass_name=p.full_name
    )
    note = NoteText(path=PATH, text="", blob=None)
    said = TurnRef("memory-agent", 0, "prompt", GOOD.text)
    code, out = answer(review_request(p, proposal, note, [said]))
    assert (code, json.loads(out)["verdict"]) == (0, "confirm")
    kept = TurnRef("m-1111111111", 0, KEPT_KIND, GOOD.text.upper())
    code, out = answer(review_request(p, proposal, note, [said, kept]))
    assert json.loads(out) == {
        "verdict": "reject",
        "reason": "heuristic: repeats the kept memory m-1111111111",
    }
    rejected = TurnRef("memory-rejected", 0, REJECTED_KIND, GOOD.text)
    code, out = answer(review_request(p, proposal, note, [said, rejected]))
    assert json.loads(out)["verdict"] == "reject"
    # a dream change of any other pass is still judged by the quote rules
    other = proposal.model_copy(update={"pass_name": "core/facts"})
    code, out = answer(review_request(dataclasses.replace(p, name="facts"), other, note, [said]))
    assert json.loads(out)["reason"] == "heuristic: the change quotes no evidence"


def test_dream_reviews_and_applies_memories_nobody_reviewed(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    """An agent's memory proposed while no reviewer ran: `git hippo dream` reviews it with the
    built-in model, writes the receipt and applies it to the target branch."""
    assert hippo(["init", "--no-hooks"], cwd=repo).exit_code == 0
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "set up hippo")
    cfg = load_config(repo)
    good = make_memory("Releases are tagged vX.Y.Z from main", source="agent:mcp", now=NOW)
    repeat = make_memory("Releases are tagged vX.Y.Z from main!", source="agent:mcp", now=NOW)
    [done] = propose_memories(cfg, [good], review_now=False, now=NOW)
    assert done.verdict is None
    [item] = recall_here("releases tagged", cfg=cfg, notes=False)
    assert (item.store, item.reviewed) == ("proposals", False)

    result = hippo(["dream", "--json"], cwd=repo)
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    [reviewed] = out["memories"]
    assert (reviewed["path"], reviewed["verdict"], reviewed["applied"]) == (
        f"notes/memories/{good.id}.md",
        "confirm",
        True,
    )
    receipt = json.loads(git(repo, "notes", "--ref=refs/notes/hippo/receipts", "show", done.commit or ""))
    assert (receipt["verdict"], receipt["reviewer"]["heuristic"]) == ("confirm", True)
    assert git(repo, "show", f"main:notes/memories/{good.id}.md").endswith(good.text)
    recalled = json.loads(hippo(["recall", "releases tagged", "--json", "--no-notes"], cwd=repo).stdout)
    assert [(r["id"], r["store"], r["reviewed"]) for r in recalled] == [(good.id, "workspace", True)]
    # nothing left to review: a second dream reviews nothing, and a repeat is refused before review
    assert json.loads(hippo(["dream", "--json"], cwd=repo).stdout)["memories"] == []
    [again] = propose_memories(cfg, [repeat], now=NOW)
    assert (again.status, again.duplicate_of) == ("duplicate", good.id)


def test_a_confirmed_memory_waits_for_apply_in_pull_request_mode(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    assert hippo(["init", "--no-hooks"], cwd=repo).exit_code == 0
    toml = repo / ".hippo" / "hippo.toml"
    toml.write_text(toml.read_text().replace('apply = "fast-forward"', 'apply = "pull-request"'))
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "set up hippo")
    memory = make_memory("Staging deploys need the VPN", source="agent:mcp")
    [done] = propose_memories(load_config(repo), [memory])
    assert (done.verdict, done.applied) == ("confirm", False)
    out = hippo(["recall", "staging deploys vpn", "--no-notes"], cwd=repo).stdout
    assert f"{memory.id}  [observed awaiting apply]" in out
    assert hippo(["apply", done.run or ""], cwd=repo).exit_code == 0
    out = hippo(["recall", "staging deploys vpn", "--no-notes", "--json"], cwd=repo).stdout
    assert [(r["store"], r["reviewed"]) for r in json.loads(out)] == [("workspace", True)]
