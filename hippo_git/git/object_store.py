"""The object store under `GitStore` (`objects.py`): open the repository once; read commits, trees
and blobs; write blobs, trees and commits; move refs by compare-and-swap. No working tree or index.

Every ref it writes goes through `cas_ref`: the ref is locked, re-read under the lock and moved
only when it still holds the expected value (DESIGN invariant 5). Commit identities and dates come
from GIT_AUTHOR_*/GIT_COMMITTER_* when set (as git itself does), so runs are reproducible in tests
and CI; otherwise from `user.name`/`user.email`.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pygit2
from pygit2.enums import FileMode, SortMode

from hippo_git.errors import GitError, HippoError, NotARepoError, StaleRefError
from hippo_git.git.identity import parse_git_date

NULL_OID = "0" * 40
# libgit2 caches only trees and commits under 4 KiB by default, so a notes folder of a few hundred
# notes (or the receipts notes tree) was re-read and re-parsed on every path lookup; measured in
# bench/dream.py, this cache takes a dream of 1,000 proposals from ~2.1 s to ~0.75 s in the store.
pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, 1 << 20)
pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.COMMIT, 1 << 20)


@dataclass(frozen=True)
class CommitInfo:
    """A commit as read from the object store: parents, tree, message, author and time."""

    sha: str
    parents: tuple[str, ...]
    tree: str
    message: str
    author: str  # "Name <email>"
    time: int  # committer time, seconds since the epoch

    @property
    def subject(self) -> str:
        return self.message.split("\n", 1)[0]


def check_path(path: str) -> list[str]:
    """The components of a repository path we are willing to write; refuses anything odd."""
    parts = path.split("/")
    if (
        not path
        or path.startswith("/")
        or "\\" in path
        or "\0" in path
        or any(p in ("", ".", "..") or p.lower() == ".git" for p in parts)
    ):
        raise HippoError(
            f"refusing to write the path {path!r} in a commit", hint="paths are relative, with no '.' or '..'"
        )
    return parts


TREE_CACHE = 64


class ObjectStore:
    """One open repository: read objects, build commits, move refs by compare-and-swap."""

    def __init__(self, root: Path) -> None:
        try:
            self.repo: Any = pygit2.Repository(str(root))
        except pygit2.GitError:
            raise NotARepoError(f"not a git repository: {root}") from None
        self.root = root
        self._blobs: dict[tuple[str, str], str] = {}  # (commit, path): blob, from prefetch_diffs
        self._trees: dict[str, Any] = {}  # commit: its parsed tree (a wide one takes ~0.5 ms to parse)

    # --- identity -------------------------------------------------------------------------------

    def signature(self, role: Literal["author", "committer"] = "committer") -> Any:
        env = os.environ
        key = role.upper()
        name = env.get(f"GIT_{key}_NAME") or self._config("user.name") or "hippo"
        email = env.get(f"GIT_{key}_EMAIL") or self._config("user.email") or "hippo@localhost"
        date = parse_git_date(env.get(f"GIT_{key}_DATE", "")) if env.get(f"GIT_{key}_DATE") else None
        if date is None:
            return pygit2.Signature(name, email)
        return pygit2.Signature(name, email, date[0], date[1])

    def _config(self, key: str) -> str | None:
        try:
            return str(self.repo.config[key])
        except (KeyError, pygit2.GitError):
            return None

    # --- reading --------------------------------------------------------------------------------

    def ref_target(self, ref: str) -> str | None:
        """The commit a ref points at (symbolic refs followed), or None when it does not exist."""
        found = self.repo.references.get(ref)
        if found is None:
            return None
        try:
            return str(found.resolve().target)
        except (KeyError, pygit2.GitError):
            return None  # a symbolic ref to an unborn branch

    def refs(self, prefix: str) -> list[tuple[str, str]]:
        """(name, target) of every direct ref whose name starts with `prefix`, sorted by name."""
        out = []
        for name in self.repo.references:
            if name.startswith(prefix):
                target = self.ref_target(name)
                if target:
                    out.append((name, target))
        return sorted(out)

    def resolve(self, rev: str) -> str | None:
        """The commit that `rev` (sha, abbreviation, ref name) names, or None."""
        try:
            obj = self.repo.revparse_single(rev)
            return str(obj.peel(pygit2.Commit).id)
        except (KeyError, ValueError, pygit2.GitError, pygit2.InvalidSpecError):
            return None

    def _commit(self, sha: str) -> Any:
        try:
            obj = self.repo[sha]
        except (KeyError, ValueError):
            raise GitError(f"no commit {sha[:12]} in this repository") from None
        if not isinstance(obj, pygit2.Commit):
            raise GitError(f"{sha[:12]} is not a commit")
        return obj

    def commit_info(self, sha: str) -> CommitInfo:
        c = self._commit(sha)
        return CommitInfo(
            sha=str(c.id),
            parents=tuple(str(p) for p in c.parent_ids),
            tree=str(c.tree_id),
            message=c.message,
            author=f"{c.author.name} <{c.author.email}>",
            time=int(c.commit_time),
        )

    def first_parents(self, tip: str, stop: str | None = None) -> Iterator[CommitInfo]:
        """`tip` and its first-parent ancestors, newest first, ending before `stop`."""
        sha: str | None = tip
        while sha and sha != stop:
            info = self.commit_info(sha)
            yield info
            sha = info.parents[0] if info.parents else None

    def ancestors(self, tip: str, limit: int) -> Iterator[CommitInfo]:
        """`tip` and every commit reachable from it (merged branches too), newest first, at most `limit`."""
        for count, commit in enumerate(
            self.repo.walk(pygit2.Oid(hex=tip), SortMode.TOPOLOGICAL | SortMode.TIME)
        ):
            if count >= limit:
                return
            yield self.commit_info(str(commit.id))

    def is_ancestor(self, ancestor: str, descendant: str) -> bool:
        if ancestor == descendant:
            return True
        return bool(self.repo.descendant_of(descendant, ancestor))

    def merge_base(self, a: str, b: str) -> str | None:
        base = self.repo.merge_base(a, b)
        return str(base) if base is not None else None

    def blob_at(self, commit: str, path: str) -> str:
        """The blob id of `path` in `commit`, NULL_OID when absent; refuses non-files."""
        known = self._blobs.get((commit, path))
        if known is not None:
            return known
        tree = self._trees.get(commit)
        if tree is None:
            if len(self._trees) >= TREE_CACHE:
                self._trees.clear()
            tree = self._trees[commit] = self._commit(commit).tree
        try:
            entry = tree[path]
        except KeyError:
            return NULL_OID
        if entry.filemode not in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE):
            raise GitError(f"{path} is not a regular file in {commit[:12]}")
        return str(entry.id)

    def read_blob(self, blob: str) -> bytes:
        data: bytes = self.repo[blob].data
        return data

    def read_at(self, commit: str, path: str) -> bytes | None:
        blob = self.blob_at(commit, path)
        return None if blob == NULL_OID else self.read_blob(blob)

    # --- writing objects ------------------------------------------------------------------------

    def write_blob(self, data: bytes) -> str:
        return str(self.repo.create_blob(data))

    def tree_with(self, commit: str, path: str, blob: str | None) -> str:
        """The tree of `commit` with `path` set to `blob` (None: removed)."""
        base = self._commit(commit).tree
        new = self._tree_with(base, check_path(path), blob, path)
        return str(new if new is not None else self.repo.TreeBuilder().write())

    def tree_with_all(self, commit: str, blobs: Mapping[str, str | None]) -> str:
        """The tree of `commit` with each path set to its blob (None: removed), in path order."""
        tree = self._commit(commit).tree
        for path in sorted(blobs):
            new = self._tree_with(tree, check_path(path), blobs[path], path)
            tree = self.repo[new] if new is not None else None
        return str(tree.id if tree is not None else self.repo.TreeBuilder().write())

    def _tree_with(self, tree: Any, parts: list[str], blob: str | None, path: str) -> Any:
        builder = self.repo.TreeBuilder(tree) if tree is not None else self.repo.TreeBuilder()
        name = parts[0]
        entry = tree[name] if tree is not None and name in tree else None
        if len(parts) == 1:
            if entry is not None and entry.filemode not in (FileMode.BLOB, FileMode.BLOB_EXECUTABLE):
                raise GitError(f"{path} is not a regular file")
            if blob is None:
                if entry is not None:
                    builder.remove(name)
            else:
                mode = entry.filemode if entry is not None else FileMode.BLOB
                builder.insert(name, pygit2.Oid(hex=blob), mode)
        else:
            if entry is not None and entry.filemode != FileMode.TREE:
                raise GitError(f"{'/'.join(parts[:1])} in {path} is not a folder")
            sub = self.repo[entry.id] if entry is not None else None
            new_sub = self._tree_with(sub, parts[1:], blob, path)
            if new_sub is None:
                if entry is not None:
                    builder.remove(name)
            else:
                builder.insert(name, new_sub, FileMode.TREE)
        return builder.write() if len(builder) else None

    def write_commit(
        self, tree: str, parents: Sequence[str], message: str, *, author: Any = None, committer: Any = None
    ) -> str:
        """A commit object; no ref moves (the caller moves one with `cas_ref`)."""
        oid = self.repo.create_commit(
            None,
            author or self.signature("author"),
            committer or self.signature("committer"),
            message,
            pygit2.Oid(hex=tree),
            [pygit2.Oid(hex=p) for p in parents],
        )
        return str(oid)

    def signatures_of(self, commit: str) -> tuple[Any, Any]:
        """(author, committer) of a commit, to re-create it identically elsewhere."""
        c = self._commit(commit)
        return c.author, c.committer

    def revert_tree(self, commit: str, onto: str) -> str:
        """The tree of `onto` with `commit` reverted (a three-way merge); refuses on conflicts."""
        index = self.repo.revert_commit(self._commit(commit), self._commit(onto))
        if index.conflicts is not None:
            raise GitError(f"reverting {commit[:12]} conflicts with later changes")
        return str(index.write_tree(self.repo))

    # --- refs -----------------------------------------------------------------------------------

    def cas_ref(self, ref: str, new: str, expected_old: str | None, message: str) -> None:
        """Move (or create, when `expected_old` is None) `ref` to `new` only if it still holds
        `expected_old`; otherwise nothing moves and StaleRefError is raised."""
        try:
            with self.repo.transaction() as txn:
                try:
                    txn.lock_ref(ref)
                except pygit2.GitError:
                    raise StaleRefError(
                        f"{ref} is locked by another git process", hint="wait for it to finish and retry"
                    ) from None
                current = self.ref_target(ref)  # re-read under the lock
                if current != expected_old:
                    raise StaleRefError(
                        f"{ref} moved: expected {(expected_old or 'nothing')[:12]}, found {(current or 'nothing')[:12]}",
                        hint="someone else updated it meanwhile; run the command again",
                    )
                txn.set_target(ref, pygit2.Oid(hex=new), message=message)
        except pygit2.GitError as exc:
            raise GitError(f"cannot update {ref}: {exc}") from None
