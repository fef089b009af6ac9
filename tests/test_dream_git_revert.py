"""`git hippo revert`: round trip, refusal when the note changed, --force, reverted text; the CLI views."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import load_config
from hippo_git.dream.apply import apply_run, confirm
from hippo_git.dream.receipts import receipts_for
from hippo_git.dream.revert import revert, reverted_texts
from hippo_git.errors import HippoError
from tests.conftest import git, run_cli
from tests.dream_git_support import NOTES, THREE, fsck_clean, notes_repo, prop, propose, receipt_lines, review


@pytest.fixture
def applied(tmp_path: Path) -> tuple[Path, list[Any]]:
    root = notes_repo(tmp_path / "repo")
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    apply_run(root, load_config(root), "r1")
    return root, pcs


def test_revert_round_trip_restores_the_note_and_writes_revert_receipts(
    applied: tuple[Path, list[Any]],
) -> None:
    root, pcs = applied
    result = revert(root, pcs[1].proposal_id)
    assert result.created and result.applied == pcs[1].commit
    assert (root / "notes/deploy.md").read_text() == NOTES["notes/deploy.md"]
    assert git(root, "status", "--porcelain") == ""
    assert git(root, "log", "-1", "--format=%B", "main") == (
        f'Revert "hippo: append notes/deploy.md (core/facts)"\n\nThis reverts commit {pcs[1].commit}.'
    )
    on_revert = [r for r in receipts_for(root, commit=result.revert_commit) if r.kind == "revert"]
    assert (
        len(on_revert) == 1
        and on_revert[0].verdict == "reject"
        and on_revert[0].proposal == pcs[1].proposal_id
    )
    assert git(root, "notes", "--ref=hippo/receipts", "show", pcs[1].commit).count('"kind":"revert"') == 1
    # the reverted change never passes the gate again
    gate = confirm(root, "main", [pcs[1].commit])
    assert gate.confirmed == [] and gate.refused[0].reason == "a human reverted this proposal"
    assert reverted_texts(root, "notes/deploy.md") == ["- Deploys need the release tag."]
    assert reverted_texts(root, "notes/build.md") == []
    # again: nothing new
    lines = receipt_lines(root)
    again = revert(root, pcs[1].commit[:10])
    assert not again.created and again.revert_commit == result.revert_commit
    assert receipt_lines(root) == lines
    fsck_clean(root)


def test_revert_refuses_when_the_note_changed_since_unless_forced(applied: tuple[Path, list[Any]]) -> None:
    root, pcs = applied
    path = root / "notes/build.md"
    path.write_text(path.read_text().replace("# Build", "# Building things"))
    git(root, "commit", "-qam", "human edit")
    head = git(root, "rev-parse", "main")
    with pytest.raises(HippoError, match="notes/build.md changed since"):
        revert(root, pcs[0].proposal_id)
    assert git(root, "rev-parse", "main") == head
    result = revert(root, pcs[0].proposal_id, force=True)
    text = path.read_text()
    assert "- `make lint` runs ruff." not in text and "# Building things" in text
    assert "Run `make -j4` to build." in text
    assert "(forced)" in receipts_for(root, commit=result.revert_commit)[0].reason
    assert git(root, "status", "--porcelain") == ""


def test_a_forced_revert_that_conflicts_changes_nothing(applied: tuple[Path, list[Any]]) -> None:
    root, pcs = applied
    path = root / "notes/build.md"
    path.write_text(path.read_text().replace("- `make lint` runs ruff.", "- `make lint` runs ruff and mypy."))
    git(root, "commit", "-qam", "human edit of the same line")
    head = git(root, "rev-parse", "main")
    with pytest.raises(HippoError, match="conflicts"):
        revert(root, pcs[0].proposal_id, force=True)
    assert git(root, "rev-parse", "main") == head and git(root, "status", "--porcelain") == ""


def test_revert_of_something_not_applied_is_a_clear_error(tmp_path: Path) -> None:
    root = notes_repo(tmp_path / "repo")
    pcs = propose(root, "r1", THREE[:1])
    with pytest.raises(HippoError, match="not applied"):
        revert(root, pcs[0].proposal_id)
    with pytest.raises(HippoError, match="not a dream proposal commit"):
        revert(root, git(root, "rev-parse", "main"))
    with pytest.raises(HippoError, match="not a proposal id"):
        revert(root, "main")


def test_cli_apply_proposals_receipts_revert(tmp_path: Path, hippo: Any) -> None:
    root = notes_repo(tmp_path / "repo")
    pcs = propose(root, "r1", THREE)
    review(root, pcs, ["confirm", "reject", "confirm"])
    shown = hippo(["proposals", "--json"], cwd=root)
    assert shown.exit_code == 0, shown.output
    views = json.loads(shown.stdout)
    assert [v["status"] for v in views] == ["confirmed", "rejected", "confirmed"]
    assert views[0]["diff"].startswith("diff --git a/notes/build.md b/notes/build.md")
    assert views[2]["added"] == 1 and views[2]["removed"] == 1
    text = hippo(["proposals", pcs[2].proposal_id[:12]], cwd=root)
    assert "+Run `make -j4` to build." in text.stdout and "receipt: review confirm" in text.stdout
    applied = hippo(["apply", "--json"], cwd=root)
    assert applied.exit_code == 0, applied.output
    assert len(json.loads(applied.stdout)["applied"]) == 2
    after = json.loads(hippo(["proposals", "r1", "--json"], cwd=root).stdout)
    assert [v["status"] for v in after] == ["applied", "rejected", "applied"]
    receipts = json.loads(hippo(["receipts", "--json"], cwd=root).stdout)
    assert {r["reason"] for r in receipts} >= {"confirmed by script", "rejected by script"}
    older = hippo(["revert", pcs[0].proposal_id], cwd=root)  # a later dream change (the replace) came after
    assert older.exit_code == 0, older.output
    assert "runs ruff" not in (root / "notes/build.md").read_text()
    assert "Run `make -j4` to build." in (root / "notes/build.md").read_text()
    reverted = hippo(["revert", pcs[2].proposal_id, "--json"], cwd=root)
    assert reverted.exit_code == 0, reverted.output
    assert json.loads(reverted.stdout)["path"] == "notes/build.md"
    statuses = [v["status"] for v in json.loads(hippo(["proposals", "--json"], cwd=root).stdout)]
    assert statuses == ["reverted", "rejected", "reverted"]
    table = hippo(["receipts"], cwd=root).stdout
    assert "revert" in table and "KIND" in table
    runs = json.loads(hippo(["proposals", "--runs", "--json"], cwd=root).stdout)
    assert [(r["run"], r["proposals"]) for r in runs] == [("r1", 3)]
    missing = hippo(["proposals", "zzzzzzzzz"], cwd=root)
    assert missing.exit_code == 1 and "no run or proposal matches" in missing.output


def test_revert_finds_a_proposal_merged_through_a_pull_request(tmp_path: Path) -> None:
    """`dream.apply = "pull-request"`: the run is merged with a merge commit; revert still finds it."""
    root = notes_repo(tmp_path / "repo")
    pcs = propose(root, "r1", THREE[:2])
    review(root, pcs)
    (root / "other.txt").write_text("work on main meanwhile\n")
    git(root, "add", "other.txt")
    git(root, "commit", "-qm", "main moved")
    git(root, "merge", "-q", "--no-ff", "-m", "Merge dream run r1", "hippo/proposals/r1")
    result = revert(root, pcs[0].proposal_id)
    assert result.applied == pcs[0].commit
    assert (root / "notes/build.md").read_text() == NOTES["notes/build.md"]
    assert revert(root, pcs[0].proposal_id).created is False


def test_receipts_through_the_real_console_entry(applied: tuple[Path, list[Any]]) -> None:
    root, pcs = applied
    proc = run_cli(["receipts", "--json"], cwd=root)
    assert proc.returncode == 0, proc.stderr
    rows = json.loads(proc.stdout)
    assert {r["proposal"] for r in rows} >= {pc.proposal_id for pc in pcs}
    bad = run_cli(["revert", "not-an-id"], cwd=root)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr and "not a proposal id" in bad.stderr


def test_any_applied_dream_change_reverts_whatever_was_appended_after_it(tmp_path: Path) -> None:
    """Dreams append at the end of a note: reverting the oldest of three appends leaves the other two."""
    root = notes_repo(tmp_path / "repo")
    appends = [prop("notes/build.md", f"- fact number {n}: run `make step-{n}`.", turn=n) for n in (1, 2, 3)]
    pcs = propose(root, "r1", appends)
    review(root, pcs)
    apply_run(root, load_config(root), "r1")
    first = revert(root, pcs[0].proposal_id)
    text = (root / "notes/build.md").read_text()
    assert first.created and "fact number 1" not in text
    assert text.endswith("- fact number 2: run `make step-2`.\n- fact number 3: run `make step-3`.\n")
    assert text.startswith(NOTES["notes/build.md"])
    revert(root, pcs[1].proposal_id)  # the middle one, after a revert too
    assert (root / "notes/build.md").read_text() == NOTES[
        "notes/build.md"
    ] + "- fact number 3: run `make step-3`.\n"
    assert git(root, "status", "--porcelain") == ""
    # a person's edit since still needs --force; forced, the change's own text still goes cleanly
    path = root / "notes/build.md"
    path.write_text(path.read_text().replace("# Build", "# Building"))
    git(root, "commit", "-qam", "human edit")
    with pytest.raises(HippoError, match="changed since"):
        revert(root, pcs[2].proposal_id)
    revert(root, pcs[2].proposal_id, force=True)
    assert path.read_text() == NOTES["notes/build.md"].replace("# Build", "# Building")
    fsck_clean(root)


def test_unapply_takes_out_only_the_changes_own_text() -> None:
    from hippo_git.dream.revert import unapply

    assert unapply("A\nB", "A\nB\n- x\n", "A\nB\n- x\n- y\n") == "A\nB\n- y\n"
    assert unapply("A\nold\n", "A\nnew\n", "A\nnew\n- y\n") == "A\nold\n- y\n"
    assert unapply("A\n", "A\n- x\n", "A\n- x\n- x\n") is None  # twice: which one is not known
    assert unapply("A\n", "A\n- x\n", "A\n- x, edited\n") is None  # changed since
