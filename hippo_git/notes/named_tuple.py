"""`typing.NamedTuple`'s class syntax without importing `typing`, for the records of the modules
every commit and agent hook loads (`parse.Note`, `parse.Link`, `resolve.Resolution`): importing
`typing` costs each of them a few ms. Type checkers are shown `typing.NamedTuple` itself
(`if TYPE_CHECKING:`), so the records are typed as before; at run time the class is built by
`collections.namedtuple` as `typing` builds it: fields from the annotations, defaults from the
values given, and the other attributes (methods, properties, docstring) copied over.
"""

from __future__ import annotations

import collections

# What the class body may not set (namedtuple's own), and what is not copied onto the class.
_PROHIBITED = frozenset(
    {"__new__", "__init__", "__slots__", "__getnewargs__", "_fields", "_field_defaults", "_make", "_replace"}
    | {"_asdict", "_source"}
)
_SPECIAL = frozenset({"__annotations__", "__module__", "__name__"})


class _Meta(type):
    def __new__(cls, typename: str, bases: tuple[type, ...], ns: dict[str, object]) -> type:
        if not bases:  # `NamedTuple` itself
            return super().__new__(cls, typename, bases, ns)
        annotations = ns.get("__annotations__", {})
        fields = list(annotations) if isinstance(annotations, dict) else []
        defaults = [f for f in fields if f in ns]
        if defaults != fields[len(fields) - len(defaults) :]:
            raise TypeError(f"{typename}: a field without a default follows one with a default")
        values = [ns[f] for f in defaults]
        record = collections.namedtuple(typename, fields, defaults=values, module=str(ns["__module__"]))  # type: ignore[misc]
        for key, value in ns.items():
            if key in _PROHIBITED:
                raise AttributeError(f"Cannot overwrite NamedTuple attribute {key}")
            if key not in _SPECIAL and key not in fields:
                setattr(record, key, value)
        record.__annotations__ = dict(annotations) if isinstance(annotations, dict) else {}
        return record


class NamedTuple(metaclass=_Meta):
    """Subclass it as `typing.NamedTuple`; the subclass is a `collections.namedtuple`."""
