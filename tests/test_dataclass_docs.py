"""Every dataclass under hippo_git/ has a docstring of its own. Without one, `dataclasses` calls
`inspect.signature(cls)` to write one, which imports `inspect` (and `ast`, `dis`, `tokenize`) on every
cold command, however `hippo_git.cli.deferred` puts it off."""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil
import sys
import types
from pathlib import Path

import pytest

import hippo_git


def _generated_doc(cls: type) -> str:
    """The docstring `dataclasses` writes for a class that has none."""
    try:
        return cls.__name__ + str(inspect.signature(cls)).replace(" -> None", "")
    except (TypeError, ValueError):
        return cls.__name__


def _undocumented(module: types.ModuleType) -> list[str]:
    """The dataclasses defined in `module` (nested ones too) without a docstring of their own."""
    found: list[str] = []
    todo = [v for v in vars(module).values() if isinstance(v, type) and v.__module__ == module.__name__]
    while todo:
        cls = todo.pop()
        todo += [v for v in vars(cls).values() if isinstance(v, type) and v.__module__ == module.__name__]
        if dataclasses.is_dataclass(cls):
            doc = cls.__dict__.get("__doc__")
            if not doc or doc == _generated_doc(cls):
                found.append(f"{module.__name__}.{cls.__qualname__}")
    return sorted(found)


def _modules() -> tuple[list[types.ModuleType], list[str]]:
    """Every module under hippo_git/, and those left out because an optional dependency is missing."""
    names = sorted(m.name for m in pkgutil.walk_packages(hippo_git.__path__, "hippo_git."))
    modules, missing = [], []
    for name in names:
        if name == "hippo_git.__main__":
            continue  # runs the CLI; it defines no dataclass
        try:
            modules.append(importlib.import_module(name))
        except ModuleNotFoundError as exc:  # an extra's dependency (e.g. [semantic]); hippo's own must import
            if (exc.name or "").split(".")[0] == "hippo_git":
                raise
            missing.append(f"{name} (needs {exc.name})")
    return modules, missing


def test_every_dataclass_has_its_own_docstring() -> None:
    modules, _ = _modules()
    assert len(modules) > 100  # the walk found the package's modules
    undocumented = [name for module in modules for name in _undocumented(module)]
    assert undocumented == [], (
        "dataclasses without a docstring (give each a one-line docstring): " + ", ".join(undocumented)
    )


def test_the_check_finds_a_dataclass_without_a_docstring(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "dc_sample.py").write_text(
        "from dataclasses import dataclass\n\n\n"
        "@dataclass\nclass Bare:\n    x: int\n\n\n"
        "@dataclass\nclass Named:\n    '''A record.'''\n\n    x: int\n\n\n"
        "class Holder:\n    @dataclass(frozen=True)\n    class Inner:\n        y: str = ''\n\n\n"
        "class Plain:\n    pass\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    try:
        sample = importlib.import_module("dc_sample")
    finally:
        sys.modules.pop("dc_sample", None)
    assert _undocumented(sample) == ["dc_sample.Bare", "dc_sample.Holder.Inner"]
