"""The git hooks' checks: pre-commit blocks per-person files; post-merge never blocks."""

from __future__ import annotations

from pathlib import Path

from hippo_git.git.repo import discover, run_git

# Per-person paths under .hippo/ (DESIGN §1); committing one shares a private record.
PER_PERSON = ("sessions/", "reports/", "inbox/", "dream-state.json", "model-runs/")


def staged_paths(root: Path) -> list[str]:
    out = run_git(["diff", "--cached", "--name-only", "--diff-filter=ACMR", "-z"], cwd=root).stdout
    return [p for p in out.split("\0") if p]


def per_person(paths: list[str]) -> list[str]:
    return [p for p in paths if p.startswith(".hippo/") and p.removeprefix(".hippo/").startswith(PER_PERSON)]


def pre_commit(cwd: Path, argv: list[str]) -> tuple[int, str, str]:
    root = discover(cwd).workdir
    private = per_person(staged_paths(root))
    if private:
        lines = [f"hippo: {p} is a per-person file and must not be committed" for p in private]
        lines.append("hippo: unstage with: git rm --cached " + " ".join(private))
        lines.append("hippo: (to commit anyway: git commit --no-verify)")
        return 1, "", "\n".join(lines) + "\n"
    return 0, "", ""


def post_merge(cwd: Path, argv: list[str]) -> tuple[int, str, str]:
    # post-merge can never block a merge: it reports only.
    return 0, "", ""
