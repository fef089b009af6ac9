"""`git hippo init` and `git hippo hooks uninstall`: set a repository up for hippo, idempotently."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from hippo_git.config import WORKSPACE_FILE, checked_notes_dir, read_toml, workspace_template
from hippo_git.dream.records import RECEIPTS_REF
from hippo_git.files import write_text_atomic
from hippo_git.git import hookfiles
from hippo_git.git.checkout import uncommitted
from hippo_git.git.repo import RepoInfo, config_add, config_set, discover, remotes
from hippo_git.team.githooks import PER_PERSON

GITIGNORE = (
    "# hippo_git: per-person files. These stay on each person's machine; the rest of .hippo/ is shared.\n"
    + "".join(f"{rule}\n" for rule in PER_PERSON)
    + "*.lock\n"
)

ENTRY_NOTE = """\
---
title: Index
---
# Index

This is the entry note of this repository's memory, kept by [hippo_git](https://pypi.org/project/hippo-git/).
Every AI coding agent that starts a session here is handed this note first, together with the
notes listed under `[context] required` in `.hippo/hippo.toml`.

- Notes are Markdown files in this folder. Link them with `[[note name]]`, `[[path/note]]` or
  `[[note|label]]`; `git hippo notes lint` finds broken links and orphans.
- Write down what an agent (or a new teammate) should know before touching this code: how to
  build and test it, conventions, decisions and why they were taken, known traps.
- `git hippo dream` reads recent agent sessions and proposes changes to these notes; each change
  is a commit with a review receipt, and `git hippo revert ID` undoes one.
"""


PRE_COMMIT_CONFIG = ".pre-commit-config.yaml"


def framework_runs_hippo(root: Path) -> bool:
    """The pre-commit framework's config names hippo's hook (id hippo-lint, or its entry)."""
    try:
        text = (root / PRE_COMMIT_CONFIG).read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return False
    return bool(re.search(r"\bid:\s*['\"]?hippo-lint\b", text)) or "git-hippo hook pre-commit" in text


def receipts_fetch_refspec(remote: str) -> str:
    return f"+{RECEIPTS_REF}:refs/notes/hippo-remote/{remote}/receipts"


@dataclass
class InitResult:
    """What `init` did to a repository: files created or kept, hooks, config set, and what to commit."""

    workdir: Path
    created: list[str] = field(default_factory=list)  # paths relative to workdir
    kept: list[str] = field(default_factory=list)
    hooks: list[hookfiles.HookChange] = field(default_factory=list)
    config: list[str] = field(default_factory=list)  # "key = value" lines that were set
    to_commit: list[str] = field(default_factory=list)  # hippo's files that are not committed as they are
    notes_indexed: int | None = None  # notes in the index built at init (None: not built)
    registered: bool = False  # newly registered for `watch` and the nightly `schedule`

    def as_dict(self) -> dict[str, object]:
        return {
            "workdir": str(self.workdir),
            "created": self.created,
            "kept": self.kept,
            "hooks": [{"hook": h.hook, "path": str(h.path), "action": h.action} for h in self.hooks],
            "config": self.config,
            "to_commit": self.to_commit,
            "notes_indexed": self.notes_indexed,
            "registered": self.registered,
        }


def _write_new(path: Path, text: str) -> bool:
    """Create `path` atomically unless it exists; True when written."""
    if path.exists():
        return False
    write_text_atomic(path, text)
    return True


def configure_receipts(workdir: Path) -> list[str]:
    """git config that keeps receipts mergeable, rebase-safe and fetched from every remote."""
    changed: list[str] = []
    if config_set(workdir, "notes.hippo/receipts.mergeStrategy", "cat_sort_uniq"):
        changed.append("notes.hippo/receipts.mergeStrategy = cat_sort_uniq")
    if config_add(workdir, "notes.rewriteRef", RECEIPTS_REF):
        changed.append(f"notes.rewriteRef += {RECEIPTS_REF}")
    for remote in remotes(workdir):
        if config_add(workdir, f"remote.{remote}.fetch", receipts_fetch_refspec(remote)):
            changed.append(f"remote.{remote}.fetch += {receipts_fetch_refspec(remote)}")
    return changed


def init_workspace(start: Path, *, notes_dir: str = "notes", install_hooks: bool = True) -> InitResult:
    info: RepoInfo = discover(start)
    root = info.workdir
    result = InitResult(workdir=root)
    toml_path = root / WORKSPACE_FILE
    origin = "--notes-dir"
    if toml_path.exists():
        # An existing hippo.toml wins: validate it and take its notes_dir.
        notes_dir = str(read_toml(toml_path, "workspace").get("notes_dir", notes_dir))
        origin = str(toml_path)
    notes_dir = checked_notes_dir(notes_dir, root, origin)  # init writes index.md there
    files = {
        str(WORKSPACE_FILE): workspace_template(info.branch or "main", notes_dir),
        ".hippo/.gitignore": GITIGNORE,
        f"{notes_dir.strip('/')}/index.md": ENTRY_NOTE,
    }
    for rel, text in files.items():
        (result.created if _write_new(root / rel, text) else result.kept).append(rel)
    result.to_commit = uncommitted(root, list(files))
    if install_hooks:
        framework = hookfiles.is_pre_commit_framework(info.hooks_dir / "pre-commit")
        if framework and framework_runs_hippo(root):
            # The team runs hippo's check as a pre-commit framework hook: a shim would run it twice.
            others = tuple(h for h in hookfiles.GIT_HOOKS if h != "pre-commit")
            if hookfiles.hook_state(info, "pre-commit").startswith("pre-commit+ours"):
                hookfiles.uninstall_hooks(info, ("pre-commit",))  # the shim an earlier init put there
            result.hooks = [
                hookfiles.HookChange("pre-commit", root / PRE_COMMIT_CONFIG, "via-pre-commit-config")
            ]
            result.hooks += hookfiles.install_hooks(info, others)
        else:
            result.hooks = hookfiles.install_hooks(info)
    result.config = configure_receipts(root)
    result.notes_indexed = _build_notes_index(root)
    result.registered = _register(root)
    return result


def _register(root: Path) -> bool:
    """Register the workspace for the watcher and the nightly job, which serve each registered one."""
    from hippo_git.capture.workspaces import register
    from hippo_git.config import hippo_home

    return register(hippo_home(), root)


def _build_notes_index(root: Path) -> int | None:
    """Build the notes index now, so the first agent session in this workspace finds it ready;
    the number of notes, or None when it could not be built (a cache: never worth failing init)."""
    import sqlite3

    from hippo_git.config import load_config
    from hippo_git.errors import HippoError
    from hippo_git.notes.notes_index import refresh_notes_index

    try:
        return refresh_notes_index(load_config(root)).total
    except (HippoError, OSError, sqlite3.Error):
        return None


def uninstall_git_hooks(start: Path) -> list[hookfiles.HookChange]:
    return hookfiles.uninstall_hooks(discover(start))
