"""What the CI workflow installs: the hippo_git this machine runs, as a requirement CI can resolve.

Until hippo-git is released on the package index, `hippo-git==<version>` resolves nowhere, so the
requirement comes from how this copy was installed (PEP 610's `direct_url.json`): the exact commit
of a git checkout or VCS install, a wheel inside the repository, or a URL; `--install SPEC` and
`ci.install` in `.hippo/hippo.toml` override it. What cannot resolve in CI is refused with a hint.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from hippo_git import __version__
from hippo_git.errors import HippoError
from hippo_git.git.checkout import checkout_origin

DIST = "hippo-git"
HOW_TO_CHANGE = "To change it: git hippo config set ci.install SPEC, then git hippo ci install github"


@dataclass(frozen=True)
class InstallSource:
    """The pip requirement the CI workflow installs hippo_git from, and where it came from."""

    spec: str  # the pip requirement
    why: str  # where it came from, for the workflow's comment


def running_direct_url() -> dict[str, Any] | None:
    """PEP 610 data of the hippo-git that is running; None when it came from a package index.

    Several copies' metadata can be visible (a source tree's egg-info beside an editable install):
    the one that describes this very package folder counts. Running from a source tree that was never
    installed reads as that folder."""
    here = Path(__file__).resolve().parent.parent.parent
    for dist in metadata.distributions(name=DIST):
        beside = Path(str(dist.locate_file(""))).resolve() == here
        text = dist.read_text("direct_url.json")
        if text:
            data: dict[str, Any] = json.loads(text)
            url = urlparse(str(data.get("url", "")))
            if beside or ("dir_info" in data and url.scheme == "file" and Path(unquote(url.path)) == here):
                return data
        elif beside and dist.read_text("INSTALLER"):
            return None
    return {"url": here.as_uri(), "dir_info": {}}


def _vcs_url(url: str) -> str | None:
    """A git remote URL as pip's `git+` URL; None for a local path CI cannot reach."""
    if re.match(r"^(https?|ssh|git)://", url):
        return "git+" + url
    scp = re.match(r"^([\w.-]+@)?([\w.-]+):(?!//)(.+)$", url)
    if scp and not url.startswith("/"):
        return f"git+ssh://{scp.group(1) or ''}{scp.group(2)}/{scp.group(3)}"
    return None


def _from_checkout(folder: Path) -> InstallSource:
    origin = checkout_origin(folder)
    hint = "pass --install SPEC (e.g. a wheel committed to this repository), or set ci.install"
    if origin is None:
        raise HippoError(f"hippo_git runs from {folder}, a folder CI cannot install from", hint=hint)
    vcs = _vcs_url(origin.url) if origin.url else None
    if vcs is None:
        where = f"remote {origin.remote!r} is {origin.url}" if origin.remote else "it has no remote"
        raise HippoError(
            f"hippo_git runs from the checkout {folder}, but {where}: CI cannot fetch it", hint=hint
        )
    if not origin.published:
        raise HippoError(
            f"commit {origin.commit[:12]} of {folder} is on no remote branch, so CI cannot fetch it",
            hint=f"push it (git -C {folder} push), or pass --install SPEC",
        )
    note = " (the checkout has uncommitted changes CI will not have)" if origin.dirty else ""
    return InstallSource(f"{DIST} @ {vcs}@{origin.commit}", f"the git checkout this was written from{note}")


def source_from_direct_url(direct: dict[str, Any] | None, repo_root: Path) -> InstallSource:
    if direct is None:
        return InstallSource(f"{DIST}=={__version__}", "the package index, as installed here")
    url = str(direct.get("url", ""))
    if "vcs_info" in direct:
        info = direct["vcs_info"]
        sub = f"#subdirectory={direct['subdirectory']}" if direct.get("subdirectory") else ""
        return InstallSource(
            f"{DIST} @ {info.get('vcs', 'git')}+{url}@{info.get('commit_id', '')}{sub}",
            "the VCS install this was written from, at its exact commit",
        )
    parsed = urlparse(url)
    if parsed.scheme != "file":
        return InstallSource(f"{DIST} @ {url}", "the archive this was installed from")
    local = Path(unquote(parsed.path))
    if "archive_info" in direct:
        try:
            relative = local.resolve().relative_to(repo_root.resolve())
        except ValueError:
            raise HippoError(
                f"hippo_git was installed from {local}, a file outside this repository that CI cannot reach",
                hint="commit the wheel into the repository and pass --install ./path/to.whl, "
                "or pass --install SPEC",
            ) from None
        return InstallSource("./" + relative.as_posix(), "the wheel in this repository it was installed from")
    return _from_checkout(local)


def resolve_install(explicit: str | None, configured: str, repo_root: Path) -> InstallSource:
    if explicit:
        return InstallSource(explicit, "--install")
    if configured:
        return InstallSource(configured, "ci.install in .hippo/hippo.toml")
    return source_from_direct_url(running_direct_url(), repo_root)
