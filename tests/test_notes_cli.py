"""`git hippo notes list|show|links|lint` on real repositories, text and --json."""

from __future__ import annotations

import json
from pathlib import Path

from hippo_git.config import load_config
from hippo_git.notes.lint import lint_counts, lint_notes
from hippo_git.notes.notes_index import open_notes_index, refresh
from tests.conftest import git, make_repo, run_cli

NOTES = {
    "notes/index.md": "---\ntitle: Index\n---\n# Index\nStart: [[Build]], [[ops/deploy|deploying]].\n",
    "notes/build.md": "# Build\nRun make. Then [[deploy]] (ambiguous) and [[Nowhere]].\n",
    "notes/ops/deploy.md": "---\ntitle: Deploy to production\n---\nArgo. Back to [[build]].\n",
    "notes/dev/deploy.md": "# Deploy locally\n[[Build]]\n",
    "notes/lonely.md": "# Lonely\nNo links at all.\n",
    "notes/broken-front.md": "---\ntitle: Oops: colon\n---\n[[build]]\n",
    "notes/twin-a.md": "# Twin\n[[build]]\n",
    "notes/twin-b.md": "# Twin\n[[build]]\n",
}


def _repo(tmp_path: Path, notes: dict[str, str] = NOTES, toml: str = "[notes]\nmax_bytes = 60\n") -> Path:
    files = dict(notes)
    files[".hippo/hippo.toml"] = toml
    return make_repo(tmp_path / "repo", files=files)


def test_notes_list_json_has_titles_links_and_last_change(tmp_path: Path, hippo) -> None:
    repo = _repo(tmp_path)
    (repo / "notes/uncommitted.md").write_text("# Fresh\n[[lonely]]\n")
    with (repo / "notes/build.md").open("a") as fh:
        fh.write("More about building.\n")
    git(repo, "commit", "-qam", "edit build")
    result = hippo(["notes", "list", "--json"], cwd=repo)
    assert result.exit_code == 0, result.output
    rows = {r["path"]: r for r in json.loads(result.stdout)}
    assert len(rows) == 9
    assert rows["notes/index.md"]["title"] == "Index" and rows["notes/index.md"]["links_out"] == 2
    assert rows["notes/build.md"]["links_in"] == 6 and rows["notes/build.md"]["links_out"] == 0
    change = rows["notes/build.md"]["last_change"]
    assert (
        change["subject"] == "edit build"
        and change["date"].startswith("2026-01-02")
        and len(change["commit"]) == 40
    )
    assert rows["notes/index.md"]["last_change"]["subject"] == "initial"
    assert rows["notes/uncommitted.md"]["last_change"] is None
    text = hippo(["notes", "list"], cwd=repo)
    assert "Deploy to production" in text.stdout and "uncommitted" in text.stdout


def test_notes_show_by_path_stem_or_title(tmp_path: Path, hippo) -> None:
    repo = _repo(tmp_path)
    for name in ("notes/ops/deploy.md", "ops/deploy", "deploy to PRODUCTION"):
        result = hippo(["notes", "show", name, "--json"], cwd=repo)
        assert result.exit_code == 0, result.output
        shown = json.loads(result.stdout)
        assert shown["path"] == "notes/ops/deploy.md" and shown["body"] == "Argo. Back to [[build]].\n"
    plain = hippo(["notes", "show", "build"], cwd=repo)
    assert plain.stdout.startswith("# Build\n")
    ambiguous = hippo(["notes", "show", "deploy"], cwd=repo)
    assert ambiguous.exit_code == 1 and "notes/dev/deploy.md, notes/ops/deploy.md" in ambiguous.stderr
    missing = hippo(["notes", "show", "buidl"], cwd=repo)
    assert (
        missing.exit_code == 1
        and "no note named 'buidl'" in missing.stderr
        and "notes/build.md" in missing.stderr
    )


