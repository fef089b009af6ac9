import sys


def _run() -> None:
    # The git-hook shim runs `python -m hippo_git hook NAME`: answered without click (fast commits).
    if len(sys.argv) > 2 and sys.argv[1] == "hook":
        from hippo_git.cli.git_hook_entry import run_git_hook

        code = run_git_hook(sys.argv[2], sys.argv[3:])
        if code is not None:
            sys.stdout.flush()
            sys.exit(code)
    from hippo_git.cli.main import main

    main()


if __name__ == "__main__":
    _run()
