"""Invariant 3 at its edges: the thresholds of proposal validation, each pinned on both sides (found
by mutation testing: `.ci/mutation-run validate`)."""

from __future__ import annotations

import os
from pathlib import Path

from hippo_git.dream.evidence import NoteText, PassInput, TurnRef, max_change_bytes
from hippo_git.dream.records import Proposal
from hippo_git.dream.validate import MIN_QUOTE, brings_back, check, path_problems, quotes_in

NOTE = "# Build\n\nRun make test.\n"


def _shown(reverted: tuple[str, ...] = ()) -> PassInput:
    return PassInput(
        notes=(NoteText("notes/build.md", NOTE, "0" * 40, ("s1",)),),
        turns=(TurnRef("s1", 0, "prompt", 'We said "uv sync" and "abcde" today.'),),
        reverted={"notes/build.md": reverted},
    )


def _root(tmp_path: Path) -> Path:
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "build.md").write_text(NOTE)
    return tmp_path


def test_a_quote_counts_from_min_quote_characters() -> None:
    assert MIN_QUOTE == 6
    assert quotes_in('"uv syn"') == ["uv syn"]  # exactly six
    assert quotes_in('"uv sy"') == []
    assert quotes_in("`  abcde  `") == []  # spaces do not count


def test_brings_back_a_reverted_text_from_twenty_characters_of_it() -> None:
    reverted = ["Always run the linter twice before every push to main."]
    assert brings_back("the linter twice be", reverted) is None  # 19 characters inside it
    assert brings_back("the linter twice bef", reverted) == reverted[0]  # 20
    assert brings_back("x", ["short"]) is None  # a reverted text under MIN_QUOTE is ignored


def test_reasons_cut_long_values_at_fixed_lengths(tmp_path: Path) -> None:
    root = _root(tmp_path)
    bad = "e" * 100
    reasons = check(
        Proposal(op="append", path="notes/build.md", new="- x\n", evidence=(bad,)),
        _shown(),
        root=root,
        notes_dir="notes",
    )
    assert reasons == [f"evidence {'e' * 60!r} is not of the form <session>#<turn>"]
    text = "Reverted words " + "w" * 120
    again = Proposal(op="append", path="notes/build.md", new=text, evidence=("s1#0",))
    reasons = check(again, _shown((text,)), root=root, notes_dir="notes")
    assert reasons == [f"the new text brings back text a human reverted: {text[:80]!r}"]


def test_the_size_limit_is_inclusive(tmp_path: Path) -> None:
    root = _root(tmp_path)
    limit = max_change_bytes(NOTE)
    at = Proposal(op="append", path="notes/build.md", new="z" * limit, evidence=("s1#0",))
    assert check(at, _shown(), root=root, notes_dir="notes") == []
    over = Proposal(op="append", path="notes/build.md", new="z" * (limit + 1), evidence=("s1#0",))
    assert check(over, _shown(), root=root, notes_dir="notes") == [
        f"the change is {limit + 1} bytes, more than half the note (limit {limit} bytes)"
    ]


def test_a_component_of_256_bytes_is_one_too_many(tmp_path: Path) -> None:
    root = _root(tmp_path)
    assert path_problems("notes/" + "b" * 252 + ".md", root, "notes") == []  # 255 bytes
    assert "longer than 255 bytes" in path_problems("notes/" + "b" * 253 + ".md", root, "notes")[0]


def test_a_reverted_text_shorter_than_a_quote_is_not_a_reason() -> None:
    assert brings_back("we use abc daily", ["abc"]) is None
    assert brings_back("we use abcdef daily", ["abcdef"]) == "abcdef"


def test_one_reverted_line_of_twenty_characters_is_enough() -> None:
    reverted = ["- Always rebase before merge\n- Something else here entirely, and more"]
    assert brings_back("Note: Always rebase before merge, ok", reverted) == "- Always rebase before merge"
    short = ["- Always rebase first\n- Something else here entirely, and more"]  # a 19-character line
    assert brings_back("Note: Always rebase first, ok", short) is None


def test_new_text_that_is_blank_or_holds_nul_is_refused(tmp_path: Path) -> None:
    root = _root(tmp_path)
    for new in (" \n\t", "fine\0text"):
        bad = Proposal(op="append", path="notes/build.md", new=new, evidence=("s1#0",))
        assert check(bad, _shown(), root=root, notes_dir="notes") == [
            "the new text is empty or holds NUL characters"
        ]


def test_a_quote_from_a_reverted_text_counts_from_twelve_characters() -> None:
    assert brings_back("Other words, twelve chars, more", ['Rule: "twelve chars" (s0#1)']) == "twelve chars"
    assert brings_back("Other words, eleven char, more", ['Rule: "eleven char" (s0#1)']) is None


def test_every_reverted_text_is_looked_at_past_a_short_one() -> None:
    assert brings_back("we use abcdef daily", ["abc", "abcdef"]) == "abcdef"


def test_a_replace_without_old_text_is_refused(tmp_path: Path) -> None:
    root = _root(tmp_path)
    for old in (None, ""):
        bad = Proposal(op="replace", path="notes/build.md", old=old, new='"uv sync"', evidence=("s1#0",))
        reasons = check(bad, _shown(), root=root, notes_dir="notes")
        assert reasons[0] == "the text to replace occurs 0 times in the note (it must occur exactly once)"


def test_a_symbolic_link_loop_is_refused_on_every_python(tmp_path: Path) -> None:
    root = _root(tmp_path)
    os.symlink("loop", root / "notes" / "loop")
    assert "cannot be resolved" in path_problems("notes/loop/x.md", root, "notes")[0]
    assert "cannot be resolved" in path_problems("notes/loop/deeper/x.md", root, "notes")[0]


def test_paths_that_sort_before_the_notes_dir_or_decode_low_are_refused(tmp_path: Path) -> None:
    root = _root(tmp_path)
    assert "not under notes/" in path_problems("docs/a.md", root, "notes")[0]
    assert "percent-encoded" in path_problems("notes/%20x.md", root, "notes")[0]
    assert "surrounding spaces" in path_problems(" notes/build.md", root, "notes")[0]


def test_reverted_text_thresholds_hold_above_them_too() -> None:
    reverted = ["Always run the linter twice before every push to main."]
    assert brings_back("the linter twice before every", reverted) == reverted[0]  # 29 characters
    twenty = ["- Always rebase before\n- Something else here entirely, and more"]  # a 20-character line
    assert brings_back("Note: Always rebase before, ok", twenty) == "- Always rebase before"


def test_a_replacement_equal_to_its_old_text_is_refused_whatever_object_holds_it(tmp_path: Path) -> None:
    root = _root(tmp_path)
    old = "Run make test."
    same = "".join(["Run make ", "test."])  # equal, but another string object
    bad = Proposal(op="replace", path="notes/build.md", old=old, new=same, evidence=("s1#0",))
    assert "the replacement equals the text it replaces" in check(bad, _shown(), root=root, notes_dir="notes")
