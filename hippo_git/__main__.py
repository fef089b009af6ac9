"""`python -m hippo_git` and the `git-hippo` command: what runs on every commit and every agent
session is answered before click and the command group are even imported."""

import sys


def main() -> None:
    from hippo_git.cli.deferred import defer

    defer()
    try:
        code = _fast(sys.argv[1:])
    except KeyboardInterrupt:  # as the full command says it: a person stopped it, not a failure
        sys.stderr.write("interrupted\n")
        sys.exit(130)
    if code is not None:
        sys.stdout.flush()
        sys.exit(code)
    from hippo_git.cli.main import main as full_main

    full_main()


def _fast(args: list[str]) -> int | None:
    """The exit status when answered here, without click; None for the full command."""
    code: int | None = None
    # The git-hook shims run `hook NAME` (through `_githook.py`, without `site`).
    if len(args) > 1 and args[0] == "hook":
        from hippo_git.cli.git_hook_entry import GIT_HOOKS, run_git_hook, with_site

        if args[1] in GIT_HOOKS:
            code = run_git_hook(args[1], args[2:])
        else:
            with_site()
            from hippo_git.cli.fast_entry import run_agent_hook

            code = run_agent_hook(args[1])
        if code is None:
            with_site()  # the full command runs on click, from site-packages
    elif args[:1] == ["context"]:
        from hippo_git.cli.fast_entry import run_context

        code = run_context(args[1:])
    elif args in (["--version"], ["-V"]):
        # What click's version option prints; the man page is linked as for any other command.
        from hippo_git import __version__
        from hippo_git.cli.manpage import ensure_man_page

        ensure_man_page()
        sys.stdout.write(f"git hippo {__version__}\n")
        code = 0
    elif args[:1] == ["search"]:
        # A cold search pays for the index alone, not for click and the command group.
        from hippo_git.cli.search_fast import run_fast

        code = run_fast(args[1:])
    elif args[:1] == ["recall"]:
        # An agent recalls at every prompt: the same, for its plain forms.
        from hippo_git.cli.recall_fast import run_fast as run_recall

        code = run_recall(args[1:])
    return code


if __name__ == "__main__":
    main()
