"""The git hooks' way in: `python -m hippo_git hook pre-commit` (the installed shim) runs here
without loading click or the command group, since every commit waits for it.

Same behaviour as `git hippo hook NAME` (`hook_cmds.hook_cmd`): no-op inside hippo's own model
runs, the check's output as is, a `HippoError` as `error:`/`hint:` lines and its exit code. An
unexpected error falls back to the full command, which logs it (the checks only read).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable

# Git hooks: name → "module:function"; function(cwd: str, argv: list[str]) -> (exit, stdout, stderr).
# The working directory is a string: `pathlib` is one import the pre-commit path does without.
GIT_HOOKS: dict[str, str] = {
    "pre-commit": "hippo_git.team.githooks:pre_commit",
    "post-merge": "hippo_git.team.githooks:post_merge",
}


# Hooks whose check needs nothing beyond the standard library: they run without `site` (-S).
WITHOUT_SITE = frozenset({"pre-commit"})


def with_site() -> None:
    """Turn on what python's `site` does at start (site-packages, `.pth` files) when the shim
    started python without it (`hippo_git/_githook.py`): the full command needs click."""
    if sys.flags.no_site and "site" not in sys.modules:
        import site

        site.main()


def run_git_hook(name: str, argv: list[str]) -> int | None:
    """The exit status of git hook `name`, or None when the full command must handle the call."""
    from hippo_git.errors import HippoError

    if name not in GIT_HOOKS:
        return None
    if os.environ.get("HIPPO_INTERNAL"):
        return 0
    if name not in WITHOUT_SITE:
        with_site()
    cwd = os.getcwd()
    if name == "pre-commit":
        from hippo_git.git import early

        early.start(cwd, early.STAGED)  # git lists what is staged while the check is imported
    module, _, attr = GIT_HOOKS[name].partition(":")
    try:
        # (`__import__`, not importlib.import_module: `importlib` loads `warnings` on every commit)
        fn: Callable[[str, list[str]], tuple[int, str, str]] = getattr(
            __import__(module, fromlist=[attr]), attr
        )
        code, out, err = fn(cwd, argv)
    except HippoError as exc:
        sys.stderr.write(exc.for_person())
        return exc.exit_code
    except Exception:  # noqa: BLE001 - the full command reports and logs it
        return None
    for stream, text in ((sys.stdout, out), (sys.stderr, err)):
        if text:
            stream.write(text if text.endswith("\n") else text + "\n")
    return code
