"""The fast JSON paths give exactly the standard library's values: `LineReader` and `loads_json`
(msgspec first, `json` for what it rejects) and `prepare`'s compact dumps (msgspec first, `json`
for what it refuses). Values are compared by `marshal`, which tells int from float, -0.0 from 0.0
and one key order from another, where `==` would not."""

from __future__ import annotations

import json
import marshal
import random
from pathlib import Path
from typing import Any

import pytest

from hippo_git.index import prepare
from hippo_git.transcripts.jsonl import LineReader
from hippo_git.transcripts.jsonl_decode import loads_json
from hippo_git.transcripts.model import ParseStats


def same(a: Any, b: Any) -> bool:
    return marshal.dumps(a, 2) == marshal.dumps(b, 2)


def read(tmp_path: Path, lines: list[bytes]) -> tuple[list[dict[str, Any]], ParseStats, int]:
    path = tmp_path / "log.jsonl"
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    reader = LineReader(path, 0, ParseStats())
    return list(reader), reader.stats, reader.offset


def stdlib(line: bytes) -> Any:
    return json.loads(line.decode("utf-8", errors="replace"))


BIG = 1234567890123456789012345  # 25 digits: beyond 64 bits, where a float would lose digits


def test_big_integers_are_read_exactly(tmp_path: Path) -> None:
    lines = [
        b'{"n": 1234567890123456789012345}',
        b'{"n": -1234567890123456789012345, "m": [18446744073709551616, -9223372036854775809]}',
        b'{"n": 18446744073709551615, "m": 9223372036854775807, "k": -9223372036854775808}',
    ]
    records, stats, _ = read(tmp_path, lines)
    assert records[0]["n"] == BIG and type(records[0]["n"]) is int
    assert records[1] == {"n": -BIG, "m": [2**64, -(2**63) - 1]}
    assert all(same(rec, stdlib(line)) for rec, line in zip(records, lines, strict=True))
    assert (stats.records, stats.torn) == (3, 0)


def test_what_only_the_standard_library_reads_gives_its_values(tmp_path: Path) -> None:
    lines = [
        b'{"x": NaN, "y": Infinity, "z": -Infinity}',
        b'{"x": 1e400}',
        b'{"s": "\\ud800 lone"}',
        b'{"s": "caf\xe9"}',  # invalid UTF-8: replaced, as the standard library path always did
        b'{"a": 1}{"b": 2}',
    ]
    records, stats, _ = read(tmp_path, lines)
    assert records[0]["x"] != records[0]["x"] and records[0]["y"] == float("inf")
    assert records[1] == {"x": float("inf")} and records[2] == {"s": "\ud800 lone"}
    assert records[3] == {"s": "caf\ufffd"} and records[4:] == [{"a": 1}, {"b": 2}]
    assert all(same(rec, stdlib(line)) for rec, line in zip(records[:4], lines, strict=False))
    assert (stats.records, stats.recovered, stats.torn) == (6, 2, 0)


FLOATS = (
    "0.1",
    "-0.0",
    "1e-7",
    "5e-324",
    "2.2250738585072011e-308",
    "1.7976931348623157e308",
    "9007199254740993.0",
    "0.30000000000000004",
    "123456789012345678901234567890.5",
    "1E+2",
    "4.35",
)


def test_floats_are_the_standard_librarys_to_the_bit(tmp_path: Path) -> None:
    rnd = random.Random(7)
    texts = list(FLOATS) + [repr(rnd.uniform(-1e6, 1e6) * 10 ** rnd.randrange(-30, 30)) for _ in range(2000)]
    texts += [
        f"{rnd.randrange(10**17)}.{rnd.randrange(10**17)}e{rnd.randrange(-300, 300)}" for _ in range(2000)
    ]
    lines = [b'{"v": ' + text.encode() + b"}" for text in texts]
    records, stats, _ = read(tmp_path, lines)
    assert stats.records == len(lines)
    for rec, line in zip(records, lines, strict=True):
        assert same(rec, stdlib(line)), line


PIECES: tuple[Any, ...] = (
    BIG,
    -(2**70),
    2**63,
    -(2**63),
    0,
    1.5,
    -0.0,
    1e300,
    "é日本😀",
    "tab\there\n",
    "\u2028\x7f",
    "",
    None,
    True,
    False,
)


def document(rnd: random.Random, depth: int = 0) -> Any:
    roll = rnd.random()
    if depth < 4 and roll < 0.25:
        return {rnd.choice(("a", "b", "é", "a")): document(rnd, depth + 1) for _ in range(rnd.randrange(4))}
    if depth < 4 and roll < 0.4:
        return [document(rnd, depth + 1) for _ in range(rnd.randrange(4))]
    return rnd.choice(PIECES)


def test_random_documents_read_as_the_standard_library_reads_them(tmp_path: Path) -> None:
    rnd = random.Random(11)
    lines = []
    for _ in range(1500):
        text = json.dumps({"k": document(rnd), "d": document(rnd)}, ensure_ascii=rnd.random() < 0.5)
        if rnd.random() < 0.1:
            text = text.replace('"k":', '"d": 1, "k":', 1)  # a repeated key: the last value counts
        lines.append(text.encode())
    records, stats, _ = read(tmp_path, lines)
    assert stats.records == len(lines)
    for rec, line in zip(records, lines, strict=True):
        assert same(rec, stdlib(line)), line


def test_a_line_nested_too_deeply_is_skipped_not_fatal(tmp_path: Path) -> None:
    deep = b'{"a": ' + b"[" * 5000 + b"]" * 5000 + b"}"
    records, stats, offset = read(tmp_path, [b'{"n": 1}', deep, b'{"n": 2}'])
    assert records == [{"n": 1}, {"n": 2}]
    assert (stats.records, stats.torn) == (2, 1) and offset == (tmp_path / "log.jsonl").stat().st_size


def test_loads_json_is_json_loads() -> None:
    for text in (
        '{"n": 1234567890123456789012345}',
        '{"x": NaN}',
        '{"s": "\\udc80"}',
        '{"s": "\ud800"}',
        "[1.5, -0.0]",
    ):
        assert same(loads_json(text), json.loads(text)), text
    for bad in ("{", '{"a": 1}{"b": 2}', "", "[" * 5000 + "]" * 5000):
        with pytest.raises(ValueError):
            loads_json(bad)


@pytest.mark.parametrize(
    "value",
    [
        ["src/é.py", "日本/😀.md", 'q"uote\\back', "ctl\x00\x1f\t\n\x7f", "\u2028"],
        {"b": 1, "a": {"z": None, "y": [True, False, 0, -5]}, "é": "ü"},
        {"n": BIG, "m": -(2**64)},
        {"1": {True: 1, None: 2, 3: 4}},  # keys msgspec refuses: the standard library spells them
        ["lone \ud800 surrogate"],  # a string msgspec cannot encode
        {},
        [],
    ],
)
def test_compact_dumps_are_the_standard_librarys(value: Any) -> None:
    assert prepare._dumps(value) == json.dumps(value, ensure_ascii=False, separators=(",", ":"))
