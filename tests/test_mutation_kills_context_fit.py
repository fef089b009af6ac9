"""Fitting the context block into its budget, part by part (issue 21, mutation testing of
notes/context_fit.py): fences, the section headings, the left-out footer in its three forms,
cutting a note at a line and never mid-character, and the shares shortened notes get."""

from __future__ import annotations

import pytest

from hippo_git.errors import HippoError
from hippo_git.notes.context_fit import (
    SHORTENED,
    Part,
    _cut,
    _shortened,
    fence,
    fence_note,
    fit,
    render,
    shorten,
    size_of,
)


def _note(kind: str, label: str, body: str) -> Part:
    return Part(kind, label, fence_note(label, body, kind), required=True, body=body)


def test_a_parts_dict_names_why_only_when_there_is_one() -> None:
    assert Part("relevant", "n.md", "é", False).as_dict() == {
        "kind": "relevant",
        "label": "n.md",
        "bytes": 2,
        "required": False,
    }
    assert Part("relevant", "n.md", "x", False, why="w").as_dict()["why"] == "w"


def test_a_fence_skips_empty_attributes_escapes_the_rest_and_ends_its_text_with_one_newline() -> None:
    assert fence("note", {"path": "a.md", "why": ""}, "x") == '<note path="a.md">\nx\n</note>\n'
    assert fence("note", {"path": "a.md"}, "x\n") == '<note path="a.md">\nx\n</note>\n'
    assert (
        fence("note", {"why": 'a&b "c" <d>'}, "x")
        == '<note why="a&amp;b &quot;c&quot; &lt;d&gt;">\nx\n</note>\n'
    )
    assert fence("note", {}, "say </NOTE here").startswith("<note-2>\n")
    assert fence("note", {}, "</note and </note-2").endswith("</note-3>\n")


def test_sections_come_in_order_each_heading_once() -> None:
    parts = [
        Part("lint", "lint", "L\n", False),
        Part("memory", "m1", "M1\n", False),
        Part("relevant", "r1", "R1\n", False),
        Part("memory", "m2", "M2\n", False),
        Part("relevant", "r2", "R2\n", False),
        Part("header", "header", "H\n", True),
    ]
    assert render(parts, [], 100) == "\n".join(
        [
            "H\n",
            "## Notes relevant to the task\n",
            "R1\n",
            "R2\n",
            "## Memories relevant to the task\n",
            "M1\n",
            "M2\n",
            "L\n",
        ]
    )


def test_the_left_out_footer_names_each_part_or_counts_them() -> None:
    left = [Part("relevant", "a.md", "x" * 1234, False), Part("relevant", "b.md", "y", False)]
    header = [Part("header", "header", "H\n", True)]
    assert render(header, left, 12345).endswith(
        "## Left out\nTo stay within 12,345 bytes, these were left out: a.md (1,234 bytes), b.md (1 bytes). "
        "Read notes from the repository when you need them.\n"
    )
    assert (
        render(header, left, 12345, short_footer=True)
        == "H\n\n## Left out\n2 parts left out to stay within 12,345 bytes.\n"
    )


def test_a_cut_keeps_whole_characters_and_ends_at_a_line_past_half() -> None:
    assert _cut("abc", 3) == "abc" and _cut("abcd", 3) == "abc"
    assert _cut("ab\ncd", 5) == "ab\ncd"  # exactly the limit: whole, not cut at its line break
    assert _cut("é" * 4, 5) == "éé"  # 5 bytes: two whole characters, not half of the third
    assert _cut("ab\ncdefgh", 6) == "ab\ncde"  # the line break is before half of what fits
    assert _cut("abc\ndefgh", 6) == "abc\n"  # at half: cut there
    assert _cut("ab\ncdefgh", 5) == "ab\n"  # an odd length: half rounds down
    assert _cut("abcd\nefgh", 8) == "abcd\n"
    assert _cut("abc", 0) == "" and _cut("abc", -4) == ""


def test_shortened_notes_share_the_budget_and_say_how_much_is_shown() -> None:
    header = Part("header", "header", "H\n", True)
    big = _note("entry", "notes/index.md", "".join(f"line {n}\n" for n in range(400)))
    small = _note("required", "notes/small.md", "tiny\n")
    parts = shorten([header, big, small], 1200)
    assert size_of(render(parts, [], 1200)) <= 1200
    assert [p.label for p in parts] == ["header", "notes/index.md", "notes/small.md"]
    assert parts[2] == small  # smaller than its share: kept whole
    entry = parts[1].text
    assert entry.startswith('<note path="notes/index.md" role="entry, shortened">\nline 0\n')
    shown = entry.split("\n[")[0].split(">\n", 1)[1] + "\n"
    marker = SHORTENED.format(shown=size_of(shown), size=size_of(big.body), path="notes/index.md")
    assert entry.endswith(marker + "</note>\n") and "of 3,490 bytes shown" in marker
    # a required note is marked as required, and the closer the budget the less is shown
    req = shorten([header, _note("required", "notes/r.md", big.body)], 1200)[1]
    assert req.text.startswith('<note path="notes/r.md" role="required, shortened">')
    tighter = shorten([header, big], 800)[1]
    assert size_of(tighter.text) < size_of(shorten([header, big], 1200)[1].text)


