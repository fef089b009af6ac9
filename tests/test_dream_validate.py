"""Invariant 3: every proposal is checked in code before review; a hostile model gets nothing through."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from hippo_git.dream.evidence import NoteText, PassInput, TurnRef
from hippo_git.dream.records import Proposal
from hippo_git.dream.validate import check, path_problems
from tests.conftest import corpus

NOTE = "# Build\n\nInstall with pip install -e . and keep pip current.\nRun make test.\n"


@pytest.fixture
def root(tmp_path: Path) -> Path:
    (tmp_path / "notes" / "sub").mkdir(parents=True)
    (tmp_path / "notes" / "build.md").write_text(NOTE)
    (tmp_path / "notes" / "sub" / "deep.md").write_text("# Deep\n")
    (tmp_path / ".hippo").mkdir()
    (tmp_path / ".hippo" / "hippo.toml").write_text("")
    (tmp_path / "outside.md").write_text("# not a note\n")
    return tmp_path


def shown(note_text: str = NOTE, reverted: tuple[str, ...] = ()) -> PassInput:
    return PassInput(
        notes=(NoteText("notes/build.md", note_text, "0" * 40, ("s1",)),),
        turns=(TurnRef("s1", 0, "prompt", "We moved to uv: install with uv pip install -e . from now on."),),
        reverted={"notes/build.md": reverted},
    )


def append(
    path: str = "notes/build.md", new: str = "- Rule: use uv\n", evidence: tuple[str, ...] = ("s1#0",)
) -> Proposal:
    return Proposal(op="append", path=path, new=new, evidence=evidence, pass_name="core/facts")


def test_a_good_append_and_a_good_replace_pass(root: Path) -> None:
    assert check(append(), shown(), root=root, notes_dir="notes") == []
    replace = Proposal(
        op="replace",
        path="notes/build.md",
        old="Install with pip install -e .",
        new='Install with "uv pip install -e ."',
        evidence=("s1#0",),
    )
    assert check(replace, shown(), root=root, notes_dir="notes") == []


def test_every_traversal_string_is_refused(root: Path) -> None:
    lines = corpus("hostile", "traversal-dev.txt").read_text(encoding="utf-8", errors="replace").splitlines()
    payloads = [ln for ln in lines if ln]
    assert len(payloads) >= 100
    for payload in payloads:
        for path in (payload, f"notes/{payload}", f"notes/{payload}.md", f"{payload}/notes/x.md"):
            assert path_problems(path, root, "notes"), path
            reasons = check(append(path=path), shown(), root=root, notes_dir="notes")
            assert reasons, path


@pytest.mark.parametrize(
    ("path", "why"),
    [
        ("/etc/passwd", "not relative"),
        ("~/notes/a.md", "not relative"),
        ("C:/notes/a.md", "not relative"),
        ("notes/C:/a.md", "Windows forbids"),
        ("notes/a.md:stream", "Windows forbids"),
        ("notes/../outside.md", "'..'"),
        ("notes/./build.md", "'..' or '.'"),
        ("notes//build.md", "empty component"),
        ("notes\\build.md", "backslash"),
        ("notes/%2e%2e/outside.md", "percent-encoded"),
        (".hippo/hippo.toml", ".hippo/"),
        ("notes/.hippo/x.md", ".hippo/"),
        ("notes/.secret.md", "hidden"),
        ("notes/.git/config.md", "hidden"),
        ("notes/build.txt", "not a .md file"),
        ("notes/build.MD", "not a .md file"),
        ("notes/.md", "hidden"),
        ("notes", "not under notes/"),
        ("README.md", "not under notes/"),
        ("notesx/a.md", "not under notes/"),
        ("notes/build.md\n", "spaces"),
        ("notes/bu\u200bild.md", "invisible"),
        ("notes/a\0.md", "control"),
    ],
)
def test_path_rules(root: Path, path: str, why: str) -> None:
    reasons = path_problems(path, root, "notes")
    assert reasons and why in reasons[0], (path, reasons)


def test_symlinks_out_of_notes_dir_are_refused(root: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "evil.md").write_text("# evil\n")
    os.symlink(elsewhere, root / "notes" / "linked")
    os.symlink(elsewhere / "evil.md", root / "notes" / "evil.md")
    os.symlink(root / ".hippo", root / "notes" / "conf")
    os.symlink(root / "notes" / "build.md", root / "notes" / "alias.md")
    assert "symbolic link" in path_problems("notes/linked/evil.md", root, "notes")[0]
    assert "symbolic link" in path_problems("notes/evil.md", root, "notes")[0]
    assert "symbolic link" in path_problems("notes/conf/hippo.md", root, "notes")[0]
    assert "is a symbolic link" in path_problems("notes/alias.md", root, "notes")[0]
    assert path_problems("notes/sub/deep.md", root, "notes") == []


def test_a_notes_dir_that_is_a_link_out_of_the_repository_is_refused(
    root: Path, tmp_path_factory: pytest.TempPathFactory
) -> None:
    elsewhere = tmp_path_factory.mktemp("elsewhere2")
    (elsewhere / "a.md").write_text("# a\n")
    os.symlink(elsewhere, root / "docs")
    assert "outside the repository" in path_problems("docs/a.md", root, "docs")[0]


def test_note_must_have_been_in_the_prompt(root: Path) -> None:
    assert check(append(path="notes/sub/deep.md"), shown(), root=root, notes_dir="notes") == [
        "the note was not in the prompt"
    ]
    assert check(append(path="notes/nope.md"), shown(), root=root, notes_dir="notes") == [
        "the note was not in the prompt and does not exist"
    ]


def test_invented_and_malformed_evidence_is_refused(root: Path) -> None:
    reasons = check(
        append(evidence=("s1#0", "s1#7", "s2#0", "nonsense")), shown(), root=root, notes_dir="notes"
    )
    assert reasons == [
        "evidence s1#7 was not in the prompt",
        "evidence s2#0 was not in the prompt",
        "evidence 'nonsense' is not of the form <session>#<turn>",
    ]


def test_replace_must_name_unique_text_and_quote_evidence(root: Path) -> None:
    not_unique = Proposal(
        op="replace", path="notes/build.md", old="pip", new='"uv pip install -e ."', evidence=("s1#0",)
    )
    assert "occurs 2 times" in check(not_unique, shown(), root=root, notes_dir="notes")[0]
    missing = Proposal(
        op="replace",
        path="notes/build.md",
        old="no such text",
        new='"uv pip install -e ."',
        evidence=("s1#0",),
    )
    assert "occurs 0 times" in check(missing, shown(), root=root, notes_dir="notes")[0]
    unquoted = Proposal(
        op="replace",
        path="notes/build.md",
        old="Run make test.",
        new="Run uv run pytest.",
        evidence=("s1#0",),
    )
    assert check(unquoted, shown(), root=root, notes_dir="notes") == [
        "the replacement does not quote its evidence verbatim"
    ]
    invented_quote = Proposal(
        op="replace",
        path="notes/build.md",
        old="Run make test.",
        new='"we never use make"',
        evidence=("s1#0",),
    )
    assert check(invented_quote, shown(), root=root, notes_dir="notes") == [
        "the replacement does not quote its evidence verbatim"
    ]


def test_oversized_changes_are_refused(root: Path) -> None:
    big_note = "# Big\n" + "word " * 400  # ~2 KB: limit is half of it
    reasons = check(append(new="x" * 1500), shown(big_note), root=root, notes_dir="notes")
    assert reasons and "more than half the note" in reasons[0]
    assert check(append(new="x" * 900), shown(big_note), root=root, notes_dir="notes") == []
    small = check(append(new="y" * 700), shown(), root=root, notes_dir="notes")  # small notes: 600 bytes
    assert small and "limit 600 bytes" in small[0]


def test_ops_the_pass_does_not_allow_are_refused(root: Path) -> None:
    assert check(append(), shown(), root=root, notes_dir="notes", ops=("replace",)) == [
        "this pass may not append"
    ]


def test_text_a_human_reverted_cannot_come_back(root: Path) -> None:
    reverted = ('- Rule: "Always run the linter twice before pushing." (s0#1)\n',)
    again = append(new='- Rule: "Always run the linter twice before pushing." (s1#0)\n')
    reasons = check(again, shown(reverted=reverted), root=root, notes_dir="notes")
    assert reasons and "brings back text a human reverted" in reasons[0]
    assert (
        check(
            append(new="- Rule: something else entirely\n"),
            shown(reverted=reverted),
            root=root,
            notes_dir="notes",
        )
        == []
    )
