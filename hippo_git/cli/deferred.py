"""Standard-library modules that the fast paths import but seldom use, loaded on first use.

`dataclasses` imports `inspect` (which imports `ast`, `dis`, `tokenize`, ...) for one thing only, the
signature it writes into a dataclass that has no docstring; `urllib.parse` imports `ipaddress` for
bracketed hosts; `hashlib` (OpenSSL) and `json` serve the embedding store and `--json`. Together
they are a sixth of a cold `git hippo search`. `defer` puts a stand-in for each into `sys.modules`:
`import inspect` binds it, and the first attribute read from it imports the real module.

(`importlib.util.LazyLoader` cannot do this: every later `import inspect` reads the lazy module's
`__spec__`, and any attribute read loads it.)
"""

from __future__ import annotations

import importlib
import sys
import types
from importlib.machinery import PathFinder

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from typing import Any

# Imported by the search, context and hook paths, used there rarely if at all.
RARELY_USED = ("inspect", "ipaddress", "hashlib", "json")


class _OnFirstUse(types.ModuleType):
    """Stands in for a module until one of its attributes is read."""

    __cached__: str | None  # set by `defer`, as the import system sets a real module's

    def __getattr__(self, attr: str) -> Any:
        if sys.modules.get(self.__name__) is self:
            del sys.modules[self.__name__]
        real = importlib.import_module(self.__name__)
        self.__dict__.update(real.__dict__)  # later reads through the stand-in find them directly
        return getattr(real, attr)


def defer(names: tuple[str, ...] = RARELY_USED) -> None:
    """Stand-ins for those of `names` not imported yet."""
    for name in names:
        if name in sys.modules:
            continue
        spec = PathFinder.find_spec(name)
        if spec is None:
            continue
        stand_in = _OnFirstUse(name)
        stand_in.__spec__ = spec  # what importlib.util.find_spec(name) answers meanwhile
        # site.main() (run late when python started with -S: the git-hook shims, `hook NAME`) reads
        # every module's __file__ and __cached__; answering them here keeps the real module unloaded.
        stand_in.__file__, stand_in.__cached__ = spec.origin, spec.cached
        sys.modules[name] = stand_in