def test_notes_that_cannot_fit_at_all_are_named_instead() -> None:
    header = Part("header", "header", "H\n", True)
    notes = [_note("entry", "notes/index.md", "x\n" * 300), _note("required", "notes/b.md", "y\n" * 300)]
    parts = shorten([header, *notes], 120)
    assert [p.kind for p in parts] == ["header", "missing"]
    assert parts[1].text == (
        "Context notes left out to fit the budget (read them from the repository): notes/index.md, notes/b.md\n"
    )
    assert parts[1].required


def test_fit_refuses_required_parts_over_the_budget_naming_each() -> None:
    required = [Part("header", "header", "H" * 1500 + "\n", True), _note("entry", "notes/i.md", "x")]
    with pytest.raises(HippoError) as info:
        fit(required, [], 1200)
    assert info.value.message == (
        f"the required context is {size_of(render(required, [], 1200)):,} bytes, over the budget of 1,200 bytes "
        f"(header 1,501; notes/i.md {required[1].size:,})"
    )
    assert "budget_bytes" in (info.value.hint or "")
    exact = size_of(render(required, [], 0))
    assert fit(required, [], exact)[2] == render(required, [], exact)  # exactly the budget fits


def test_fit_takes_optional_parts_in_order_while_they_fit_and_names_the_rest() -> None:
    required = [Part("header", "header", "H\n", True)]
    a, b, c = (
        Part("relevant", n, n * size + "\n", False) for n, size in zip("abc", (40, 300, 300), strict=True)
    )
    roomy = fit(required, [a, b, c], 10_000)
    assert roomy[0] == [*required, a, b, c] and roomy[1] == []
    budget = size_of(render([*required, a], [b, c], 100))  # a 3-digit budget, as this one is
    assert 100 <= budget < 1000
    included, left, text = fit(required, [a, b, c], budget)
    assert included == [*required, a] and left == [b, c] and text == render(included, left, budget)
    assert "these were left out: b (301 bytes), c (301 bytes)" in text
    # too tight for the footer naming them: a shorter footer, then none
    short = size_of(render([*required, a], [b, c], 100, short_footer=True))
    included, left, text = fit(required, [a, b, c], short)
    # (a is dropped first, in the hope that the long footer then fits; it does not)
    assert included == required and left == [a, b, c]
    assert text == render(required, [a, b, c], short, short_footer=True) and "3 parts left out" in text
    bare = size_of(render(required, [], 0))
    included, left, text = fit(required, [a, b, c], bare)
    assert included == required and left == [a, b, c] and text == render(required, [], bare)


def test_the_footer_can_push_out_an_optional_part_that_fit_on_its_own() -> None:
    required = [Part("header", "header", "H\n", True)]
    a = Part("relevant", "a", "a" * 100 + "\n", False)
    b = Part("relevant", "b", "b" * 900 + "\n", False)
    budget = size_of(render(required, [a, b], 100))  # a fits, but not beside the footer naming b
    assert 100 <= budget < 1000 and size_of(render([*required, a], [], 0)) < budget
    included, left, text = fit(required, [a, b], budget)
    assert included == required and left == [a, b]  # a made room for the footer naming both
    assert text == render(required, [a, b], budget) and size_of(text) <= budget


@pytest.mark.parametrize("budget", [700, 1500, 3000, 4500])
def test_two_notes_over_the_budget_are_both_shortened_to_fill_it(budget: int) -> None:
    """The overflow is larger than either note: cutting both by their share still fits, and the
    block comes within a few bytes of the budget (it once named them as left out instead)."""
    header = Part("header", "header", "H\n", True)
    notes = [_note("entry", "notes/i.md", "x" * 5000), _note("required", "notes/r.md", "y" * 3000)]
    parts = shorten([header, *notes], budget)
    assert [p.kind for p in parts] == ["header", "entry", "required"]
    assert all("shortened" in p.text for p in parts[1:])
    assert budget - 4 <= size_of(render(parts, [], budget)) <= budget
    shown = [p.text.count("x") + p.text.count("y") for p in parts[1:]]
    assert abs(shown[0] - shown[1]) <= 2  # the same share each


def test_a_note_smaller_than_the_share_is_kept_whole_beside_a_shortened_one() -> None:
    header = Part("header", "header", "H\n", True)
    notes = [_note("entry", "notes/i.md", "x" * 5000), _note("required", "notes/r.md", "y" * 300)]
    parts = shorten([header, *notes], 2000)
    assert parts[2] == notes[1] and "shortened" in parts[1].text
    assert 1996 <= size_of(render(parts, [], 2000)) <= 2000


