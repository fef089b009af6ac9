"""Snapshots of a small run as people see it: `git log` of the proposals branch and the target with
`--notes=hippo/receipts` (pinned identity and clock from conftest, so every id is stable).

A change in these texts is a change of the commit/receipt contract (DESIGN §1: version it)."""

from __future__ import annotations

from pathlib import Path

from hippo_git.config import load_config
from hippo_git.dream.apply import apply_run
from tests.conftest import git
from tests.dream_git_support import NOTES, THREE, notes_repo, propose, review

FORMAT = "--format=%h %s%n%(trailers:key=Hippo-Proposal,key=Hippo-Run,key=Hippo-Replayed-From,valueonly,separator=%x20)%n%N"

PROPOSALS_BRANCH = """\
df1e358 hippo: replace notes/build.md (core/facts)
c9024a872060b1fb2a48f07e0b2a82ada288e07dad47d0bacc8432d359d7941c r1
{"after":"6636b2134537da215f02acd414d9fe29f38c917c","before":"54c2b5dad15fa590d67078fbdf8ea9dc84aacad1","commit":"df1e358751f568fec3adba4a94d8d8a3440c25ad","kind":"review","patch_id":"57382ad5fb209eaacf68ff36550c44b28eb2661c","path":"notes/build.md","proposal":"c9024a872060b1fb2a48f07e0b2a82ada288e07dad47d0bacc8432d359d7941c","reason":"confirmed by script","reviewer":{"argv":["scripted-model"],"heuristic":false,"persona":"core/skeptic","persona_sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"run":"r1","time":"2026-01-02T03:04:05Z","verdict":"confirm","version":1}

ae9d4fd hippo: append notes/deploy.md (core/facts)
138e9b5c8eb6d1ea49dd4f4af12de11300f583560ab67cb61f86500f594b32c7 r1
{"after":"6efdab24b1385455b8c526a8a2b3eee2116d9163","before":"b222e6914bdaa4f02c583c8e8ec6e58c5b071a20","commit":"ae9d4fda8cd8fd3a0387a9f3a414316c3c4fe23e","kind":"review","patch_id":"0eabd6257848910d5a6218a672f9126dbfb07c00","path":"notes/deploy.md","proposal":"138e9b5c8eb6d1ea49dd4f4af12de11300f583560ab67cb61f86500f594b32c7","reason":"rejected by script","reviewer":{"argv":["scripted-model"],"heuristic":false,"persona":"core/skeptic","persona_sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"run":"r1","time":"2026-01-02T03:04:05Z","verdict":"reject","version":1}

5fb53e0 hippo: append notes/build.md (core/facts)
3d6649e5fc326df992c397c91d8f4ce9fb66800392cf4af15c03cf408a5bbee5 r1
{"after":"54c2b5dad15fa590d67078fbdf8ea9dc84aacad1","before":"48247b05ab388923b27519d80440fcf07274c9c1","commit":"5fb53e054d0ca7ba5be45398267eb4729e2ecbce","kind":"review","patch_id":"6a51e2846ca5d58d6a1cc4baf13e404805852461","path":"notes/build.md","proposal":"3d6649e5fc326df992c397c91d8f4ce9fb66800392cf4af15c03cf408a5bbee5","reason":"confirmed by script","reviewer":{"argv":["scripted-model"],"heuristic":false,"persona":"core/skeptic","persona_sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"run":"r1","time":"2026-01-02T03:04:05Z","verdict":"confirm","version":1}

2c5930f initial
"""

TARGET = """\
e718263 hippo: replace notes/build.md (core/facts)
c9024a872060b1fb2a48f07e0b2a82ada288e07dad47d0bacc8432d359d7941c r1 df1e358751f568fec3adba4a94d8d8a3440c25ad
{"after":"6636b2134537da215f02acd414d9fe29f38c917c","before":"54c2b5dad15fa590d67078fbdf8ea9dc84aacad1","commit":"e7182630c538bc4f4cc4f7ba74054acd94497256","kind":"review","patch_id":"57382ad5fb209eaacf68ff36550c44b28eb2661c","path":"notes/build.md","proposal":"c9024a872060b1fb2a48f07e0b2a82ada288e07dad47d0bacc8432d359d7941c","reason":"replayed from df1e358751f568fec3adba4a94d8d8a3440c25ad","reviewer":{"argv":["scripted-model"],"heuristic":false,"persona":"core/skeptic","persona_sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"run":"r1","time":"2026-01-02T03:04:05Z","verdict":"confirm","version":1}

5fb53e0 hippo: append notes/build.md (core/facts)
3d6649e5fc326df992c397c91d8f4ce9fb66800392cf4af15c03cf408a5bbee5 r1
{"after":"54c2b5dad15fa590d67078fbdf8ea9dc84aacad1","before":"48247b05ab388923b27519d80440fcf07274c9c1","commit":"5fb53e054d0ca7ba5be45398267eb4729e2ecbce","kind":"review","patch_id":"6a51e2846ca5d58d6a1cc4baf13e404805852461","path":"notes/build.md","proposal":"3d6649e5fc326df992c397c91d8f4ce9fb66800392cf4af15c03cf408a5bbee5","reason":"confirmed by script","reviewer":{"argv":["scripted-model"],"heuristic":false,"persona":"core/skeptic","persona_sha256":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"run":"r1","time":"2026-01-02T03:04:05Z","verdict":"confirm","version":1}

2c5930f initial
"""


def test_snapshot_of_a_run_with_a_rejection_and_a_replay(tmp_path: Path) -> None:
    root = notes_repo(tmp_path / "repo")
    pcs = propose(root, "r1", THREE)
    review(root, pcs, ["confirm", "reject", "confirm"])
    apply_run(root, load_config(root), "r1")
    assert git(root, "log", FORMAT, "--notes=hippo/receipts", "hippo/proposals/r1") + "\n" == PROPOSALS_BRANCH
    assert git(root, "log", FORMAT, "--notes=hippo/receipts", "main") + "\n" == TARGET
    assert (root / "notes/build.md").read_text() == (
        "# Build\n\nRun `make -j4` to build.\nTests run with `make test`.\n- `make lint` runs ruff.\n"
    )
    assert (root / "notes/deploy.md").read_text() == NOTES["notes/deploy.md"]
