"""`verify` binds each receipt to exactly one change (patch-id, the patch itself), accepts hippo's own
reverts, and reads receipts through a cache that follows the receipts ref."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import load_config
from hippo_git.dream.apply import apply_run
from hippo_git.dream.receipt_index import CACHE_FILE, ReceiptIndex
from hippo_git.dream.revert import revert
from hippo_git.git.objects import GitStore
from hippo_git.team.verify import verify
from hippo_git.team.verify_patch import patch_problem
from tests.conftest import git
from tests.dream_git_support import REVIEWER, THREE, notes_repo, propose, review
from tests.test_verify import propose as propose_commit
from tests.test_verify import write_receipt, ws  # noqa: F401  (the fixture)


def _reasons(root: Path, rev_range: str | None = None) -> list[str]:
    return [c.reason for c in verify(root, rev_range).checks]


def test_a_receipt_with_a_forged_patch_id_fails(ws: Path) -> None:  # noqa: F811
    sha, proposal = propose_commit(ws, receipt=False)
    blob = git(ws, "rev-parse", f"{sha}:notes/build.md")
    before = git(ws, "rev-parse", f"{sha}~1:notes/build.md")
    write_receipt(ws, sha, proposal, verdict="confirm", before=before, after=blob, patch_id="0" * 40)
    [reason] = _reasons(ws)
    assert reason.startswith("the receipt's patch-id 000000000000 is not the commit's")
    # the same receipt with the commit's own patch-id passes: only the patch-id was forged
    git(ws, "notes", "--ref=hippo/receipts", "remove", sha)
    write_receipt(ws, sha, proposal, verdict="confirm", before=before, after=blob)
    assert _reasons(ws) == ["confirmed by core/skeptic"]


@pytest.fixture
def applied(tmp_path: Path) -> tuple[Path, list[Any], str]:
    root = notes_repo(tmp_path / "repo")
    base = git(root, "rev-parse", "main")
    pcs = propose(root, "r1", THREE)
    review(root, pcs)
    apply_run(root, load_config(root), "r1")
    return root, pcs, base


def test_hippos_own_revert_verifies_and_a_plain_git_revert_does_not(
    applied: tuple[Path, list[Any], str],
) -> None:
    root, pcs, base = applied
    result = revert(root, pcs[1].proposal_id)
    checks = verify(root, f"{base}..main").checks
    assert [c.ok for c in checks] == [True] * 4, [c.reason for c in checks]
    assert checks[-1].reason.startswith(f"revert of {pcs[1].proposal_id[:12]}")
    assert checks[-1].proposal == pcs[1].proposal_id and checks[-1].sha == result.revert_commit
    # A revert someone made by hand has no revert receipt.
    git(root, "-c", "core.hooksPath=/dev/null", "revert", "--no-edit", pcs[0].commit)
    [last] = verify(root, "HEAD~1..HEAD").checks
    assert not last.ok and "without a revert receipt" in last.reason


def test_a_rebased_revert_is_found_through_the_reverted_commit(applied: tuple[Path, list[Any], str]) -> None:
    root, pcs, _ = applied
    result = revert(root, pcs[1].proposal_id)
    git(root, "checkout", "-q", "-b", "side", f"{result.revert_commit}~1")
    (root / "other.txt").write_text("o\n")
    git(root, "add", "other.txt")
    git(root, "commit", "-q", "-m", "other work")
    git(root, "-c", "core.hooksPath=/dev/null", "cherry-pick", result.revert_commit)
    [check] = verify(root, "HEAD~1..HEAD").checks
    assert check.ok, check.reason


def test_patch_problem_reads_the_hunks() -> None:
    before = "# Build\n\nRun make.\n"
    after = "# Build\n\nRun make -j4.\nTest with make test.\n"
    diff = (
        "diff --git a/notes/build.md b/notes/build.md\n"
        "index 1111111..2222222 100644\n--- a/notes/build.md\n+++ b/notes/build.md\n"
        "@@ -1,3 +1,4 @@\n # Build\n \n-Run make.\n+Run make -j4.\n+Test with make test.\n"
    )
    assert patch_problem(diff, "notes/build.md", before, after) is None
    assert patch_problem(diff, "notes/other.md", before, after) == (
        "its patch changes notes/build.md, not the receipt's notes/other.md"
    )
    assert patch_problem(diff, "notes/build.md", "# Build\n\nRun cmake.\n", after) == (
        "its hunks do not fit the note the receipt names as before"
    )
    assert patch_problem(diff, "notes/build.md", before, after + "more\n") == (
        "its hunks do not give the note the receipt names as after"
    )
    no_newline = diff.replace(
        "+Test with make test.\n", "+Test with make test.\n\\ No newline at end of file\n"
    )
    assert patch_problem(no_newline, "notes/build.md", before, after.rstrip("\n")) is None
    added = (
        "diff --git a/notes/new.md b/notes/new.md\nnew file mode 100644\nindex 0000000..3333333\n"
        "--- /dev/null\n+++ b/notes/new.md\n@@ -0,0 +1,2 @@\n+# New\n+A fact.\n"
    )
    assert patch_problem(added, "notes/new.md", "", "# New\nA fact.\n") is None
    # a line separator inside a line is not a line break for git
    odd = diff.replace(" # Build\n", " # Build\u2028and test\n")
    assert (
        patch_problem(
            odd,
            "notes/build.md",
            before.replace("# Build", "# Build\u2028and test"),
            after.replace("# Build", "# Build\u2028and test"),
        )
        is None
    )


def test_the_receipts_cache_follows_the_ref_and_survives_damage(tmp_path: Path) -> None:
    root = notes_repo(tmp_path / "repo")
    pcs = propose(root, "r1", THREE)
    store = GitStore(root)
    assert ReceiptIndex(store).for_proposal(pcs[0].proposal_id) == []
    review(root, pcs[:1])
    index = ReceiptIndex(store)
    assert [e.receipt.commit for e in index.for_proposal(pcs[0].proposal_id)] == [pcs[0].commit]
    review(root, pcs[1:])  # the ref moved: only the new notes are read
    index.refresh()
    assert {e.on for e in index.for_commit(pcs[2].commit)} == {pcs[2].commit}
    assert index.matching(pcs[1].proposal_id[:9]) == [(pcs[1].proposal_id, pcs[1].commit)]
    # A note removed from the ref leaves the cache too.
    git(root, "notes", "--ref=hippo/receipts", "remove", pcs[2].commit)
    index.refresh()
    assert index.for_commit(pcs[2].commit) == []
    index.close()
    cache = root / ".git" / CACHE_FILE
    cache.write_bytes(b"not a database" * 100)
    for extra in (".git/hippo/team-cache.sqlite-wal", ".git/hippo/team-cache.sqlite-shm"):
        (root / extra).unlink(missing_ok=True)
    again = ReceiptIndex(GitStore(root))
    assert len(again.rows([pc.proposal_id for pc in pcs])) == 2
    # Lines that are not receipts are not in the cache.
    git(root, "notes", "--ref=hippo/receipts", "append", "-m", json.dumps({"kind": "x"}), pcs[0].commit)
    again.refresh()
    assert [e.receipt.reviewer for e in again.for_commit(pcs[0].commit)] == [REVIEWER]


def test_verify_of_an_unrebased_range_reads_only_its_own_notes(ws: Path) -> None:  # noqa: F811
    propose_commit(ws)
    propose_commit(ws, "notes/new.md", "# New\n")
    assert verify(ws).ok
    # the receipts on the commits settled it: no cache of all receipts was built or read
    assert not (ws / ".git" / CACHE_FILE).exists()
