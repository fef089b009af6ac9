"""`packs add`, `update`, `remove` and the installed packs' origins.

A pack is untrusted input until reviewed: it is read, checked (layout, then `load_pack` on a
scratch copy) and reviewed by hippo's own pack reviewer before anything is written. A confirmed
pack lands in `.hippo/packs/NAME/` with `origin.json` (source, ref, commit, content hash and the
review receipt) as one commit on the current branch, for the person to push. A rejection writes
nothing. Updates apply only where the local copy is still exactly what was reviewed.
"""

from __future__ import annotations

import json
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from pydantic import BaseModel, ConfigDict, ValidationError

from hippo_git.config import Config
from hippo_git.dream.pack_files import (
    ORIGIN,
    PackLayoutError,
    changed_paths,
    content_hash,
    diff,
    read_folder,
    write_folder,
)
from hippo_git.dream.pack_review import PackReceipt, review_pack
from hippo_git.dream.pack_source import Fetched, fetch
from hippo_git.dream.packs import list_packs, load_pack, shipped_root, workspace_root
from hippo_git.dream.runner import Model
from hippo_git.errors import HippoError, UsageError
from hippo_git.git.identity import now_iso
from hippo_git.git.objects import GitStore
from hippo_git.git.repo import discover
from hippo_git.git.tree_commit import commit_files, tracked_paths

ORIGIN_VERSION = 1


class Origin(BaseModel):
    """`.hippo/packs/NAME/origin.json`: where an installed pack came from and the review it passed."""

    model_config = ConfigDict(extra="ignore")

    version: int = ORIGIN_VERSION
    name: str
    source: str
    ref: str | None = None
    subdir: str = ""
    commit: str | None = None
    registry: str | None = None
    content_sha256: str
    installed: str
    receipt: PackReceipt


class PackRejected(HippoError):
    """The review did not confirm the pack; nothing was written."""


@dataclass
class PackChange:
    """What `packs add`/`update`/`remove` did to one pack, with its review receipt and diff."""

    name: str
    status: str  # "added" | "updated" | "up-to-date" | "local-edits" | "rejected" | "removed"
    commit: str | None = None
    reason: str = ""
    diff: str = ""
    receipt: PackReceipt | None = None
    paths: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, object]:
        return {
            "name": self.name,
            "status": self.status,
            "commit": self.commit,
            "reason": self.reason,
            "diff": self.diff,
            "paths": self.paths,
            "receipt": self.receipt.model_dump(mode="json") if self.receipt else None,
        }


