"""Memories waiting on a proposals branch: recallable at once, marked unreviewed, until applied.

Agents' and imports' memories are proposal commits (made by `dream.memory_proposals`) on
`refs/heads/hippo/proposals/memories-<day>`. This module only reads them: the memory files those
branches add that the work tree does not hold yet, leaving out any a review rejected; one a
review confirmed (waiting on `git hippo apply`) counts as reviewed.
"""

from __future__ import annotations

import json
from pathlib import Path

from hippo_git.config import Config
from hippo_git.memories.recall import Candidate, ProposalSource
from hippo_git.memories.record import Memory, parse_memory, similarity, words
from hippo_git.memories.store import Store, workspace_store

MEMORY_PASS = "core/memories"
MEMORY_RUN_PREFIX = "memories-"
PROPOSALS_PREFIX = "refs/heads/hippo/proposals/"
RECEIPTS_REF = "refs/notes/hippo/receipts"


def _verdicts(note_text: str | None) -> set[str]:
    """The verdicts of the review receipts in a commit's receipts note."""
    found: set[str] = set()
    for line in (note_text or "").splitlines():
        try:
            item = json.loads(line)
        except ValueError:
            continue
        if isinstance(item, dict) and item.get("kind") == "review":
            found.add(str(item.get("verdict")))
    return found


def pending_memories(root: Path, store: Store, target_branch: str) -> list[tuple[Memory, str, bool]]:
    """(memory, commit, confirmed by a review) of each memory proposed but not yet in the work
    tree nor rejected (one confirmed waits for `git hippo apply` when `dream.apply` is
    pull-request)."""
    from hippo_git.git.refscan import has_refs

    if not has_refs(root, PROPOSALS_PREFIX + MEMORY_RUN_PREFIX):
        return []
    from hippo_git.git.objects import GitStore

    git = GitStore(root)
    target = git.ref_target(f"refs/heads/{target_branch}")
    found: dict[str, tuple[Memory, str, bool]] = {}
    for _, tip in git.refs(PROPOSALS_PREFIX + MEMORY_RUN_PREFIX):
        base = git.merge_base(tip, target) if target else None
        for info in git.first_parents(tip, stop=base):
            if len(info.parents) != 1:
                break
            for path in git.changed_paths(info.sha):
                if not path.startswith(store.prefix) or not path.endswith(".md") or path in found:
                    continue
                verdicts = _verdicts(git.note_text(RECEIPTS_REF, info.sha))
                if (root / path).exists() or "reject" in verdicts:
                    continue
                data = git.read_at(info.sha, path)
                if data is not None:
                    memory = parse_memory(data.decode("utf-8", "replace"), path)
                    found[path] = (memory, info.sha, "confirm" in verdicts)
    return list(found.values())


def pending_source(cfg: Config) -> ProposalSource:
    """A recall source over the pending memories, scored by shared words (few, no index needed)."""
    store = workspace_store(cfg)

    def source(query: str, limit: int) -> list[Candidate]:
        wanted = words(query)
        out: list[Candidate] = []
        for memory, _, confirmed in pending_memories(cfg.root, store, cfg.target_branch):
            shared = len(wanted & words(memory.text + " " + " ".join(memory.tags)))
            if shared:
                # On the BM25 scale of the index roughly: a few points per shared word.
                out.append((memory, 2.0 * shared + similarity(query, memory.text), "proposals", confirmed))
        out.sort(key=lambda c: -c[1])
        return out[:limit]

    return source


def changes_waiting(root: Path, store: Store, target_branch: str) -> set[str]:
    """Paths of kept memories with a change (a merge, a tombstone) proposed on a memories run
    that the target branch does not hold yet and no review rejected: sleep leaves them alone
    until that change is applied or rejected, instead of proposing it again every night."""
    from hippo_git.git.refscan import has_refs

    if not has_refs(root, PROPOSALS_PREFIX + MEMORY_RUN_PREFIX):
        return set()
    from hippo_git.git.objects import GitStore

    git = GitStore(root)
    target = git.ref_target(f"refs/heads/{target_branch}")
    if target is None:
        return set()
    waiting: set[str] = set()
    for _, tip in git.refs(PROPOSALS_PREFIX + MEMORY_RUN_PREFIX):
        for info in git.first_parents(tip, stop=git.merge_base(tip, target)):
            if len(info.parents) != 1:
                break
            for path in git.changed_paths(info.sha):
                if not path.startswith(store.prefix) or git.read_at(target, path) is None:
                    continue  # a new memory (pending_memories lists those), not a change
                if "reject" in _verdicts(git.note_text(RECEIPTS_REF, info.sha)):
                    continue
                if git.read_at(target, path) != git.read_at(info.sha, path):
                    waiting.add(path)
    return waiting
