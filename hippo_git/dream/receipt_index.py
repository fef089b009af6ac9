"""A cache of the receipts notes, so lookups cost what they ask for rather than all of history.

`refs/notes/hippo/receipts` is the contract; this SQLite file in the repository's git dir
(`.git/hippo/team-cache.sqlite`) only remembers where each receipt is. It is keyed by the notes
ref's tip: when the tip moves, only the notes that changed between the old and the new tip are
read again (a tree diff), so a team's year of receipts is parsed once per clone, not per call.
Deleting the file is always safe; the next lookup rebuilds it. Each receipt line is validated as
it enters, so what the cache returns is what `list_receipts` would have: well-formed receipts.

The same file remembers which proposal ids a target branch already holds (`applied_ids`), walked
once and then only from the last tip seen, for `doctor`'s look at every proposals branch.
"""

from __future__ import annotations

import contextlib
import json
import sqlite3
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

from pydantic import ValidationError

from hippo_git.dream.proposals import run_proposal_ids
from hippo_git.dream.receipts import ReceiptBook, ReceiptEntry
from hippo_git.dream.records import RECEIPTS_REF, Receipt, parse_receipts, parse_trailers
from hippo_git.git import scan
from hippo_git.git.objects import GitStore
from hippo_git.index.db import migrate

CACHE_FILE = "hippo/team-cache.sqlite"
BUSY_TIMEOUT_MS = 10_000

# Named migrations, applied in order, each once; a shipped one is never edited.
MIGRATIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "0001-receipts",
        (
            "CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL)",
            # One row per distinct (note, proposal, commit, kind, verdict): where a receipt is and
            # what it says, not its text (that stays in git and is read from the note when asked).
            """CREATE TABLE receipts(
                on_commit TEXT NOT NULL,
                proposal TEXT NOT NULL,
                commit_sha TEXT NOT NULL,
                kind TEXT NOT NULL,
                verdict TEXT NOT NULL,
                UNIQUE(on_commit, proposal, commit_sha, kind, verdict)
            )""",
            "CREATE INDEX receipts_proposal ON receipts(proposal)",
            "CREATE INDEX receipts_commit ON receipts(commit_sha)",
            "CREATE TABLE applied(branch TEXT NOT NULL, proposal TEXT NOT NULL, PRIMARY KEY(branch, proposal))",
        ),
    ),
    (
        "0002-run-commits",
        ("CREATE TABLE runs(run TEXT PRIMARY KEY, tip TEXT NOT NULL, commits TEXT NOT NULL)",),
    ),
)


@dataclass(frozen=True)
class ReceiptRow:
    """The facts of a receipt that status views need, without building the record."""

    on: str
    proposal: str
    commit: str
    kind: str
    verdict: str


def _connect(path: Path | None) -> sqlite3.Connection:
    conn = sqlite3.connect(":memory:" if path is None else str(path), timeout=BUSY_TIMEOUT_MS / 1000)
    conn.isolation_level = None  # explicit transactions below
    conn.execute(f"PRAGMA busy_timeout={BUSY_TIMEOUT_MS}")
    if path is not None:
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute("PRAGMA synchronous=NORMAL")  # a cache: losing the last write costs a rebuild
    migrate(conn, MIGRATIONS)
    return conn


def open_cache(store: GitStore) -> sqlite3.Connection:
    """The cache file of this repository, created on first use; an in-memory one when the git dir
    cannot hold it (read-only checkout) or the file is damaged (it is rebuilt, never trusted)."""
    path = scan.common_dir(store) / CACHE_FILE
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        return _connect(path)
    except sqlite3.DatabaseError:
        with contextlib.suppress(OSError):
            path.unlink()
        try:
            return _connect(path)
        except sqlite3.Error:
            return _connect(None)
    except (OSError, sqlite3.Error):
        return _connect(None)


def _rows(on: str, text: str) -> Iterator[tuple[str, str, str, str, str]]:
    for line in text.splitlines():
        line = line.strip()
        if not line.startswith("{"):
            continue
        try:
            r = Receipt.model_validate_json(line)
        except ValidationError:
            continue
        yield on, r.proposal, r.commit, r.kind, r.verdict


@contextlib.contextmanager
def _transaction(conn: sqlite3.Connection) -> Iterator[None]:
    conn.execute("BEGIN IMMEDIATE")
    try:
        yield
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    conn.execute("COMMIT")


def _meta(conn: sqlite3.Connection, key: str) -> str | None:
    row = conn.execute("SELECT value FROM meta WHERE key = ?", (key,)).fetchone()
    return None if row is None else str(row[0])


def _set_meta(conn: sqlite3.Connection, key: str, value: str | None) -> None:
    if value is None:
        conn.execute("DELETE FROM meta WHERE key = ?", (key,))
    else:
        conn.execute("INSERT OR REPLACE INTO meta(key, value) VALUES (?, ?)", (key, value))


