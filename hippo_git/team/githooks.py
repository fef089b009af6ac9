"""The git hooks' checks (DESIGN §3, Hooks).

pre-commit looks only at what is staged: it blocks per-person files under `.hippo/`, notes that
contain a secret (named by note and line, the secret never printed) and notes whose front matter
does not parse; it warns on broken `[[links]]`. post-merge never blocks: it re-reads the notes
that changed and lists the dream changes that arrived, warning when a receipt is missing here.
"""

from __future__ import annotations

from pathlib import Path

from hippo_git.config import load_config
from hippo_git.git.repo import discover
from hippo_git.git.staged import index_paths, staged_blobs, staged_changes

# Per-person paths under .hippo/ (DESIGN §1); committing one shares a private record.
PER_PERSON = ("sessions/", "reports/", "inbox/", "dream-state.json", "model-runs/")
ESCAPE = "hippo: (to commit anyway: git commit --no-verify)"


def per_person(paths: list[str]) -> list[str]:
    return [p for p in paths if p.startswith(".hippo/") and p.removeprefix(".hippo/").startswith(PER_PERSON)]


def check_staged(root: Path) -> tuple[list[str], list[str]]:
    """(errors, warnings) for the staged changes of the repository at `root`."""
    from hippo_git.notes.graph import broken_links
    from hippo_git.notes.parse import parse_note_text
    from hippo_git.transcripts.redact import find_secrets

    cfg = load_config(root)
    notes_dir = cfg.notes_dir.strip("/")
    staged = staged_changes(root)
    errors: list[str] = []
    private = per_person(staged)
    if private:
        errors += [f"hippo: {p} is a per-person file and must not be committed" for p in private]
        errors.append("hippo: unstage with: git rm --cached " + " ".join(private))
    note_paths = [p for p in staged if p.startswith(notes_dir + "/") and p.endswith(".md")]
    notes = []
    for path, blob in staged_blobs(root, note_paths).items():
        text = blob.decode("utf-8", errors="replace")
        for line, kind in find_secrets(text):
            errors.append(f"hippo: {path}:{line}: looks like a secret ({kind}); remove it from the note")
        note = parse_note_text(text, path, notes_dir)
        if note.front_error:
            errors.append(f"hippo: {path}: front matter does not parse: {note.front_error}")
        notes.append(note)
    warnings: list[str] = []
    if notes:
        known = [p for p in index_paths(root, notes_dir) if p.endswith(".md")]
        for problem in broken_links(notes, [*notes, *known], notes_dir):
            warnings.append(
                f"hippo: warning: {problem.path}:{problem.line}: {problem.kind} link [[{problem.target}]]"
            )
    return errors, warnings


def pre_commit(cwd: Path, argv: list[str]) -> tuple[int, str, str]:
    root = discover(cwd).workdir
    errors, warnings = check_staged(root)
    lines = warnings + errors + ([ESCAPE] if errors else [])
    return (1 if errors else 0), "", "".join(line + "\n" for line in lines)


def post_merge(cwd: Path, argv: list[str]) -> tuple[int, str, str]:
    """Never blocks and never fails the merge: every problem becomes a warning line."""
    try:
        from hippo_git.team.arrivals import report_arrivals

        lines = report_arrivals(discover(cwd).workdir)
    except Exception as exc:  # the merge has happened; a hook error must not look like a failure
        lines = [f"hippo: post-merge check skipped: {exc}"]
    return 0, "", "".join(line + "\n" for line in lines)
