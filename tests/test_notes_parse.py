"""Parsing notes from text: front matter, titles, `[[links]]`; resolving links; the pre-commit API."""

from __future__ import annotations

from hippo_git.notes.graph import Resolver, broken_links, build_graph
from hippo_git.notes.parse import extract_links, link_targets, parse_note_text


def test_front_matter_fast_path_and_yaml_agree() -> None:
    simple = parse_note_text(
        "---\ntitle: Release process\nstatus: draft\n---\n# Other\n", "notes/r.md", "notes"
    )
    assert simple.front == {"title": "Release process", "status": "draft"}
    assert simple.title == "Release process" and simple.front_error is None
    rich = parse_note_text(
        "---\ntitle: 'Deploy: canary'\ntags: [ops, deploy]\nupdated: 2026-01-02\n---\nbody\n",
        "notes/d.md",
        "notes",
    )
    assert rich.front == {"title": "Deploy: canary", "tags": ["ops", "deploy"], "updated": "2026-01-02"}
    assert rich.tags == ["ops", "deploy"] and rich.front_error is None


def test_front_matter_errors_are_reported_not_raised() -> None:
    cases = {
        "---\ntitle: Storage: design\n---\nx\n": "line 2",
        "---\ntitle: [unclosed\n---\nx\n": "not valid YAML",
        "---\n- a list\n---\nx\n": "must be a mapping",
        "---\ntitle: never closed\nbody\n": "never closed",
        "---\ntitle: {a: 1}\n---\nx\n": "must be text",
    }
    for text, expected in cases.items():
        note = parse_note_text(text, "notes/n.md", "notes")
        assert note.front_error is not None and expected in note.front_error, (text, note.front_error)


def test_title_falls_back_to_heading_then_stem() -> None:
    assert parse_note_text("intro\n# Build and test\n", "notes/b.md", "notes").title == "Build and test"
    assert parse_note_text("no heading\n", "notes/dev/how-to.md", "notes").title == "how-to"
    note = parse_note_text("x", "notes/dev/how-to.md", "notes")
    assert note.name == "dev/how-to.md" and note.stem == "how-to"


def test_links_all_forms_outside_code_with_lines() -> None:
    text = (
        "---\ntitle: T\n---\n"
        "See [[Release process]] and [[ops/deploy|the deploy]].\n"
        "Inline `[[not a link]]` and [[Heading note#Section]] and [[#self]].\n"
        "```md\n[[in a fence]]\n```\n"
        "~~~\n[[tilde fence]]\n~~~\n"
        "after [[last]]\n"
    )
    note = parse_note_text(text, "notes/t.md", "notes")
    assert [(link.target, link.label, link.line) for link in note.links] == [
        ("Release process", None, 4),
        ("ops/deploy", "the deploy", 4),
        ("Heading note", None, 5),
        ("last", None, 12),
    ]
    assert link_targets("done; see [[a]], [[b|B]] and [[a]] again") == ["a", "b"]
    assert extract_links("no links here") == ()


def _notes() -> list:
    texts = {
        "notes/index.md": "# Index\n[[Release process]] [[ops/deploy]] [[deploy]] [[Nowhere]] [[setup]]\n",
        "notes/release-process.md": "---\ntitle: Releasing\n---\nsee [[releasing]]\n",
        "notes/ops/deploy.md": "# Deploy to prod\n",
        "notes/dev/deploy.md": "# Deploy locally\n",
        "notes/dev/setup.md": "# Setup\n",
    }
    return [parse_note_text(t, p, "notes") for p, t in texts.items()]


def test_resolution_by_stem_title_path_case_insensitive_and_ambiguity() -> None:
    resolver = Resolver(_notes(), "notes")
    assert resolver.resolve("RELEASE_process").path == "notes/release-process.md"
    assert resolver.resolve("releasing").path == "notes/release-process.md"  # by title
    assert resolver.resolve("Deploy to prod").path == "notes/ops/deploy.md"
    assert resolver.resolve("ops/deploy").path == "notes/ops/deploy.md"
    assert resolver.resolve("notes/dev/deploy.md").path == "notes/dev/deploy.md"
    ambiguous = resolver.resolve("deploy")
    assert ambiguous.status == "ambiguous" and ambiguous.paths == (
        "notes/dev/deploy.md",
        "notes/ops/deploy.md",
    )
    assert resolver.resolve("nowhere").status == "broken"


def test_broken_links_api_for_staged_notes_against_known_paths() -> None:
    notes = _notes()
    problems = broken_links(notes[:1], notes, "notes")
    assert [(p.target, p.kind) for p in problems] == [("deploy", "ambiguous"), ("Nowhere", "broken")]
    assert problems[0].as_dict()["candidates"] == ["notes/dev/deploy.md", "notes/ops/deploy.md"]
    # Known notes given as bare paths resolve by path and stem, not by title.
    staged = [parse_note_text("[[setup]] [[Deploy to prod]] [[ops/deploy]]", "notes/new.md", "notes")]
    known = ["notes/dev/setup.md", "notes/ops/deploy.md"]
    assert [p.target for p in broken_links(staged, known, "notes")] == ["Deploy to prod"]


def test_graph_in_out_and_orphans() -> None:
    graph = build_graph(_notes(), "notes")
    assert graph.out["notes/index.md"] == [
        "notes/release-process.md",
        "notes/ops/deploy.md",
        "notes/dev/setup.md",
    ]
    assert graph.into["notes/ops/deploy.md"] == ["notes/index.md"]
    assert graph.out["notes/release-process.md"] == []  # a self-link is no link
    assert graph.orphans() == ["notes/dev/deploy.md"]