class ReceiptIndex:
    """Receipts by commit and by proposal id, read from the cache brought up to the ref's tip."""

    def __init__(self, store: GitStore, conn: sqlite3.Connection | None = None) -> None:
        self.store = store
        self.conn = conn or open_cache(store)
        self.refresh()

    @classmethod
    def open(cls, repo_root: Path, *, store: GitStore | None = None) -> ReceiptIndex:
        return cls(store or GitStore(repo_root))

    def close(self) -> None:
        self.conn.close()

    def refresh(self) -> None:
        """Bring the cache to the receipts ref's current tip, reading only the notes that changed."""
        tip = self.store.ref_target(RECEIPTS_REF)
        if _meta(self.conn, "receipts_tip") == tip:
            return
        with _transaction(self.conn):
            seen = _meta(self.conn, "receipts_tip")  # again, under the write lock
            if seen == tip:
                return
            if seen is None or tip is None or not scan.has_commit(self.store, seen):
                self.conn.execute("DELETE FROM receipts")
                seen = None
            if tip is not None:
                changed = list(scan.note_changes(self.store, seen, tip))
                if seen is not None:
                    self.conn.executemany(
                        "DELETE FROM receipts WHERE on_commit = ?", [(on,) for on, _ in changed]
                    )
                self.conn.executemany(
                    "INSERT OR IGNORE INTO receipts VALUES (?, ?, ?, ?, ?)",
                    (row for on, text in changed if text is not None for row in _rows(on, text)),
                )
            _set_meta(self.conn, "receipts_tip", tip)

    # --- lookups --------------------------------------------------------------------------------

    def _entries(
        self, where: str, args: tuple[str, ...], keep: Callable[[str, Receipt], bool]
    ) -> list[ReceiptEntry]:
        """The receipts, read from their notes, on every note the cache says holds a match."""
        found = []
        ons = [
            r[0] for r in self.conn.execute(f"SELECT DISTINCT on_commit FROM receipts WHERE {where}", args)
        ]
        for on in ons:
            for receipt in parse_receipts(self.store.note_text(RECEIPTS_REF, on) or ""):
                if keep(on, receipt):
                    found.append(ReceiptEntry(on=on, receipt=receipt))
        return found

    def for_commit(self, commit: str) -> list[ReceiptEntry]:
        """Receipts on `commit`'s note or naming it."""
        return self._entries(
            "on_commit = ? OR commit_sha = ?", (commit, commit), lambda on, r: commit in (on, r.commit)
        )

    def for_proposal(self, proposal: str) -> list[ReceiptEntry]:
        return self._entries("proposal = ?", (proposal,), lambda _, r: r.proposal == proposal)

    def book(self, *, proposals: Iterable[str] = (), commits: Iterable[str] = ()) -> ReceiptBook:
        """A ReceiptBook holding only the receipts of these proposals and commits."""
        book = ReceiptBook()
        for pid in dict.fromkeys(proposals):
            book.add(self.for_proposal(pid))
        for commit in dict.fromkeys(commits):
            book.add(self.for_commit(commit))
        return book

    def rows(self, proposals: Iterable[str]) -> list[ReceiptRow]:
        """The status facts of every receipt of these proposals (no record validation)."""
        wanted = list(dict.fromkeys(proposals))
        out: list[ReceiptRow] = []
        for start in range(0, len(wanted), 500):
            chunk = wanted[start : start + 500]
            marks = ",".join("?" * len(chunk))
            query = f"SELECT on_commit, proposal, commit_sha, kind, verdict FROM receipts WHERE proposal IN ({marks})"
            out.extend(ReceiptRow(*row) for row in self.conn.execute(query, chunk))
        return out

    def matching(self, prefix: str) -> list[tuple[str, str]]:
        """(proposal id, commit) of receipts whose proposal id or commit starts with `prefix`."""
        hi = prefix + "\uffff"
        rows = self.conn.execute(
            "SELECT DISTINCT proposal, commit_sha FROM receipts WHERE (proposal >= ? AND proposal < ?)"
            " OR (commit_sha >= ? AND commit_sha < ?) OR (on_commit >= ? AND on_commit < ?)",
            (prefix, hi, prefix, hi, prefix, hi),
        )
        return [(str(p), str(c)) for p, c in rows]

    def run_proposal_ids(self, run: str, tip: str) -> list[tuple[str, str]]:
        """`proposals.run_proposal_ids` of a run branch at `tip`, remembered by tip (a run's branch
        rarely moves after its dream, and doctor looks at every run each time)."""
        row = self.conn.execute("SELECT tip, commits FROM runs WHERE run = ?", (run,)).fetchone()
        if row is not None and row[0] == tip:
            return [(str(sha), str(pid)) for sha, pid in json.loads(row[1])]
        found = run_proposal_ids(self.store, run, tip)
        with _transaction(self.conn):
            self.conn.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?)", (run, tip, json.dumps(found)))
        return found

    # --- what a target branch holds -------------------------------------------------------------

    def applied_ids(self, branch: str) -> set[str]:
        """Proposal ids carried by any commit the branch `refs/heads/<branch>` reaches (merged pull
        requests and replays too), walked only from the last tip this cache saw."""
        tip = self.store.ref_target(f"refs/heads/{branch}")
        key = f"applied_tip:{branch}"
        if tip is None:
            return set()
        seen = _meta(self.conn, key)
        if seen != tip:
            with _transaction(self.conn):
                seen = _meta(self.conn, key)
                if seen is not None and not (
                    scan.has_commit(self.store, seen) and self.store.is_ancestor(seen, tip)
                ):
                    self.conn.execute("DELETE FROM applied WHERE branch = ?", (branch,))
                    seen = None  # the branch was rewound or rewritten: walk it again
                if seen != tip:
                    ids = (
                        (branch, trailers.proposal)
                        for _, message in scan.new_commit_messages(self.store, tip, seen)
                        if "Hippo-Proposal:" in message and (trailers := parse_trailers(message))
                    )
                    self.conn.executemany("INSERT OR IGNORE INTO applied VALUES (?, ?)", ids)
                    _set_meta(self.conn, key, tip)
        return {
            str(r[0]) for r in self.conn.execute("SELECT proposal FROM applied WHERE branch = ?", (branch,))
        }
