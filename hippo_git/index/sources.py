"""Finding transcript sources and telling, without reading them, whether they changed.

A source is what an adapter's `discover` yields: a file, a database, or (OpenCode's legacy
`storage/`) a folder. Its signature is (size, mtime): a folder sums its files, and a SQLite
database counts its `-wal` too, since a live database changes there first. Nothing under
`$HIPPO_HOME/model-runs/` is ever a source (invariant 4).
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from hippo_git.config import Config
from hippo_git.transcripts.model import Adapter
from hippo_git.transcripts.registry import get_adapter, harness_names
from hippo_git.transcripts.regular import is_regular_or_dir


@dataclass(frozen=True)
class Source:
    """A transcript file or folder found for a harness, with the size and mtime that tell if it changed."""

    harness: str
    adapter: Adapter
    path: str  # absolute
    size: int
    mtime_ns: int
    is_dir: bool


@dataclass(frozen=True)
class FailedSource:
    """A transcript source that could not be read, and why."""

    path: str
    reason: str


def discover_sources(
    cfg: Config, root: Path | None, harness: str | None, failed: list[FailedSource]
) -> Iterator[Source]:
    """Every source of the selected harnesses (all configured ones by default), once each.

    `root` replaces the configured places; a file named there that the adapter would not list
    (an unusual name) is taken as a source anyway: the person said what it is.
    """
    guard = _Guard(cfg)
    seen: set[str] = set()
    harnesses = [harness] if harness else [h for h in harness_names() if cfg.transcript_roots.get(h)]
    for name in harnesses:
        places = [root] if root is not None else [Path(p) for p in cfg.transcript_roots.get(name, ())]
        places = [p for p in places if p.exists()]
        if not places:
            continue
        try:
            adapter = get_adapter(name)
        except ImportError as exc:
            failed.append(FailedSource(str(places[0]), f"no adapter for {name}: {exc}"))
            continue
        for place in places:
            try:
                found = list(adapter.discover(place))
                if not found and place.is_file() and root is not None:
                    found = [place]
            except Exception as exc:  # one unreadable place must not stop the others
                failed.append(FailedSource(str(place), f"cannot list: {type(exc).__name__}: {exc}"))
                continue
            for path in found:
                key = os.path.abspath(path)
                if key in seen or guard.forbidden(key):
                    continue
                seen.add(key)
                sig = signature(key, database=not adapter.append_only)
                if sig is None and _special(key):
                    failed.append(
                        FailedSource(key, "not a regular file (a FIFO, socket or device): not read")
                    )
                elif sig is not None:
                    yield Source(name, adapter, key, *sig)


class _Guard:
    """Whether a path lies under the model runs' scratch folders (as given or through symlinks)."""

    def __init__(self, cfg: Config) -> None:
        runs = cfg.home / "model-runs"
        self.roots = sorted({os.path.abspath(runs), os.path.realpath(runs)})
        self._real_dirs: dict[str, str] = {}
        self._folders: dict[str, tuple[bool, str]] = {}  # folder -> (under a root, its real path)
        self._split_roots = {os.path.split(r) for r in self.roots}  # (folder, name) of each root

    def forbidden(self, path: str) -> bool:
        """Whether `path` (absolute) or its real path is a root or lies under one. A path lies
        under a root exactly when its folder is that root or lies under it (a name holds no
        separator), so that is decided once per folder: re-ingest looks at every source."""
        folder, name = os.path.split(path)
        known = self._folders.get(folder)
        if known is None:
            real = self._real(folder)
            known = self._folders[folder] = (self._within(folder) or self._within(real), real)
        roots = self._split_roots
        return known[0] or (folder, name) in roots or (known[1], name) in roots

    def _real(self, folder: str) -> str:
        """`os.path.realpath(folder)`, built from its parent's when the folder itself is no symlink
        (one lstat per folder instead of one per component of each: discovery walks thousands)."""
        real = self._real_dirs.get(folder)
        if real is None:
            parent, name = os.path.split(folder)
            if not name or parent == folder or os.path.islink(folder):
                real = os.path.realpath(folder)
            else:
                real = os.path.join(self._real(parent), name)
            self._real_dirs[folder] = real
        return real

    def _within(self, folder: str) -> bool:
        """Whether `folder` is a root or lies under one."""
        return any(folder == r or folder.startswith(r + os.sep) for r in self.roots)


def _special(path: str) -> bool:
    """Whether `path` exists but is neither a regular file nor a folder (asked only for the rare
    source that `signature` refused, so discovery keeps one stat per file)."""
    try:
        return not is_regular_or_dir(os.stat(path).st_mode)
    except OSError:
        return False


def signature(path: str | Path, *, database: bool = True) -> tuple[int, int, bool] | None:
    """(size, mtime_ns, is_dir), or None when the source cannot be stat'ed or is no regular file
    or folder (a FIFO would block its reader forever). A `database` (any
    source an adapter does not read as an append-only file) counts its `-wal` too."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if not is_regular_or_dir(st.st_mode):  # a FIFO or device would block the read forever
        return None
    if stat.S_ISDIR(st.st_mode):
        size, mtime = 0, st.st_mtime_ns
        for folder, dirs, files in os.walk(path):
            for name in files + dirs:
                try:
                    sub = os.stat(os.path.join(folder, name))
                except OSError:
                    continue
                mtime = max(mtime, sub.st_mtime_ns)
                if name in files:
                    size += sub.st_size
        return size, mtime, True
    size, mtime = st.st_size, st.st_mtime_ns
    if not database:
        return size, mtime, False
    try:
        wal = os.stat(f"{path}-wal")
        size, mtime = size + wal.st_size, max(mtime, wal.st_mtime_ns)
    except OSError:
        pass
    return size, mtime, False


def pending_sources(cfg: Config) -> tuple[int, int]:
    """(files, bytes) of the sources the index does not hold as they are now: what `ingest` would
    read. Never writes; an absent index means everything is pending."""
    from hippo_git.index.db import IndexMissingError, connect
    from hippo_git.index.scrub import Scrubber
    from hippo_git.index.writer import stored

    known: dict[str, tuple[int, int]] = {}
    try:
        conn = connect(cfg.index_path, readonly=True)
    except IndexMissingError:
        conn = None
    if conn is not None:
        try:
            known = {r[0]: (r[1], r[2]) for r in conn.execute("SELECT path, size, mtime_ns FROM sources")}
        finally:
            conn.close()
    scrub = Scrubber()
    files = size = 0
    for src in discover_sources(cfg, None, None, []):
        if stored(scrub, known, src.path)[1] != (src.size, src.mtime_ns):
            files += 1
            size += src.size
    return files, size
