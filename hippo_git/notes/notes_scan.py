"""Which note files there are, and the quick look that tells what changed since the last.

A full walk lists every folder under `notes_dir` and stats every `.md` file. After a complete
refresh the walk is stored folder by folder: the folder's mtime, its notes' names, and their
sizes and mtimes (a folder or note written in the last two seconds with mtime 0, so it is looked
at again: a second write in the same clock tick leaves the same mtime). The next `look` lists no
folder whose mtime is unchanged and builds no manifest: one `fstat` per folder (a note added,
removed or renamed changes its folder's mtime) and one `lstat` per stored note, compared as
packed bytes (an edit in place changes the note's own size or mtime). Only a folder whose mtime
changed is listed again, and only the notes that differ are named, so ten edited notes or one
remembered memory cost those notes, not a walk and a load of every row. A new or removed folder
or no stored look sends the caller to the full walk. Notes that are symbolic links, and folders
that cannot be read, are never stored this way: their targets can change without any of these
stats changing.
"""

from __future__ import annotations

import os
import sqlite3
from array import array
from collections.abc import Iterable
from pathlib import Path
from stat import S_ISDIR, S_ISREG
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
    """Every visible `.md` file under `folder`, with each folder's listing as `look` reads it.

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


def storable(exact: bool) -> bool:
    """Whether a look may be stored: not when it holds a linked note or missed a folder."""
    return exact


def store(conn: sqlite3.Connection, folders: list[Folder], notes_rel: str, now_ns: int) -> None:
    """Keep `folders` as the last complete look (inside the caller's transaction). A note or a
    folder written within RACY_NS is kept with mtime 0 (a note's row too): the next look reads
    the note or lists the folder again, so a second write in the same clock tick is not missed."""
    recent = now_ns - RACY_NS
    rows = []
    for f in folders:
        stats = f.stats
        if any(stats[i] > recent for i in range(1, len(stats), 2)):
            stats = array("q", stats)
            for i in range(1, len(stats), 2):
                if stats[i] > recent:
                    stats[i] = 0
        mtime_ns = f.mtime_ns if f.mtime_ns <= recent else 0
        rows.append((f.rel, mtime_ns, "\0".join(f.names), stats.tobytes()))
    conn.execute("DELETE FROM scan")
    conn.executemany("INSERT INTO scan(folder, mtime_ns, names, stats) VALUES (?,?,?,?)", rows)
    conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (MANIFEST_KEY, notes_rel))


def drop(conn: sqlite3.Connection) -> None:
    """Forget the stored look (inside the caller's transaction): the index no longer matches it."""
    conn.execute("DELETE FROM scan")
    conn.execute("DELETE FROM meta WHERE key = ?", (MANIFEST_KEY,))


class Look(NamedTuple):
    changed: dict[str, tuple[int, int]]  # notes new or edited since the stored look: (size, mtime_ns)
    gone: list[str]  # notes removed since
    folders: list[Folder]  # the folders as seen now
    total: int  # notes
    listed: bool  # a folder was listed again: the look is worth storing even if nothing changed


def _relist(fd: int, rel: str, known: set[str]) -> tuple[list[str], array[int]] | None:
    """A folder whose mtime changed, listed again: its notes and their stats; None when a folder
    was added in it or a note is a link (the full walk knows what to do with those)."""
    names: list[str] = []
    stats: array[int] = array("q")
    for name in os.listdir(fd):
        if name.startswith("."):
            continue
        st = os.stat(name, dir_fd=fd, follow_symlinks=False)
        if S_ISDIR(st.st_mode):
            if (f"{rel}/{name}" if rel else name) not in known:
                return None
        elif name.endswith(".md"):
            if not S_ISREG(st.st_mode):
                return None
            names.append(name)
            stats.append(st.st_size)
            stats.append(st.st_mtime_ns)
    return names, stats


def look(conn: sqlite3.Connection, root: Path, notes_rel: str) -> Look | None:
    """What changed since the stored look (often nothing): notes edited in place, and in a folder
    whose mtime changed, notes added or removed. None when a folder was added or removed or no
    look is stored: then the caller walks."""
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (MANIFEST_KEY,)).fetchone()
    if row is None or row[0] != notes_rel:
        return None
    rows = conn.execute("SELECT folder, mtime_ns, names, stats FROM scan").fetchall()
    if not rows:
        return None
    known = {r[0] for r in rows}
    stat = os.stat
    top = str(root)
    changed: dict[str, tuple[int, int]] = {}
    gone: list[str] = []
    folders: list[Folder] = []
    count = 0
    relisted = False
    for rel, mtime_ns, names, stats in rows:
        try:
            fd = os.open(os.path.join(top, rel), os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            return None
        stored = names.split("\0") if names else []
        try:
            now_mtime = os.fstat(fd).st_mtime_ns
            if now_mtime == mtime_ns:
                listed = stored
                seen: array[int] = array("q")
                for name in listed:
                    st = stat(name, dir_fd=fd, follow_symlinks=False)
                    seen.append(st.st_size)
                    seen.append(st.st_mtime_ns)
            else:
                found = _relist(fd, rel, known)
                if found is None:
                    return None
                listed, seen = found
        except OSError:
            return None
        finally:
            os.close(fd)
        prefix = f"{rel}/" if rel else ""
        if listed is not stored:
            relisted = True
            before = array("q", stats)
            old = {name: (before[2 * i], before[2 * i + 1]) for i, name in enumerate(stored)}
            for i, name in enumerate(listed):
                if old.pop(name, None) != (seen[2 * i], seen[2 * i + 1]):
                    changed[prefix + name] = (seen[2 * i], seen[2 * i + 1])
            gone += [prefix + name for name in old]
        elif seen.tobytes() != stats:
            before = array("q", stats)
            for i, name in enumerate(listed):
                if seen[2 * i] != before[2 * i] or seen[2 * i + 1] != before[2 * i + 1]:
                    changed[prefix + name] = (seen[2 * i], seen[2 * i + 1])
        folders.append(Folder(rel, now_mtime, listed, seen))
        count += len(listed)
    return Look(changed, gone, folders, count, relisted)


def unchanged(conn: sqlite3.Connection, root: Path, notes_rel: str) -> int | None:
    """The number of notes when none changed since the stored look; None otherwise."""
    found = look(conn, root, notes_rel)
    return found.total if found is not None and not found.changed and not found.gone else None


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
