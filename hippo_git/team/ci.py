"""`git hippo ci install github`: the pull-request check for dream changes in the team's repo."""

from __future__ import annotations

import shlex
from dataclasses import dataclass
from pathlib import Path

from hippo_git import __version__
from hippo_git.config import load_config
from hippo_git.errors import HippoError
from hippo_git.files import write_text_atomic
from hippo_git.git.repo import discover
from hippo_git.team.ci_source import HOW_TO_CHANGE, InstallSource, resolve_install

WORKFLOW_PATH = Path(".github/workflows/hippo-review.yml")

WORKFLOW = """\
# Written by `git hippo ci install github` (hippo_git {version}).
# Checks pull requests from hippo/proposals/* branches: every commit must be a dream change
# with a confirming review receipt whose before/after blobs match (`git hippo verify`).
name: hippo review

on:
  pull_request:
    branches: [{target}]

permissions:
  contents: read
  pull-requests: write

jobs:
  verify:
    if: startsWith(github.head_ref, 'hippo/proposals/')
    runs-on: ubuntu-latest
    steps:
      - name: Check out the pull request with history
        uses: actions/checkout@v4
        with:
          ref: ${{{{ github.event.pull_request.head.sha }}}}
          fetch-depth: 0
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      # Installs {install_why}.
      # {how}
      - name: Install hippo_git
        run: python -m pip install {install}
      - name: Fetch the review receipts
        run: git fetch --no-tags origin "+refs/notes/hippo/receipts:refs/notes/hippo/receipts"
      - name: Verify every dream change
        id: verify
        run: |
          set +e
          git hippo verify "origin/${{{{ github.base_ref }}}}..HEAD" --format github > hippo-verify.md
          echo "status=$?" >> "$GITHUB_OUTPUT"
          cat hippo-verify.md >> "$GITHUB_STEP_SUMMARY"
      - name: Post the summary on the pull request
        if: always()
        env:
          GH_TOKEN: ${{{{ github.token }}}}
        run: gh pr comment "${{{{ github.event.pull_request.number }}}}" --body-file hippo-verify.md
      - name: Fail when any change did not verify
        if: steps.verify.outputs.status != '0'
        run: exit 1

  # Recall quality on the team's cases (notes only: CI has no transcripts), when the repository has them.
  eval:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - name: Set up Python
        uses: actions/setup-python@v5
        with:
          python-version: "3.12"
      - name: Install hippo_git
        if: hashFiles('.hippo/eval.json', '.hippo/eval.toml') != ''
        run: python -m pip install {install}
      - name: Recall on .hippo/eval cases (git hippo eval)
        if: hashFiles('.hippo/eval.json', '.hippo/eval.toml') != ''
        run: git hippo eval --min-recall {min_recall} >> "$GITHUB_STEP_SUMMARY"
"""
EVAL_MIN_RECALL = 0.8


# What the project's own example (.github/examples/hippo-review.yml) shows.
EXAMPLE_SOURCE = InstallSource(
    "hippo-git @ git+https://github.com/OWNER/hippo_git@COMMIT", "the git checkout this was written from"
)


@dataclass(frozen=True)
class CiInstall:
    """What `ci install` did to the workflow file."""

    path: Path
    action: str  # created | updated | unchanged


def workflow_text(target: str, source: InstallSource) -> str:
    return WORKFLOW.format(
        version=__version__,
        target=target,
        install=shlex.quote(source.spec),
        install_why=source.why,
        how=HOW_TO_CHANGE,
        min_recall=EVAL_MIN_RECALL,
    )


def install_github(start: Path, *, install: str | None = None, force: bool = False) -> CiInstall:
    root = discover(start).workdir
    cfg = load_config(root)
    text = workflow_text(cfg.target_branch, resolve_install(install, cfg.ci_install, root))
    path = root / WORKFLOW_PATH
    if path.exists():
        old = path.read_text(encoding="utf-8")
        if old == text:
            return CiInstall(path, "unchanged")
        if not old.startswith("# Written by `git hippo ci install github`") and not force:
            raise HippoError(
                f"{path} exists and was not written by hippo", hint="move it away, or pass --force"
            )
    action = "updated" if path.exists() else "created"
    write_text_atomic(path, text)
    return CiInstall(path, action)
