"""Git notes through the object store, for `GitStore` (`objects.py`): read a note (fan-out trees
understood), walk every note, and append lines as new notes commits on top of the old notes tip,
by compare-and-swap, retrying when another writer got there first."""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import pygit2
from pygit2.enums import FileMode

from hippo_git.errors import StaleRefError
from hippo_git.git.object_store import ObjectStore

_HEX2 = re.compile(r"^[0-9a-f]{2}$")
_HEXTAIL = re.compile(r"^[0-9a-f]+$")


def _text(blob: Any) -> str:
    return bytes(blob.data).decode("utf-8", "replace")


class NoteTrees(ObjectStore):
    """An object store that reads and appends git notes."""

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
        return None if blob is None else _text(blob)

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
                yield name, _text(self.repo[entry.id])

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
                text = _text(blob) if blob is not None else ""
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
