"""Git objects, refs and notes through pygit2, without touching any working tree or index.

`GitStore` opens the repository once; callers keep one per batch (a dream run, one apply) so
the hot path never reopens the repository or spawns git. Every ref it writes goes through
`cas_ref`: the ref is locked, re-read under the lock and moved only when it still holds the
expected value (DESIGN invariant 5). Notes are appended as new notes commits on top of the old
notes tip, by the same compare-and-swap, retrying when another writer got there first.

Commit identities and dates come from GIT_AUTHOR_*/GIT_COMMITTER_* when set (as git itself
does), so runs are reproducible in tests and CI; otherwise from `user.name`/`user.email`.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

import pygit2
from pygit2.enums import DiffOption, FileMode, SortMode

from hippo_git.errors import GitError, HippoError, NotARepoError, StaleRefError
from hippo_git.git.identity import now_iso, parse_git_date
from hippo_git.git.patchid import stable_patch_id
from hippo_git.git.repo import run_git

__all__ = ["NULL_OID", "CommitInfo", "GitStore", "check_path", "now_iso", "parse_git_date"]

NULL_OID = "0" * 40
# libgit2 caches only trees and commits under 4 KiB by default, so a notes folder of a few hundred
# notes (or the receipts notes tree) was re-read and re-parsed on every path lookup; measured in
# bench/dream.py, this cache takes a dream of 1,000 proposals from ~2.1 s to ~0.75 s in this module.
pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.TREE, 1 << 20)
pygit2.settings.cache_object_limit(pygit2.enums.ObjectType.COMMIT, 1 << 20)
_HEX2 = re.compile(r"^[0-9a-f]{2}$")
_HEXTAIL = re.compile(r"^[0-9a-f]+$")


@dataclass(frozen=True)
class CommitInfo:
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


def _unquote(path: str) -> str:
    """A path as git prints it: C-quoted ("caf\\303\\251.md") when it holds bytes beyond ASCII
    letters, a tab, a newline, a quote or a backslash."""
    if not path.startswith('"'):
        return path
    raw = path[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape")
    return raw.encode("latin-1").decode("utf-8", "surrogateescape")


PREFETCH_MIN = 8  # fewer commits are cheaper diffed one by one than by starting two processes


class GitStore:
    """One open repository: read objects, build commits and notes, move refs by compare-and-swap."""

    def __init__(self, root: Path) -> None:
        try:
            self.repo: Any = pygit2.Repository(str(root))
        except pygit2.GitError:
            raise NotARepoError(f"not a git repository: {root}") from None
        self.root = root
        # A commit's diff never changes: kept per store, a caller that gates, lists and patch-ids the
        # same commits (doctor over every run) diffs each once instead of up to four times.
        self._paths: dict[str, list[str]] = {}
        self._patch_ids: dict[str, str] = {}
        self._last_diff: tuple[str, Any] | None = None  # changed_paths then patch_id: one diff
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

    def _diff(self, commit: str) -> Any:
        if self._last_diff is not None and self._last_diff[0] == commit:
            return self._last_diff[1]
        diff = self._diff_uncached(commit)
        self._last_diff = (commit, diff)
        return diff

    def _diff_uncached(self, commit: str) -> Any:
        c = self._commit(commit)
        if len(c.parent_ids) > 1:
            raise GitError(f"{commit[:12]} is a merge commit")
        old = c.parents[0].tree if c.parents else self.repo[self.repo.TreeBuilder().write()]
        return old.diff_to_tree(c.tree, flags=DiffOption.INDENT_HEURISTIC)

    def changed_paths(self, commit: str) -> list[str]:
        """Every path the commit changes against its only parent (refuses merge commits)."""
        if commit not in self._paths:
            paths = set()
            for delta in self._diff(commit).deltas:
                paths.update({delta.old_file.path, delta.new_file.path})
            self._paths[commit] = sorted(paths)
        return list(self._paths[commit])

    def diff_text(self, commit: str) -> str:
        """The commit's patch against its parent, in git's format (what `git show` prints)."""
        text: str = self._diff(commit).patch or ""
        return text

    def patch_id(self, commit: str) -> str:
        """`git patch-id --stable` of the commit, in-process (git is asked only for binary diffs)."""
        if commit not in self._patch_ids:
            self._patch_ids[commit] = self._patch_id(commit)
        return self._patch_ids[commit]

    def prefetch_diffs(self, commits: Iterable[str]) -> None:
        """Learn the changed paths, blobs and patch-ids of many one-parent commits from two git
        processes, so the `changed_paths`/`blob_at`/`patch_id` calls that follow cost nothing. git's
        tree diff takes less than half of libgit2's CPU on a wide tree (5,000 notes in a folder)."""
        todo = [c for c in dict.fromkeys(commits) if c not in self._paths or c not in self._patch_ids]
        todo = [c for c in todo if len(self._commit(c).parent_ids) == 1]
        if len(todo) < PREFETCH_MIN:
            return
        expected = set(todo)
        # git's default quoting: the patch text must be what libgit2 prints, its patch-id the same.
        args = [
            "-c",
            "core.quotePath=true",
            "diff-tree",
            "--stdin",
            "--raw",
            "-p",
            "--no-renames",
            "--no-abbrev",
        ]
        try:
            out = run_git(args, cwd=self.root, input="\n".join(todo) + "\n").stdout
            ids = run_git(["patch-id", "--stable"], cwd=self.root, input=out).stdout
        except GitError:
            return  # only a speed-up: every fact is still read one commit at a time
        found: dict[str, set[str]] = {}
        blobs: dict[tuple[str, str], str] = {}
        current = ""
        for line in out.splitlines():
            if line in expected:
                current = line
                found[current] = set()
            elif line.startswith(":") and current:  # ":oldmode newmode oldblob newblob status\tpath"
                meta, _, path = line[1:].partition("\t")
                path = _unquote(path)
                old_mode, new_mode, old, new, _ = meta.split(" ", 4)
                found[current].add(path)
                parent = str(self._commit(current).parent_ids[0])
                for commit, mode, blob in ((parent, old_mode, old), (current, new_mode, new)):
                    if mode in ("000000", "100644", "100755"):  # 000000: absent (the null id)
                        blobs[(commit, path)] = blob
        for line in ids.splitlines():
            pid, _, commit = line.partition(" ")
            if commit in expected:
                self._patch_ids.setdefault(commit, pid)
        for commit in expected:  # a commit git printed nothing for changes nothing
            self._paths.setdefault(commit, sorted(found.get(commit, ())))
        self._blobs.update(blobs)

    def _patch_id(self, commit: str) -> str:
        found = stable_patch_id(self.diff_text(commit))
        if found is not None:
            return found
        diff = run_git(["diff-tree", "-p", "--no-renames", commit], cwd=self.root).stdout
        out = run_git(["patch-id", "--stable"], cwd=self.root, input=diff).stdout.split()
        return out[0] if out else NULL_OID

    # --- writing objects ------------------------------------------------------------------------

    def write_blob(self, data: bytes) -> str:
        return str(self.repo.create_blob(data))

    def tree_with(self, commit: str, path: str, blob: str | None) -> str:
        """The tree of `commit` with `path` set to `blob` (None: removed)."""
        base = self._commit(commit).tree
        new = self._tree_with(base, check_path(path), blob, path)
        return str(new if new is not None else self.repo.TreeBuilder().write())

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

    # --- notes ----------------------------------------------------------------------------------

    def _note_blob(self, tree: Any, name: str) -> Any:
        if name in tree:
            entry = tree[name]
            return self.repo[entry.id] if entry.filemode != FileMode.TREE else None
        prefix = name[:2]
        if len(name) > 2 and prefix in tree and tree[prefix].filemode == FileMode.TREE:
            return self._note_blob(self.repo[tree[prefix].id], name[2:])
        return None

    def note_text(self, notes_ref: str, target: str) -> str | None:
        """The note on `target` in `notes_ref` (fan-out trees understood), or None."""
        tip = self.ref_target(notes_ref)
        if tip is None:
            return None
        blob = self._note_blob(self._commit(tip).tree, target)
        return None if blob is None else bytes(blob.data).decode("utf-8", "replace")

    def all_notes(self, notes_ref: str) -> Iterator[tuple[str, str]]:
        """(annotated object, note text) of every note in `notes_ref`."""
        tip = self.ref_target(notes_ref)
        if tip is not None:
            yield from self._walk_notes(self._commit(tip).tree, "")

    def _walk_notes(self, tree: Any, prefix: str) -> Iterator[tuple[str, str]]:
        for entry in tree:
            name = prefix + entry.name
            if entry.filemode == FileMode.TREE and _HEX2.match(entry.name):
                yield from self._walk_notes(self.repo[entry.id], name)
            elif len(name) == 40 and _HEXTAIL.match(name) and entry.filemode != FileMode.TREE:
                yield name, bytes(self.repo[entry.id].data).decode("utf-8", "replace")

    def append_note_lines(
        self,
        notes_ref: str,
        lines: Mapping[str, Sequence[str]],
        *,
        same: Callable[[str], str] = lambda line: line,
        message: str = "Notes added by 'git hippo'",
        retries: int = 8,
    ) -> int:
        """Append lines to the notes on several objects in ONE notes commit; return lines written.

        A line whose `same(line)` equals that of a line already in the note is skipped, so a rerun
        writes nothing twice. The notes ref moves by compare-and-swap; on a race the whole batch is
        rebuilt on the new notes tip.
        """
        for _ in range(retries):
            tip = self.ref_target(notes_ref)
            tree = self._commit(tip).tree if tip else None
            updates: dict[str, Any] = {}
            written = 0
            for target, new_lines in lines.items():
                blob = self._note_blob(tree, target) if tree is not None else None
                text = bytes(blob.data).decode("utf-8", "replace") if blob is not None else ""
                seen = {same(line) for line in text.splitlines() if line.strip()}
                added = []
                for line in new_lines:
                    if same(line) not in seen:
                        seen.add(same(line))
                        added.append(line)
                if added:
                    text = text if not text or text.endswith("\n") else text + "\n"
                    updates[target] = self.repo.create_blob((text + "\n".join(added) + "\n").encode("utf-8"))
                    written += len(added)
            if not updates:
                return 0
            new_tree = self._notes_tree(tree, updates)
            sig = self.signature("committer")
            commit = self.repo.create_commit(
                None, sig, sig, message, new_tree, [pygit2.Oid(hex=tip)] if tip else []
            )
            try:
                self.cas_ref(notes_ref, str(commit), tip, message)
            except StaleRefError:
                continue
            return written
        raise StaleRefError(f"{notes_ref} kept moving while writing notes", hint="run the command again")

    def _notes_tree(self, tree: Any, updates: Mapping[str, Any]) -> Any:
        """`tree` with the note blobs in `updates` (name → blob) put where git would look."""
        builder = self.repo.TreeBuilder(tree) if tree is not None else self.repo.TreeBuilder()
        deeper: dict[str, dict[str, Any]] = {}
        for name, blob in updates.items():
            prefix = name[:2]
            in_tree = tree is not None and name in tree
            if not in_tree and tree is not None and prefix in tree and tree[prefix].filemode == FileMode.TREE:
                deeper.setdefault(prefix, {})[name[2:]] = blob
            else:
                builder.insert(name, blob, FileMode.BLOB)
        for prefix, sub_updates in deeper.items():
            assert tree is not None
            builder.insert(prefix, self._notes_tree(self.repo[tree[prefix].id], sub_updates), FileMode.TREE)
        return builder.write()
