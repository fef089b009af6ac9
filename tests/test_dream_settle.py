"""`git hippo settle RUN`: stale confirmed proposals are re-proposed or discarded, each with a receipt,
and doctor's fix for a stale run is that command (not `apply`, which can only report them)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hippo_git.config import load_config
from hippo_git.dream.apply import apply_run
from hippo_git.dream.receipts import receipts_for
from hippo_git.dream.runner import InProcessModel
from hippo_git.dream.settle import settle
from hippo_git.dream.views import proposal_branch_health
from tests.conftest import git
from tests.dream_git_support import NOTES, notes_repo, prop, propose, review

CONFIRM = InProcessModel(("scripted",), lambda prompt: '{"verdict": "confirm", "reason": "still true"}')


def _stale_run(tmp_path: Path) -> tuple[Path, Any]:
    root = notes_repo(tmp_path / "repo")
    (root / ".hippo").mkdir()
    (root / ".hippo/hippo.toml").write_text('notes_dir = "notes"\ntarget_branch = "main"\n')
    git(root, "add", "-A")
    git(root, "commit", "-qm", "hippo")
    (pc,) = propose(root, "r1", [prop("notes/build.md", "- `make lint` runs ruff.")])
    review(root, [pc])
    path = root / "notes/build.md"
    path.write_text(path.read_text().replace("# Build", "# Building"))
    git(root, "commit", "-qam", "a person's edit")
    assert len(apply_run(root, load_config(root), "r1").stale) == 1
    return root, pc


def test_doctor_points_a_stale_run_at_settle_and_re_proposing_clears_it(tmp_path: Path) -> None:
    root, pc = _stale_run(tmp_path)
    cfg = load_config(root)
    (problem,) = proposal_branch_health(root, cfg)
    assert "1 confirmed proposal(s) went stale" in problem.saw and problem.fix.startswith(
        "git hippo settle r1"
    )
    result = settle(cfg, "r1", env={}, model=CONFIRM)
    (item,) = result.items
    assert item.outcome == "re-proposed" and item.verdict == "confirm" and item.applied
    assert result.new_run == "r1-settled-1"
    text = (root / "notes/build.md").read_text()
    assert text.startswith("# Building") and text.endswith("- `make lint` runs ruff.\n")
    assert git(root, "status", "--porcelain") == ""
    old = [r for r in receipts_for(root, commit=pc.commit) if r.verdict == "reject"]
    assert old and "re-proposed in run r1-settled-1" in old[0].reason and old[0].reviewer.persona == "human"
    assert proposal_branch_health(root, cfg) == []
    assert settle(cfg, "r1", env={}, model=CONFIRM).items == []  # nothing left: settling twice is a no-op


def test_discarding_leaves_the_note_and_a_receipt(tmp_path: Path, hippo: Any) -> None:
    root, pc = _stale_run(tmp_path)
    before = git(root, "rev-parse", "main")
    out = hippo(["settle", "r1", "--discard", "--json"], cwd=root)
    assert out.exit_code == 0, out.output
    (item,) = json.loads(out.stdout)["items"]
    assert item["outcome"] == "discarded" and git(root, "rev-parse", "main") == before
    assert (root / "notes/build.md").read_text() == NOTES["notes/build.md"].replace("# Build", "# Building")
    assert any("discarded" in r.reason for r in receipts_for(root, commit=pc.commit))
    assert proposal_branch_health(root, load_config(root)) == []


def test_apply_of_a_stale_run_says_how_to_settle_it(tmp_path: Path, hippo: Any) -> None:
    root, _ = _stale_run(tmp_path)
    out = hippo(["apply", "r1"], cwd=root)
    assert out.exit_code == 0 and "1 stale" in out.output and "git hippo settle r1" in out.output


def test_a_change_built_on_a_rejected_one_is_settled_and_doctor_turns_green(
    tmp_path: Path, hippo: Any
) -> None:
    """A run's later changes to a note build on its earlier ones; once a reviewer rejects an earlier
    one, the later confirmed ones can never apply as made. apply says why, doctor points at settle,
    and settle re-proposes what still fits and discards what does not, each with a receipt."""
    root = notes_repo(tmp_path / "repo")
    (root / ".hippo").mkdir()
    (root / ".hippo/hippo.toml").write_text('notes_dir = "notes"\ntarget_branch = "main"\n')
    git(root, "add", "-A")
    git(root, "commit", "-qm", "hippo")
    lint = "- `make lint` runs ruff."
    rejected, fmt, mypy = propose(
        root,
        "r1",
        [
            prop("notes/build.md", lint, turn=1),
            prop("notes/build.md", "- `make fmt` formats.", turn=2),
            prop("notes/build.md", "- `make lint` runs ruff and mypy.", op="replace", old=lint, turn=3),
        ],
    )
    review(root, [rejected, fmt, mypy], ["reject", "confirm", "confirm"])
    main = git(root, "rev-parse", "main")
    out = hippo(["apply", "r1"], cwd=root)
    assert out.exit_code == 0, out.output
    assert out.output.count(f"builds on proposal {rejected.proposal_id[:12]}, which did not land") == 1
    assert f"builds on proposal {fmt.proposal_id[:12]}" in out.output  # and so on down the chain
    assert "2 stale" in out.output and git(root, "rev-parse", "main") == main
    cfg = load_config(root)
    (problem,) = proposal_branch_health(root, cfg)
    assert "2 confirmed proposal(s) went stale" in problem.saw and "never applied" not in problem.saw
    assert problem.fix.startswith("git hippo settle r1")

    result = settle(cfg, "r1", env={}, model=CONFIRM)
    outcomes = {item.proposal: item for item in result.items}
    assert outcomes[fmt.proposal_id].outcome == "re-proposed" and outcomes[fmt.proposal_id].applied
    assert outcomes[mypy.proposal_id].outcome == "discarded"  # the text it replaced never landed
    text = (root / "notes/build.md").read_text()
    assert text.endswith("- `make fmt` formats.\n") and "make lint" not in text
    for pc in (fmt, mypy):
        assert any(
            r.verdict == "reject" and r.reviewer.persona == "human"
            for r in receipts_for(root, commit=pc.commit)
        )
    assert proposal_branch_health(root, cfg) == []


def test_a_change_built_on_one_awaiting_review_waits_and_lands_after_it(tmp_path: Path) -> None:
    """Not stale and not 'never applied': it waits for the review of the change it builds on."""
    root = notes_repo(tmp_path / "repo")
    (root / ".hippo").mkdir()
    (root / ".hippo/hippo.toml").write_text('notes_dir = "notes"\ntarget_branch = "main"\n')
    git(root, "add", "-A")
    git(root, "commit", "-qm", "hippo")
    first, second = propose(
        root,
        "r1",
        [prop("notes/build.md", "- `make lint` runs ruff."), prop("notes/build.md", "- `make fmt`.")],
    )
    review(root, [second])
    cfg = load_config(root)
    result = apply_run(root, cfg, "r1")
    (held,) = [r for r in result.refused if r.commit == second.commit]
    assert not result.stale and held.builds_on == first.proposal_id and "awaits its review" in held.reason
    (problem,) = proposal_branch_health(root, cfg)
    assert "1 proposal(s) have no receipt here" in problem.saw
    review(root, [first])
    assert len(apply_run(root, cfg, "r1").applied) == 2
    assert proposal_branch_health(root, cfg) == []
