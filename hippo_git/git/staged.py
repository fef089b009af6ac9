"""Reading what is staged for commit, in few git calls (the pre-commit hook must be fast).

Git runs through `spawn` (no `subprocess`) and paths are strings: this module is on the path
of every commit, which should not pay for importing `subprocess` or `pathlib`.
"""

from __future__ import annotations

import os

from hippo_git.errors import GitError, NotARepoError
from hippo_git.git.early import STAGED, take
from hippo_git.git.spawn import Git, failure, run

StrPath = str | os.PathLike[str]


def _lines(out: bytes) -> list[str]:
    return [os.fsdecode(p) for p in out.split(b"\0") if p]


def _git(root: StrPath, args: tuple[str, ...] | list[str], data: bytes | None = None) -> bytes:
    """The output of `git ARGS` in `root`; `GitError` with git's own words when it fails."""
    try:
        code, out, err = run(root, args, data)
    except OSError:
        raise GitError("the git binary was not found on PATH", hint="install git") from None
    if code != 0:
        raise GitError(failure(args, code, err))
    return out


def worktree_top(cwd: StrPath) -> str:
    """The top of the working tree containing `cwd`, in one git call (`repo.discover` makes four);
    no call at all when `cwd` holds the `.git` entry itself (git runs its hooks there)."""
    if os.path.exists(os.path.join(cwd, ".git")):
        return os.fspath(cwd)
    try:
        code, out, _ = run(cwd, ("rev-parse", "--show-toplevel"))
    except OSError:
        raise GitError("the git binary was not found on PATH", hint="install git") from None
    top = out.decode("utf-8", "surrogateescape").strip()
    if code != 0 or not top:
        raise NotARepoError(
            f"not inside a git working tree: {os.fspath(cwd)}", hint="run this inside a git repository"
        )
    return top


def staged_changes(root: StrPath) -> list[str]:
    """Paths added, copied, modified or renamed in the index against HEAD (or all, before a first
    commit)."""
    return list(staged_entries(root))


def staged_entries(root: StrPath) -> dict[str, str]:
    """Each path `staged_changes` lists → the id of its staged blob; read from the git started
    ahead (`early.start`) when there is one."""
    early = take(root, STAGED)
    fields = (early if early is not None else _git(root, STAGED)).split(b"\0")
    # `:old-mode new-mode old-id new-id status`, then the path (one a record: no renames)
    return {
        os.fsdecode(path): meta.split()[3].decode("ascii")
        for meta, path in zip(fields[0::2], fields[1::2], strict=False)
        if meta.startswith(b":")
    }


def index_paths(root: StrPath, under: str) -> list[str]:
    """Every path in the index under folder `under` (what the commit will contain)."""
    return _lines(_git(root, ("ls-files", "-z", "--", under)))


class PendingPaths:
    """`index_paths` started now and read later, so git lists the paths while Python works."""

    def __init__(self, root: StrPath, under: str) -> None:
        self._args = ("ls-files", "-z", "--", under)
        self._proc = Git(root, self._args)

    def result(self) -> list[str]:
        return _lines(self.output())

    def output(self) -> bytes:
        """The listing as git wrote it (NUL-separated), for a caller that looks through it whole."""
        code, out, err = self._proc.communicate()
        if code != 0:
            raise GitError(failure(self._args, code, err))
        return out


def staged_blobs(root: StrPath, paths: list[str], ids: dict[str, str] | None = None) -> dict[str, bytes]:
    """The staged content of each path: read from the object store when `ids` (`staged_entries`)
    names its blob and `git add` left it loose, as it does for new content; the rest through one
    `git cat-file --batch`. A commit of one note then starts no git process for it."""
    found: dict[str, bytes] = {}
    objects = _objects_dir(root) if ids else None
    if objects is not None and ids is not None:
        for path in paths:
            blob = _loose_blob(objects, ids[path]) if path in ids else None
            if blob is not None:
                found[path] = blob
    rest = [p for p in paths if p not in found]
    if rest:
        found.update(_cat_file(root, rest))
    return {p: found[p] for p in paths if p in found}


def _objects_dir(root: StrPath) -> str | None:
    """The object folder of the repository whose work tree is `root`, when it is the plain
    `.git/objects`; None when git would look elsewhere (a linked worktree, GIT_DIR and the like)."""
    if any(os.environ.get(name) for name in ("GIT_DIR", "GIT_OBJECT_DIRECTORY", "GIT_COMMON_DIR")):
        return None
    git_dir = os.path.join(root, ".git")
    if not os.path.isdir(git_dir) or os.path.exists(os.path.join(git_dir, "commondir")):
        return None
    return os.path.join(git_dir, "objects")


def _loose_blob(objects: str, oid: str) -> bytes | None:
    """The content of blob `oid` stored loose under `objects`; None when it is not (packed, or
    not a blob): git's own cat-file then reads it."""
    import zlib

    try:
        with open(os.path.join(objects, oid[:2], oid[2:]), "rb") as handle:
            data = zlib.decompress(handle.read())
    except (OSError, ValueError, zlib.error):
        return None
    head, _, body = data.partition(b"\0")
    return body if head == b"blob %d" % len(body) else None


def _cat_file(root: StrPath, paths: list[str]) -> dict[str, bytes]:
    request = "".join(f":0:{p}\n" for p in paths).encode("utf-8", "surrogateescape")
    data = _git(root, ("cat-file", "--batch"), request)
    out: dict[str, bytes] = {}
    pos = 0
    for path in paths:
        nl = data.index(b"\n", pos)
        header = data[pos:nl].split()
        pos = nl + 1
        if len(header) == 3 and header[1] == b"blob":
            size = int(header[2])
            out[path] = data[pos : pos + size]
            pos += size + 1
    return out


def title_lines(root: StrPath, under: str) -> list[tuple[str, str]]:
    """(path, line) of every `title:` line and `# heading` line of the tracked files under `under`
    (as in the working tree), in one `git grep`; [] when git fails. Text that is not UTF-8 is
    read with replacement characters (a note in another encoding must not break a commit)."""
    args = ("grep", "-I", "-z", "--no-color", "-e", "^title:", "-e", "^#[[:blank:]]", "--", under)
    try:
        code, out, _ = run(root, args)
    except OSError:
        return []
    if code != 0:
        return []
    rows = (row.partition(b"\0") for row in out.split(b"\n"))
    return [(os.fsdecode(path), line.decode("utf-8", "replace")) for path, _, line in rows if line]


def changed_between(root: StrPath, old: str, new: str) -> list[str]:
    return _lines(_git(root, ("diff", "--name-only", "-z", old, new)))
