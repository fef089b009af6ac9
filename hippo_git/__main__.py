import sys


def main() -> None:
    """The `git-hippo` script and `python -m hippo_git`."""
    # The git-hook shim runs `python -m hippo_git hook NAME`: answered without click (fast commits).
    if len(sys.argv) > 2 and sys.argv[1] == "hook":
        from hippo_git.cli.git_hook_entry import run_git_hook

        code = run_git_hook(sys.argv[2], sys.argv[3:])
        if code is not None:
            sys.stdout.flush()
            sys.exit(code)
    # A plain `search` is answered without click either: a cold search pays for the index alone.
    if len(sys.argv) > 1 and sys.argv[1] == "search":
        from hippo_git.cli.search_fast import run_fast

        code = run_fast(sys.argv[2:])
        if code is not None:
            sys.stdout.flush()
            sys.exit(code)
    from hippo_git.cli.main import main as click_main

    click_main()


if __name__ == "__main__":
    main()
