"""Resolving `[[links]]` to notes.

Resolution is case-insensitive and treats spaces, `-` and `_` alike, so `[[Release process]]`
finds `release-process.md`. A target with a `/` is first tried as a path relative to `notes_dir`
(or to the repository root); otherwise file stems are tried, then titles. More than one note at
the first level that matches makes the link ambiguous. On the agent-hook path: stays light.
"""

from __future__ import annotations

from collections.abc import Iterable

from hippo_git.notes.parse import Note

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import NamedTuple
else:  # `typing` costs every commit and agent hook a few ms
    from hippo_git.notes.named_tuple import NamedTuple

_SEPARATORS = str.maketrans({"-": " ", "_": " "})


def normalise(text: str) -> str:
    return " ".join(text.lower().translate(_SEPARATORS).split())


def path_key(path: str) -> str:
    return "/".join(normalise(part) for part in path.removesuffix(".md").split("/"))


def link_keys(name: str, path: str, title: str) -> list[tuple[str, str]]:
    """The (table, key) pairs under which a note can be found by a link."""
    keys = [("path", path_key(name)), ("stem", normalise(name.rsplit("/", 1)[-1].removesuffix(".md")))]
    if path != name:
        keys.append(("path", path_key(path)))
    if title:
        keys.append(("title", normalise(title)))
    return keys


class Resolution(NamedTuple):
    target: str
    status: str  # "ok" | "broken" | "ambiguous"
    paths: tuple[str, ...] = ()  # the note (ok) or the candidates (ambiguous)

    @property
    def path(self) -> str | None:
        return self.paths[0] if self.status == "ok" else None


class Resolver:
    """Resolves link targets against notes, (path, title) pairs, or bare paths (no title)."""

    def __init__(self, known: Iterable[Note | str | tuple[str, str]] = (), notes_dir: str = "") -> None:
        prefix = notes_dir.strip("/") + "/" if notes_dir.strip("/") else ""
        self._tables: dict[str, dict[str, set[str]]] = {"path": {}, "stem": {}, "title": {}}
        for item in known:
            if isinstance(item, str):
                path, title = item, ""
            elif isinstance(item, Note):
                path, title = item.path, item.title
            else:
                path, title = item
            name = path[len(prefix) :] if prefix and path.startswith(prefix) else path
            for table, key in link_keys(name, path, title):
                self._tables[table].setdefault(key, set()).add(path)

    @classmethod
    def from_keys(cls, rows: Iterable[tuple[str, str, str]]) -> Resolver:
        """From precomputed (table, key, path) rows, as the notes index stores them."""
        resolver = cls()
        for table, key, path in rows:
            resolver._tables[table].setdefault(key, set()).add(path)
        return resolver

    def _find(self, table: str, key: str) -> set[str]:
        return self._tables[table].get(key, set())

    def resolve(self, target: str) -> Resolution:
        target = target.strip()
        if "/" in target:
            found = self._find("path", path_key(target.lstrip("/")))
            if found:
                return self._result(target, found)
        key = normalise(target.removesuffix(".md"))
        for table in ("stem", "title"):
            found = self._find(table, key)
            if found:
                return self._result(target, found)
        return Resolution(target, "broken")

    @staticmethod
    def _result(target: str, found: set[str]) -> Resolution:
        paths = tuple(sorted(found))
        return Resolution(target, "ok" if len(paths) == 1 else "ambiguous", paths)