def read_origin(folder: Path) -> Origin | None:
    path = folder / ORIGIN
    try:
        return Origin.model_validate_json(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return None
    except (OSError, UnicodeDecodeError, ValidationError) as exc:
        raise HippoError(f"{path}: not a readable origin record: {str(exc).splitlines()[0]}") from None


def _branch(cfg: Config) -> str:
    info = discover(cfg.root)
    if info.branch is None or info.unborn:
        raise HippoError(
            "packs are added by a commit on the current branch, and HEAD is detached or has no commits",
            hint="check out a branch with at least one commit, then retry",
        )
    return info.branch


def _check_loads(fetched: Fetched) -> None:
    """The pack must load as hippo reads packs (schema, files it names) before any model reads it."""
    with tempfile.TemporaryDirectory(prefix="hippo-pack-check-") as tmp:
        folder = Path(tmp) / fetched.name
        write_folder(folder, fetched.files)
        load_pack(folder, "workspace")


def _commit(cfg: Config, name: str, files: dict[str, bytes | None], message: str, retry: str) -> str:
    store = GitStore(cfg.root)
    prefix = f".hippo/packs/{name}/"
    return commit_files(store, _branch(cfg), {prefix + k: v for k, v in files.items()}, message, retry=retry)


def _origin_bytes(fetched: Fetched, receipt: PackReceipt, registry: str | None) -> bytes:
    origin = Origin(
        name=fetched.name,
        source=fetched.source,
        ref=fetched.ref,
        subdir=fetched.subdir,
        commit=fetched.commit,
        registry=registry,
        content_sha256=content_hash(fetched.files),
        installed=now_iso(),
        receipt=receipt,
    )
    return (json.dumps(origin.model_dump(mode="json"), indent=2, sort_keys=True) + "\n").encode("utf-8")


def _message(verb: str, fetched: Fetched, receipt: PackReceipt) -> str:
    where = fetched.source + (f"@{fetched.commit[:12]}" if fetched.commit else "")
    return (
        f"hippo: {verb} pack {fetched.name}\n\nSource: {where}{' (' + fetched.subdir + ')' if fetched.subdir else ''}\n"
        f"Content: sha256 {receipt.content_sha256}\n"
        f"Review: {receipt.verdict} by {receipt.reviewer.persona} ({' '.join(receipt.reviewer.argv)})\n"
        f"Reason: {receipt.reason}\n"
    )


def add_pack(cfg: Config, fetched: Fetched, model: Model, *, registry: str | None = None) -> PackChange:
    """Review `fetched` and, when confirmed, commit it into `.hippo/packs/NAME/`."""
    dest = workspace_root(cfg.hippo_dir) / fetched.name
    if dest.exists():
        raise UsageError(
            f"a pack named {fetched.name!r} is already in {dest}",
            hint=f"`git hippo packs update {fetched.name}` takes upstream changes; "
            f"`git hippo packs remove {fetched.name}` first to replace it",
        )
    _branch(cfg)
    _check_loads(fetched)
    receipt = review_pack(fetched.name, fetched.files, model)
    if receipt.verdict != "confirm":
        raise PackRejected(
            f"pack {fetched.name!r} was not added: the review rejected it: {receipt.reason}",
            hint="nothing was written; read the pack's files before trusting it",
        )
    files: dict[str, bytes | None] = dict(fetched.files)
    files[ORIGIN] = _origin_bytes(fetched, receipt, registry)
    commit = _commit(
        cfg, fetched.name, files, _message("add", fetched, receipt), f"git hippo packs add {fetched.source}"
    )
    return PackChange(
        fetched.name, "added", commit, receipt.reason, receipt=receipt, paths=sorted(fetched.files)
    )


def installed(cfg: Config, name: str) -> tuple[Path, Origin]:
    folder = workspace_root(cfg.hippo_dir) / name
    if not (folder / "pack.toml").is_file():
        raise UsageError(
            f"no pack named {name!r} in {workspace_root(cfg.hippo_dir)}", hint="see `git hippo packs list`"
        )
    origin = read_origin(folder)
    if origin is None:
        raise HippoError(
            f"{folder} has no {ORIGIN}: it was not added with `git hippo packs add`, so its source is unknown",
            hint="update it by hand, or remove it and add it from its source",
        )
    return folder, origin


def update_pack(cfg: Config, name: str, model: Model) -> PackChange:
    """Take upstream's change to one pack: only after a new review, and only over an unchanged copy."""
    folder, origin = installed(cfg, name)
    local = read_folder(folder)
    upstream = fetch(origin.source, origin.ref, origin.subdir)
    if content_hash(local) != origin.content_sha256:
        return PackChange(
            name,
            "local-edits",
            reason=f"{len(changed_paths(local, upstream.files))} file(s) differ; the local copy was edited "
            "since it was reviewed, so nothing was updated",
            diff=diff(local, upstream.files, "local", "upstream"),
        )
    if content_hash(upstream.files) == origin.content_sha256:
        return PackChange(
            name, "up-to-date", reason=f"upstream is what was reviewed ({origin.content_sha256[:12]})"
        )
    if upstream.name != name:
        raise PackLayoutError(f"upstream renamed the pack {name!r} to {upstream.name!r}; nothing was updated")
    change = diff(local, upstream.files, "installed", "upstream")
    _check_loads(upstream)
    receipt = review_pack(name, upstream.files, model)
    if receipt.verdict != "confirm":
        return PackChange(name, "rejected", reason=receipt.reason, diff=change, receipt=receipt)
    files: dict[str, bytes | None] = {p: None for p in local if p not in upstream.files}
    files.update(upstream.files)
    files[ORIGIN] = _origin_bytes(upstream, receipt, origin.registry)
    commit = _commit(
        cfg, name, files, _message("update", upstream, receipt), f"git hippo packs update {name}"
    )
    return PackChange(
        name, "updated", commit, receipt.reason, change, receipt, changed_paths(local, upstream.files)
    )


def update_all(cfg: Config, model: Model) -> list[PackChange]:
    root = workspace_root(cfg.hippo_dir)
    names = sorted(c.name for c in root.iterdir() if (c / ORIGIN).is_file()) if root.is_dir() else []
    return [update_pack(cfg, n, model) for n in names]


def remove_pack(cfg: Config, name: str) -> PackChange:
    folder = workspace_root(cfg.hippo_dir) / name
    prefix = f".hippo/packs/{name}/"
    paths = tracked_paths(cfg.root, prefix)
    if not paths:
        where = "is not committed; delete the folder yourself" if folder.exists() else "is not installed"
        raise UsageError(f"pack {name!r} {where}", hint="see `git hippo packs list`")
    store = GitStore(cfg.root)
    commit = commit_files(
        store,
        _branch(cfg),
        dict.fromkeys(paths),
        f"hippo: remove pack {name}\n",
        retry=f"git hippo packs remove {name}",
    )
    return PackChange(name, "removed", commit, paths=[p.removeprefix(prefix) for p in paths])


def list_installed(cfg: Config) -> list[dict[str, object]]:
    """`list_packs`, with each workspace pack's source, ref, verdict and whether it was edited locally."""
    rows = list_packs(cfg.hippo_dir)
    for row in rows:
        if row["source"] != "workspace":
            continue
        folder = Path(str(row["path"]))
        try:
            origin = read_origin(folder)
        except HippoError as exc:
            row["origin_error"] = exc.message
            continue
        if origin is None:
            row.update(origin=None, verdict="unreviewed", local_changes=None)
            continue
        try:
            edited = content_hash(read_folder(folder)) != origin.content_sha256
        except HippoError:
            edited = True
        row.update(
            origin=origin.source,
            ref=origin.ref,
            commit=origin.commit,
            verdict=origin.receipt.verdict,
            reviewer=origin.receipt.reviewer.persona,
            local_changes=edited,
        )
    return rows


def registry_location(cfg: Config) -> str:
    """The configured registry; a relative path in hippo.toml is relative to the repository."""
    value = cfg.packs_registry
    if not value:
        raise UsageError(
            "no pack registry is configured and hippo_git ships no pack of that name",
            hint="give a folder or git URL, or set packs.registry in .hippo/hippo.toml",
        )
    candidate = cfg.root / value
    return str(candidate) if not Path(value).is_absolute() and candidate.exists() else value


def add(
    cfg: Config, source: str, *, ref: str | None = None, subdir: str = "", model: Model | None = None
) -> PackChange:
    """`packs add SOURCE`: a folder, a git URL (at `ref`), or a name looked up in the registry."""
    from hippo_git.dream.pack_review import model_for
    from hippo_git.dream.pack_source import SHIPPED, looks_like_name
    from hippo_git.dream.registry import resolve

    reviewer = model or model_for(cfg)
    if looks_like_name(source) and ref is None and not subdir:
        if not cfg.packs_registry and (shipped_root() / source / "pack.toml").is_file():
            return add_pack(cfg, fetch(SHIPPED + source), reviewer)
        location = registry_location(cfg)
        fetched, _ = resolve(location, source)
        return add_pack(cfg, fetched, reviewer, registry=location)
    return add_pack(cfg, fetch(source, ref, subdir), reviewer)