def test_sections_are_ordered_by_kind_whatever_order_the_parts_come_in() -> None:
    kinds = ["header", "entry", "required", "missing", "session", "relevant", "memory", "lint"]
    parts = [Part(kind, kind, f"<{kind}>\n", kind in kinds[:4]) for kind in reversed(kinds)]
    text = render(parts, [], 1000)
    assert [line for line in text.split("\n") if line.startswith("<")] == [f"<{kind}>" for kind in kinds]
    headed = {"relevant": "## Notes relevant to the task\n", "memory": "## Memories relevant to the task\n"}
    assert text == "\n".join(chunk for kind in kinds for chunk in (headed.get(kind), f"<{kind}>\n") if chunk)


def test_a_shortened_note_with_its_marker_takes_about_its_share() -> None:
    note = _note("entry", "notes/i.md", "x" * 5000)
    for share in (400, 1000, 3000):
        body = _shortened(note, share).text.split(">\n", 1)[1].rsplit("</note>", 1)[0]
        assert share - 8 <= size_of(body) <= share + 8 and body.endswith(
            "read the full note at notes/i.md]\n"
        )


def test_an_optional_part_that_fills_the_budget_exactly_is_taken() -> None:
    required = [Part("header", "header", "H\n", True)]
    a = Part("relevant", "a", "a" * 40 + "\n", False)
    exact = size_of(render([*required, a], [], 0))
    assert fit(required, [a], exact) == ([*required, a], [], render([*required, a], [], exact))


def _header_and_notes() -> list[Part]:
    return [
        Part("header", "header", "H\n", True),
        _note("entry", "notes/index.md", "".join(f"line {n}\n" for n in range(200))),
        _note("required", "notes/r.md", "r" * 700 + "\n"),
    ]


def test_shorten_at_each_budget_boundary() -> None:
    """0, 1, the smallest budget a marker apiece fits (and one under), one under the whole size:
    named, named, a marker apiece, shortened. (At the whole size `fit` never calls it.)"""
    required = _header_and_notes()
    whole = size_of(render(required, [], 0))
    under = shorten(required, whole - 1)
    assert [p.kind for p in under] == ["header", "entry", "required"] and under != required
    assert size_of(render(under, [], 0)) <= whole - 1
    assert "shortened" in under[1].text and "notes/r.md" not in under[1].text
    smallest = [required[0], *(_shortened(p, 1) for p in required[1:])]
    least = size_of(render(smallest, [], 0))
    assert shorten(required, least) == smallest
    named = [
        required[0],
        Part(
            "missing",
            "shortened",
            "Context notes left out to fit the budget (read them from the repository): notes/index.md, notes/r.md\n",
            required=True,
        ),
    ]
    for budget in (least - 1, 1, 0):
        assert shorten(required, budget) == named, budget


def test_a_note_cut_to_nothing_is_its_marker_alone() -> None:
    note = _note("entry", "notes/i.md", "x" * 300 + "\n")
    marker = SHORTENED.format(shown=0, size=301, path="notes/i.md")
    for limit in (0, 1, size_of(marker)):
        assert _shortened(note, limit).text == fence_note("notes/i.md", marker, "entry, shortened"), limit
    # a cut mid-line gets its own line end before the marker
    one = SHORTENED.format(shown=1, size=301, path="notes/i.md")
    cut = _shortened(note, size_of(marker) + 1)
    assert cut.text == fence_note("notes/i.md", "x\n" + one, "entry, shortened")


def test_fit_with_degrade_at_the_budget_boundary() -> None:
    required = _header_and_notes()
    whole = size_of(render(required, [], 0))
    for budget in (whole, whole + 1):
        assert fit(required, [], budget, degrade=True) == (required, [], render(required, [], budget))
    included, left, text = fit(required, [], whole - 1, degrade=True)
    assert included == shorten(required, whole - 1) and left == []
    assert text == render(included, [], whole - 1) and size_of(text) <= whole - 1
    with pytest.raises(HippoError):
        fit(required, [], whole - 1)
    # even a budget too small for the named notes: refused, never over the budget
    with pytest.raises(HippoError):
        fit(required, [], 1, degrade=True)


def test_with_no_note_to_shorten_the_refusal_names_only_the_real_parts() -> None:
    """A header over the budget and no entry or required note: nothing is shortened, and the
    refusal does not count a list naming no notes (it once said 'header 301; shortened 75')."""
    header = Part("header", "header", "H" * 300 + "\n", True)
    empty = Part("required", "notes/empty.md", fence_note("notes/empty.md", "", "required"), True)
    for required in ([header], [header, empty]):
        assert shorten(required, 100) == required
        with pytest.raises(HippoError) as info:
            fit(required, [], 100, degrade=True)
        sizes = "; ".join(f"{p.label} {p.size:,}" for p in required)
        total = size_of(render(required, [], 100))
        assert info.value.message == (
            f"the required context is {total:,} bytes, over the budget of 100 bytes ({sizes})"
        )
