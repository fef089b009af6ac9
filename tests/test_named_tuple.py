"""The records of the commit and agent-hook path are built without `typing`
(`notes.named_tuple`): they behave as the `typing.NamedTuple` classes they stand for."""

from __future__ import annotations

import pickle
import subprocess
import sys
import typing
from pathlib import Path

import pytest

import hippo_git
from hippo_git.notes.named_tuple import NamedTuple
from hippo_git.notes.parse import Link, Note, parse_note_text
from hippo_git.notes.resolve import Resolution


class Typed(typing.NamedTuple):
    """A record."""

    a: str
    b: int = 2
    c: tuple[str, ...] = ()

    @property
    def twice(self) -> int:
        return self.b * 2


class Light(NamedTuple):
    """A record."""

    a: str
    b: int = 2
    c: tuple[str, ...] = ()

    @property
    def twice(self) -> int:
        return self.b * 2


def test_a_light_record_behaves_as_a_typing_one() -> None:
    typed, light = Typed("x"), Light("x")
    assert light == typed == ("x", 2, ())
    assert Light._fields == Typed._fields and Light._field_defaults == Typed._field_defaults
    assert light.twice == typed.twice == 4 and light._replace(b=5).twice == 10
    assert repr(light) == repr(typed).replace("Typed", "Light")
    assert Light.__doc__ == "A record." and Light.__bases__ == (tuple,)
    assert light._asdict() == {"a": "x", "b": 2, "c": ()} and Light._make(["y", 1, ()]).a == "y"
    assert list(Light.__annotations__) == ["a", "b", "c"]
    with pytest.raises(TypeError):
        Light()  # type: ignore[call-arg]


def test_field_order_and_namedtuples_own_names_are_enforced_as_by_typing() -> None:
    with pytest.raises(TypeError):

        class Bad(NamedTuple):
            a: int = 1
            b: str  # type: ignore[misc]

    with pytest.raises(AttributeError):

        class Worse(NamedTuple):
            a: int

            def _replace(self) -> None:  # type: ignore[override]
                pass


def test_the_notes_records_pickle_and_keep_their_fields() -> None:
    note = parse_note_text("---\ntitle: T\ntags: [a, b]\n---\n# T\n[[x|y]]\n", "notes/t.md", "notes")
    assert isinstance(note, Note) and note.stem == "t" and note.tags == ["a", "b"]
    assert note.links == (Link("x", "y", 6),)
    assert pickle.loads(pickle.dumps(note)) == note and type(pickle.loads(pickle.dumps(note))) is Note
    assert (
        Resolution("x", "ok", ("notes/x.md",)).path == "notes/x.md" and Resolution("x", "broken").paths == ()
    )
    assert Note._fields[-1] == "body" and Note._field_defaults == {"body": ""}


def test_parsing_and_resolving_load_no_typing() -> None:
    code = "import sys; import hippo_git.notes.parse, hippo_git.notes.resolve; print('typing' in sys.modules)"
    proc = subprocess.run(
        [sys.executable, "-S", "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(Path(hippo_git.__file__).parent.parent)},
    )
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "False"