def test_notes_links_in_and_out(tmp_path: Path, hippo) -> None:
    repo = _repo(tmp_path)
    result = hippo(["notes", "links", "build", "--json"], cwd=repo)
    links = json.loads(result.stdout)
    assert links["path"] == "notes/build.md"
    assert links["out"] == [
        {
            "target": "deploy",
            "line": 2,
            "status": "ambiguous",
            "candidates": ["notes/dev/deploy.md", "notes/ops/deploy.md"],
        },
        {"target": "Nowhere", "line": 2, "status": "broken"},
    ]
    assert links["in"] == sorted(
        [
            "notes/index.md",
            "notes/ops/deploy.md",
            "notes/dev/deploy.md",
            "notes/broken-front.md",
            "notes/twin-a.md",
            "notes/twin-b.md",
        ]
    )
    text = hippo(["notes", "links", "index"], cwd=repo).stdout
    assert "[[ops/deploy]] line 5: ok notes/ops/deploy.md" in text


def test_notes_lint_reports_every_kind_and_exits_1_on_errors(tmp_path: Path, hippo) -> None:
    repo = _repo(tmp_path)
    result = hippo(["notes", "lint", "--json"], cwd=repo)
    assert result.exit_code == 1
    report = json.loads(result.stdout)
    kinds = {(i["kind"], i["path"]) for i in report["issues"]}
    assert ("broken_link", "notes/build.md") in kinds
    assert ("ambiguous_link", "notes/build.md") in kinds
    assert ("front_matter", "notes/broken-front.md") in kinds
    assert ("orphan", "notes/lonely.md") in kinds and ("orphan", "notes/index.md") not in kinds
    assert ("oversized", "notes/index.md") in kinds  # max_bytes = 60
    assert ("duplicate_title", "notes/twin-a.md") in kinds and ("duplicate_title", "notes/twin-b.md") in kinds
    counts = report["counts"]
    assert (counts["errors"], counts["broken_link"], counts["ambiguous_link"], counts["front_matter"]) == (
        3,
        1,
        1,
        1,
    )
    assert counts["notes"] == 8
    errors_first = [i["severity"] for i in report["issues"]]
    assert errors_first == sorted(errors_first)  # "error" < "warning"
    text = hippo(["notes", "lint"], cwd=repo)
    assert "notes/build.md:2: error: broken_link: [[Nowhere]] matches no note" in text.stdout
    assert "8 notes: 3 errors" in text.stderr
    # The cached counts for the context block agree with the full report.
    cfg = load_config(repo)
    conn = open_notes_index(cfg)
    try:
        refresh(conn, cfg)
        assert lint_counts(cfg, conn) == lint_notes(cfg).counts() == lint_counts(cfg, conn)
    finally:
        conn.close()


def test_notes_lint_warnings_only_exit_0_and_missing_context_note(tmp_path: Path) -> None:
    notes = {"notes/index.md": "# Index\n[[a]]\n", "notes/a.md": "# A\n", "notes/b.md": "# B\n"}
    repo = _repo(tmp_path, notes, toml='[context]\nrequired = ["gone.md"]\n')
    proc = run_cli(["notes", "lint", "--json"], cwd=repo)
    assert proc.returncode == 0, proc.stderr
    issues = json.loads(proc.stdout)["issues"]
    assert {(i["kind"], i["path"]) for i in issues} == {
        ("orphan", "notes/b.md"),
        ("missing_context_note", "notes/gone.md"),
    }


def test_notes_commands_in_an_empty_workspace(tmp_path: Path, hippo) -> None:
    repo = make_repo(tmp_path / "repo")
    listed = hippo(["notes", "list", "--json"], cwd=repo)
    assert listed.exit_code == 0 and json.loads(listed.stdout) == []
    lint = hippo(["notes", "lint", "--json"], cwd=repo)
    assert lint.exit_code == 0
    assert [i["kind"] for i in json.loads(lint.stdout)["issues"]] == ["missing_context_note"]
