"""Make `git hippo --help` find the man page when the install did not place it (editable installs).

git turns `git hippo --help` into `man git-hippo`, and man looks in `<dir>/../share/man` for each
`<dir>` on PATH. Installs put the page there (pyproject's data-files; setup.py makes setuptools'
editable wheel carry it too). For an install that still lacks it, the first run of any command
links the source tree's page into place beside the `git-hippo` that PATH finds. Best effort: a
read-only prefix is left alone.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

PAGE = Path("share") / "man" / "man1" / "git-hippo.1"


def source_page() -> Path:
    return Path(__file__).resolve().parent.parent.parent / "docs" / "man" / "man1" / "git-hippo.1"


def ensure_man_page(search_path: str | None = None) -> Path | None:
    """The man page man will find for `git-hippo` on PATH, linking it in when it is missing."""
    exe = shutil.which("git-hippo", path=search_path)
    if exe is None:
        return None
    target = Path(exe).parent.parent / PAGE
    source = source_page()
    if target.exists() and (target.is_symlink() or not _older(target, source)):
        return target
    if not source.is_file():
        return None
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        if target.is_symlink() or target.exists():  # a link left by a moved checkout, or a stale copy
            target.unlink()
        os.symlink(source, target)
    except OSError:
        return None
    return target


def _older(copy: Path, source: Path) -> bool:
    """An editable install copied the page at install time; the checkout's page is newer since."""
    try:
        return copy.stat().st_mtime < source.stat().st_mtime
    except OSError:
        return False
