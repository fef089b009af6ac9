"""The plain forms of a command line, read without click by the fast paths (`search_fast`,
`recall_fast`): anything else is left to the click command, which answers it as usual."""

from __future__ import annotations

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from collections.abc import Mapping


def split_plain(
    argv: list[str], flags: Mapping[str, str | None], values: Mapping[str, str]
) -> tuple[list[str], dict[str, object]] | None:
    """(the words, {key: True for each flag given, key: value for each option given}), or None when
    the line holds anything else: an unknown option, a flag with `=`, an option without its value
    (or one that starts with `-`), or a short option written `-n=5` (click reads its value as "=5").
    A flag mapped to None is accepted and dropped."""
    words: list[str] = []
    found: dict[str, object] = {}
    args = iter(argv)
    for arg in args:
        if not arg.startswith("-") or arg == "-":
            words.append(arg)
            continue
        name, eq, value = arg.partition("=")
        if name in flags and not eq:
            key = flags[name]
            if key:
                found[key] = True
        elif name in values:
            if eq and not name.startswith("--"):
                return None
            if not eq:
                value = next(args, "")
                if not value or value.startswith("-"):
                    return None
            found[values[name]] = value
        else:
            return None
    return words, found
