import sys


def _run() -> None:
    # The git-hook shims run `hook NAME` (through `_githook.py`, without `site`): answered without
    # click (fast commits).
    if len(sys.argv) > 2 and sys.argv[1] == "hook":
        from hippo_git.cli.git_hook_entry import run_git_hook, with_site

        code = run_git_hook(sys.argv[2], sys.argv[3:])
        if code is not None:
            sys.stdout.flush()
            sys.exit(code)
        with_site()  # the full command runs on click, from site-packages
    from hippo_git.cli.main import main

    main()


if __name__ == "__main__":
    _run()
