"""`capture`, `learn --git`, `watch-cmd`: memories found by patterns, with no model, proposed.

What a pattern finds in a conversation, a commit log or a failed command was judged by nobody,
so like an agent's or an import's memory it becomes a proposal commit on the day's memories
run, reviewed (the built-in model's fixed checks when no model is configured) and receipted,
and applied as `dream.apply` says; repeats of kept or waiting memories and rejected values are
reported, not proposed.
"""

from __future__ import annotations

from pathlib import Path

from hippo_git.config import Config
from hippo_git.dream.memory_proposals import ProposedMemory, propose_memories
from hippo_git.errors import HippoError
from hippo_git.memories.service import memories_of


def capture_memories(cfg: Config, text: str, *, dry_run: bool = False) -> list[ProposedMemory]:
    """`capture`: decisions, rules, errors and preferences in raw conversation text."""
    from hippo_git.memories.harvest import find_in_text

    return propose_memories(cfg, memories_of(find_in_text(text), source="capture"), dry_run=dry_run)


def learn_memories(
    cfg: Config, repos: list[Path], days: int, *, dry_run: bool = False
) -> list[ProposedMemory]:
    """`learn --git`: lessons from the fix, revert and bug commits of the last `days` days."""
    from hippo_git.memories.harvest import Found, lessons_from_git

    found: list[Found] = []
    for repo in repos or [cfg.root]:
        if not (repo / ".git").exists():
            raise HippoError(
                f"not a git repository: {repo}", hint="give --repo the top folder of a repository"
            )
        found += lessons_from_git(repo, days)
    memories = memories_of(found, source="learn:git", extra_tags=("git",))
    return propose_memories(cfg, memories, dry_run=dry_run)


def watch_memories(
    cfg: Config, argv: list[str], *, to_stderr: bool = False
) -> tuple[int, ProposedMemory | None]:
    """`watch-cmd`: run the command; when it fails, propose the failure as a memory. (exit status, it)."""
    from hippo_git.memories.harvest import Found, failure_text, run_watched

    run = run_watched(argv, Path.cwd(), to_stderr=to_stderr)
    if run.status == 0:
        return 0, None
    [done] = propose_memories(
        cfg, memories_of([Found("failure", failure_text(run), argv[0])], source="watch-cmd")
    )
    return run.status, done
