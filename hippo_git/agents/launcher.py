"""The `git-hippo` the agents' hooks will run: `git hippo ...` must resolve on PATH."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from hippo_git.errors import HippoError


def require_git_hippo(search_path: str | None = None) -> str:
    """The `git-hippo` that `git hippo ...` in the agents' hooks will find, or a refusal.

    The hook files are committed and shared, and Codex and Gemini trust a hook by the hash of its
    exact definition, so the command stays the portable `git hippo hook NAME` rather than this
    machine's absolute path: it has to resolve on PATH here, or every hook would fail."""
    found = shutil.which("git-hippo", path=search_path)
    if found:
        return found
    bindir = Path(sys.executable).parent
    beside = bindir / "git-hippo"
    fix = (
        f"put {bindir} on PATH (activate that virtual environment, e.g. `source {bindir}/activate`)"
        if beside.exists()
        else "install hippo_git where PATH finds it (e.g. `pipx install hippo-git`)"
    )
    raise HippoError(
        "git-hippo is not on PATH, so the agent hooks (`git hippo hook ...`) and `git hippo mcp` would fail "
        "with \"git: 'hippo' is not a git command\"; nothing was written",
        hint=f"{fix}, then run `git hippo agent install` again",
    )
