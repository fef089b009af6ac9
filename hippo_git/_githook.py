"""What the installed git-hook shims run: `python -S <package>/_githook.py NAME ARGS...`.

Every commit waits for the pre-commit check, and a third of python's own start is `site`
(site-packages, `.pth` files, an editable install's finder). The check needs only the standard
library and this package, so the shim starts python without `site` (-S) and this file puts the
folder holding the package on the path itself. Anything that needs more (another hook, the full
command as a fallback) turns `site` on first (`git_hook_entry.with_site`).
"""

import os
import sys

if __name__ == "__main__":
    # Run as a script, python put this package's own folder first on the path: its modules
    # (config, errors, git, ...) must not pass for top-level ones. The folder holding it instead.
    sys.path[0] = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    sys.argv[1:1] = ["hook"]
    from hippo_git.__main__ import main

    main()
