"""The git hooks' checks (DESIGN §3, Hooks).

pre-commit looks only at what is staged: it blocks per-person files under `.hippo/`, notes that
contain a secret (named by note and line, the secret never printed) and notes whose front matter
does not parse; it warns on broken `[[links]]`. post-merge never blocks: it re-reads the notes
that changed and lists the dream changes that arrived, warning when a receipt is missing here.

Every commit waits for pre-commit, so its path imports neither `pathlib`, `subprocess` nor
`dataclasses` (paths are strings; git runs through `git.spawn`; only notes_dir is read from the
config), and the redactor only for a note that could hold a secret (`redact_pregate`).
"""

from __future__ import annotations

import os

from hippo_git.config_files import workspace_notes_dir
from hippo_git.git.staged import (
    PendingPaths,
    index_paths,
    staged_blobs,
    staged_entries,
    title_lines,
    worktree_top,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing (type checkers read the name)
if TYPE_CHECKING:
    from hippo_git.notes.parse import Link, Note


StrPath = str | os.PathLike[str]

# Per-person paths under .hippo/ (DESIGN §1): ignored by git (init's .hippo/.gitignore), blocked
# here, checked by doctor. Kept in this light module: the pre-commit hook must not load pydantic.
PER_PERSON = ("sessions/", "reports/", "inbox/", "dream-state.json", "model-runs/")
ESCAPE = "hippo: (to commit anyway: git commit --no-verify)"


def per_person(paths: list[str]) -> list[str]:
    return [p for p in paths if p.startswith(".hippo/") and p.removeprefix(".hippo/").startswith(PER_PERSON)]


def check_staged(root: StrPath) -> tuple[list[str], list[str]]:
    """(errors, warnings) for the staged changes of the repository at `root`."""
    notes_dir = workspace_notes_dir(root).strip("/")
    ids = staged_entries(root)
    staged = list(ids)
    errors: list[str] = []
    private = per_person(staged)
    if private:
        errors += [f"hippo: {p} is a per-person file and must not be committed" for p in private]
        errors.append("hippo: unstage with: git rm --cached " + " ".join(private))
    note_paths = [p for p in staged if p.startswith(notes_dir + "/") and p.endswith(".md")]
    if not note_paths:  # most commits of a code repository: no parser, no second git process
        return errors, []
    from hippo_git.notes.parse import parse_note_text
    from hippo_git.transcripts.redact_pregate import may_hold_secret

    # git lists the notes being committed while the staged ones are read and checked here
    known = PendingPaths(root, notes_dir)
    notes = []
    for path, blob in staged_blobs(root, note_paths, ids).items():
        text = blob.decode("utf-8", errors="replace")
        for line, kind in _secrets(text) if may_hold_secret(text) else ():
            errors.append(f"hippo: {path}:{line}: looks like a secret ({kind}); remove it from the note")
        note = parse_note_text(text, path, notes_dir)
        if note.front_error:
            errors.append(f"hippo: {path}: front matter does not parse: {note.front_error}")
        notes.append(note)
    warnings = [
        f"hippo: warning: {note.path}:{link.line}: {status} link [[{link.target}]]"
        for note, link, status in link_problems(root, notes, notes_dir, known)
    ]
    return errors, warnings


def _secrets(text: str) -> list[tuple[int, str]]:
    from hippo_git.transcripts.redact import find_secrets  # its tables take longer to load than a check

    return find_secrets(text)


def link_problems(
    root: StrPath, notes: list[Note], notes_dir: str, known: PendingPaths | None = None
) -> list[tuple[Note, Link, str]]:
    """(note, link, "broken" | "ambiguous") for each link of the staged `notes` that does not resolve
    in the tree being committed.

    Unchanged notes are known by path only (reading 5,000 notes would make every commit slow), so a
    link that finds nothing by path or name may still name an unchanged note by its title: only
    then are the notes whose title line could match found with one `git grep` and read from the index.
    """
    from hippo_git.notes.resolve import Resolver  # (not through notes.graph: it loads dataclasses)

    listing = known.output() if known is not None else None  # always reaped, even when unused
    if not notes:
        return []
    # Only a note whose file name reads like a target's last part can be found by path or name: the
    # resolver is built from those (a fraction of 5,000 paths), which gives the same answers.
    wanted = {_squash(t.strip().lstrip("/").removesuffix(".md").rsplit("/", 1)[-1]) for t in _targets(notes)}
    if listing is not None:
        candidates = named_like(listing, wanted)
    else:
        candidates = named_like_each(index_paths(root, notes_dir), wanted)
    resolver = Resolver([*notes, *candidates], notes_dir)
    found = [(note, link, resolver.resolve(link.target).status) for note in notes for link in note.links]
    missing = sorted({link.target for _, link, status in found if status == "broken"})
    titled = _titled_notes(root, missing, notes_dir, {n.path for n in notes}) if missing else []
    if titled:
        # a target broken against every path and name can now match only a title of these notes
        by_title = Resolver(titled, notes_dir)
        found = [
            (note, link, by_title.resolve(link.target).status if status == "broken" else status)
            for note, link, status in found
        ]
    return [(note, link, status) for note, link, status in found if status != "ok"]


_SEPARATORS = str.maketrans({"-": " ", "_": " "})


def _squash(text: str) -> str:
    """`notes.resolve.normalise` without spaces: equal normalised names have equal squashed names."""
    return "".join(text.lower().translate(_SEPARATORS).split())


def named_like_each(paths: list[str], wanted: set[str]) -> list[str]:
    """The `.md` paths whose file name (less `.md`) squashes to one of `wanted`."""
    return [
        p for p in paths if p.endswith(".md") and _squash(p.rsplit("/", 1)[-1].removesuffix(".md")) in wanted
    ]


# The ASCII characters `_squash` drops: the separators, and what `str.split()` takes for blanks.
_DROPPED = b"-_ \t\n\r\x0b\x0c\x1c\x1d\x1e\x1f"


def named_like(listing: bytes, wanted: set[str], few: int = 12) -> list[str]:
    """`named_like_each` on the paths of a `git ls-files -z` listing, looked for in the listing
    whole: squashed at once (lowercased, `_DROPPED` deleted; NULs and slashes stay, so the n-th
    path is still the n-th), then each of `few` or fewer names found with `bytes.find` as a whole
    file name, or more names looked up path by path in a set. Squashing 5,000 names in Python
    cost each commit several ms. A listing that is not ASCII goes path by path."""
    if not listing.isascii():
        return named_like_each([os.fsdecode(p) for p in listing.split(b"\0") if p], wanted)
    names = {w.encode("ascii") for w in wanted if w.isascii()}  # (an ASCII name squashes to ASCII)
    if not names or not listing:
        return []
    paths = listing.split(b"\0")
    # a NUL before the first path and after the last: every file name then sits between a NUL or a
    # slash and `.md` and a NUL
    squashed = b"\0" + listing.lower().translate(None, _DROPPED) + (b"" if listing.endswith(b"\0") else b"\0")
    if len(names) > few:
        ends = (p.rsplit(b"/", 1)[-1] for p in squashed[1:].split(b"\0"))
        index = [i for i, end in enumerate(ends) if end.endswith(b".md") and end[:-3] in names]
    else:
        starts = set()
        for name in names:
            for needle in (b"\0" + name + b".md\0", b"/" + name + b".md\0"):
                at = squashed.find(needle)
                while at != -1:
                    starts.add(at + 1)
                    at = squashed.find(needle, at + 1)
        index, count, last = [], 0, 0
        for start in sorted(starts):
            count += squashed.count(b"\0", last, start)
            last = start
            index.append(count - 1)  # (the first NUL is the one put before the first path)
    # (`x.m-d` squashes to `x.md`: the name as listed must end in `.md` too)
    return [paths[i].decode("ascii") for i in index if paths[i].endswith(b".md")]


def _targets(notes: list[Note]) -> set[str]:
    return {link.target for note in notes for link in note.links}


def _titled_notes(root: StrPath, targets: list[str], notes_dir: str, staged: set[str]) -> list[Note]:
    """The unchanged notes (as staged) whose title line reads as one of `targets`, parsed.

    Lines are matched as the resolver compares (case, spaces, `-` and `_` alike); the notes found
    are then parsed, so only a real title (front matter, else the first `# heading`) counts.
    """
    from hippo_git.notes.parse import parse_note_text
    from hippo_git.notes.resolve import normalise

    keys = {normalise(t.removesuffix(".md")) for t in targets}
    paths = set()
    for path, line in title_lines(root, notes_dir):
        text = line[6:] if line.startswith("title:") else line.lstrip("#").rstrip("# \t")
        if path not in staged and path.endswith(".md") and normalise(text.strip().strip("\"'")) in keys:
            paths.add(path)
    return [
        parse_note_text(blob.decode("utf-8", errors="replace"), path, notes_dir)
        for path, blob in staged_blobs(root, sorted(paths)).items()
    ]


def pre_commit(cwd: StrPath, argv: list[str]) -> tuple[int, str, str]:
    errors, warnings = check_staged(worktree_top(cwd))
    lines = warnings + errors + ([ESCAPE] if errors else [])
    return (1 if errors else 0), "", "".join(line + "\n" for line in lines)


def post_merge(cwd: StrPath, argv: list[str]) -> tuple[int, str, str]:
    """Never blocks and never fails the merge: every problem becomes a warning line."""
    try:
        from pathlib import Path

        from hippo_git.git.repo import discover
        from hippo_git.team.arrivals import report_arrivals

        lines = report_arrivals(discover(Path(cwd)).workdir)
    except Exception as exc:  # the merge has happened; a hook error must not look like a failure
        lines = [f"hippo: post-merge check skipped: {exc}"]
    return 0, "", "".join(line + "\n" for line in lines)
