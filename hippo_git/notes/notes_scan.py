"""Which note files there are, and the quick look that tells whether any changed since the last.

A full walk lists every folder under `notes_dir` and stats every `.md` file. After a complete
refresh whose files and folders were all settled (written over two seconds before), the walk is
stored folder by folder: the folder's mtime, its notes' names, and their sizes and mtimes. The
next look (`unchanged`) then lists nothing and builds no manifest: one `fstat` per folder (a
note added, removed or renamed changes its folder's mtime) and one `lstat` per stored note,
compared as packed bytes (an edit in place changes the note's own size or mtime). Anything else
(a different folder mtime or stat, a missing folder, no stored scan) sends the caller to the
full walk. Notes that are symbolic links, and folders that cannot be read, are never stored
this way: their targets can change without any of these stats changing.
"""

from __future__ import annotations

import os
import sqlite3
from array import array
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from hippo_git.config import Config

RACY_NS = 2_000_000_000
# meta key of the stored scan: its value is the notes folder it describes (repo-relative).
MANIFEST_KEY = "manifest"


class Folder(NamedTuple):
    rel: str  # repo-relative folder, no trailing slash
    mtime_ns: int
    names: list[str]  # its notes (regular `.md` files), in listing order
    stats: array[int]  # size, mtime_ns of each of `names`


class Walk(NamedTuple):
    files: dict[str, tuple[int, int]]  # repo-relative path → (size, mtime_ns)
    folders: list[Folder]
    exact: bool  # False: a linked note or an unreadable folder; the scan must not be stored


def top_rel(cfg: Config) -> str:
    """The notes folder, repo-relative with `/` separators."""
    return str(cfg.notes_path)[len(str(cfg.root)) + 1 :].replace(os.sep, "/")


def walk(folder: Path, root: Path) -> Walk:
    """Every visible `.md` file under `folder`, with each folder's listing as `unchanged` reads it.

    Each folder is listed through its descriptor, so each note's `stat` looks up one name, not
    the whole path again (one `stat` per note is most of what a refresh costs)."""
    found: dict[str, tuple[int, int]] = {}
    folders: list[Folder] = []
    exact = True
    top = str(folder)
    inside = os.path.realpath(folder) + os.sep  # a linked note must not lead out of the notes
    base = top[len(str(root)) + 1 :].replace(os.sep, "/")
    stack = [(top, base)]
    while stack:
        current, rel_dir = stack.pop()
        rel = rel_dir + "/" if rel_dir else ""
        try:
            fd = os.open(current, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            exact = exact and not os.path.lexists(current)  # gone is fine; unreadable is not
            continue
        names: list[str] = []
        stats: array[int] = array("q")
        try:
            mtime_ns = os.fstat(fd).st_mtime_ns
            with os.scandir(fd) as entries:
                for entry in entries:
                    name = entry.name
                    if name.startswith("."):
                        continue
                    try:
                        if entry.is_dir(follow_symlinks=False):
                            stack.append((os.path.join(current, name), rel + name))
                        elif name.endswith(".md") and entry.is_file():
                            if entry.is_symlink():
                                exact = False
                                if not os.path.realpath(os.path.join(current, name)).startswith(inside):
                                    continue
                            st = entry.stat()
                            found[rel + name] = (st.st_size, st.st_mtime_ns)
                            names.append(name)
                            stats.append(st.st_size)
                            stats.append(st.st_mtime_ns)
                    except OSError:
                        exact = False
                        continue
            folders.append(Folder(rel_dir, mtime_ns, names, stats))
        except OSError:
            exact = False
            continue
        finally:
            os.close(fd)
    return Walk(found, folders, exact)


def settled(found: Walk, now_ns: int) -> bool:
    """Whether the walk may be stored: exact, and no file or folder written within RACY_NS (a
    second write in the same clock tick would leave the same mtime)."""
    if not found.exact:
        return False
    oldest_allowed = now_ns - RACY_NS
    return all(m <= oldest_allowed for _, m in found.files.values()) and all(
        f.mtime_ns <= oldest_allowed for f in found.folders
    )


def store(conn: sqlite3.Connection, found: Walk, notes_rel: str) -> None:
    """Keep `found` as the last complete look (inside the caller's transaction)."""
    conn.execute("DELETE FROM scan")
    conn.executemany(
        "INSERT INTO scan(folder, mtime_ns, names, stats) VALUES (?,?,?,?)",
        [(f.rel, f.mtime_ns, "\0".join(f.names), f.stats.tobytes()) for f in found.folders],
    )
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (MANIFEST_KEY, notes_rel))


def drop(conn: sqlite3.Connection) -> None:
    """Forget the stored look (inside the caller's transaction): the index no longer matches it."""
    conn.execute("DELETE FROM scan")
    conn.execute("DELETE FROM meta WHERE key = ?", (MANIFEST_KEY,))


def unchanged(conn: sqlite3.Connection, root: Path, notes_rel: str) -> int | None:
    """The number of notes when none was added, removed or changed since the stored look; None
    when something may have (or no look is stored): then the caller walks."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (MANIFEST_KEY,)).fetchone()
    if row is None or row[0] != notes_rel:
        return None
    rows = conn.execute("SELECT folder, mtime_ns, names, stats FROM scan").fetchall()
    if not rows:
        return None
    stat = os.stat
    top = str(root)
    count = 0
    for rel, mtime_ns, names, stats in rows:
        try:
            fd = os.open(os.path.join(top, rel), os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return None
        try:
            if os.fstat(fd).st_mtime_ns != mtime_ns:
                return None
            if not names:
                continue
            seen: array[int] = array("q")
            for name in names.split("\0"):
                st = stat(name, dir_fd=fd, follow_symlinks=False)
                seen.append(st.st_size)
                seen.append(st.st_mtime_ns)
            if seen.tobytes() != stats:
                return None
            count += len(seen) // 2
        except OSError:
            return None
        finally:
            os.close(fd)
    return count


def stat_some(cfg: Config, paths: Iterable[str]) -> tuple[dict[str, tuple[int, int]], set[str]]:
    """(stats of the given notes that exist, the given paths inside notes_dir)."""
    prefix = cfg.notes_dir.strip("/") + "/"
    found: dict[str, tuple[int, int]] = {}
    wanted: set[str] = set()
    for rel in paths:
        rel = rel.replace("\\", "/").lstrip("/")
        if not rel.startswith(prefix) or not rel.endswith(".md"):
            continue
        wanted.add(rel)
        try:
            st = (cfg.root / rel).stat()
        except OSError:
            continue
        found[rel] = (st.st_size, st.st_mtime_ns)
    return found, wanted
