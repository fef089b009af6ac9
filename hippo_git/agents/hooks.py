"""The agent hooks: `git hippo hook <name>` for Claude Code, Codex, Cursor and Gemini CLI.

`handle(event, payload_text, cwd)` returns (exit code, stdout, stderr) and never raises. The exit
code is always 0: exit 2 erases the user's prompt in Claude Code and Codex, and any code but 0 or
1 is a "deny" in Gemini. Stdout is only ever the harness's JSON shape (or nothing); stderr stays
empty, since Gemini parses stderr when stdout is empty. Failures go to $HIPPO_HOME/logs/hooks.log,
and every run stamps a heartbeat that `git hippo agent status` reads.

This runs on every session start and prompt: no pygit2, GitPython or pydantic on this path.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from hippo_git.agents import state as agent_state
from hippo_git.agents.spec import (
    EVENTS,
    INGEST_EVENT,
    NOTES_INDEX_EVENT,
    PRE_COMPACT,
    PROMPT,
    SESSION_END,
    SESSION_START,
    SPECS,
    STOP,
    HookSpec,
)
from hippo_git.config import Config, find_worktree_root, hippo_home, load_config
from hippo_git.errors import HippoError

# Notes added next to a prompt: few, small, and only when they match the prompt well.
PROMPT_NOTES = 3
PROMPT_NOTE_BYTES = 2_500
PROMPT_CONTEXT_BYTES = 6_000
PROMPT_CHARS = 2_000  # a prompt is kept in the session record up to this length
PROMPTS_KEPT = 200
_PROJECT_ENV = ("CLAUDE_PROJECT_DIR", "CURSOR_PROJECT_DIR", "GEMINI_PROJECT_DIR")
# How long a hook may spend bringing the notes index up to date before answering with what it
# has (the rest is finished in the background). Harness timeouts are 5-10 s; an agent should
# never notice the first session in a fresh clone of thousands of notes.
NOTES_BUDGET_S = 0.5


def handle(
    event: str, payload_text: str, cwd: Path, env: Mapping[str, str] | None = None
) -> tuple[int, str, str]:
    env = os.environ if env is None else env
    started = time.perf_counter()
    payload = _parse(payload_text)
    home = hippo_home(dict(env))
    if event == INGEST_EVENT:
        from hippo_git.agents.ingest import run_background_ingest

        run_background_ingest(home, payload)
        return 0, "", ""
    if event == NOTES_INDEX_EVENT:
        _finish_notes_index(home, cwd, env)
        return 0, "", ""
    known = EVENTS.get(event)
    if known is None:
        agent_state.log(home, event, "unknown agent hook name; did nothing")
        return 0, "", ""
    harness, hook = known
    root = _workspace(payload, cwd, env)
    if root is None:
        return 0, _nothing(harness, hook), ""
    ok, detail, out = True, "", ""
    try:
        if harness == "claude-code" and env.get("CURSOR_VERSION") and _cursor_installed(root):
            # Cursor runs Claude Code's hooks too; its own hippo hooks do the work there.
            detail = "stepped aside: running inside Cursor, which has its own hippo hooks"
        else:
            out, detail = _run(harness, hook, payload, root, home, env)
    except Exception as exc:  # a hook must never fail the agent
        ok, detail = False, f"{type(exc).__name__}: {exc}"
        agent_state.log(home, event, detail, None if isinstance(exc, HippoError) else exc)
    agent_state.stamp(
        home, root, harness, hook.kind, ok=ok, ms=(time.perf_counter() - started) * 1000, detail=detail
    )
    return 0, out or _nothing(harness, hook), ""


def _parse(text: str) -> dict[str, Any]:
    try:
        data = json.loads(text) if text and text.strip() else {}
    except ValueError:
        return {}
    return data if isinstance(data, dict) else {}


def _workspace(payload: dict[str, Any], cwd: Path, env: Mapping[str, str]) -> Path | None:
    candidates: list[str] = []
    if isinstance(payload.get("cwd"), str):
        candidates.append(payload["cwd"])
    roots = payload.get("workspace_roots")
    if isinstance(roots, list):
        candidates += [r for r in roots if isinstance(r, str)]
    candidates += [env[k] for k in _PROJECT_ENV if env.get(k)]
    candidates.append(str(cwd))
    for candidate in candidates:
        try:
            return find_worktree_root(Path(candidate))
        except (HippoError, OSError):
            continue
    return None


def _keeps_records(cfg: Config) -> bool:
    """Session records go in .hippo/sessions/, which only `git hippo init` makes git-ignored."""
    return cfg.hippo_dir.is_dir()


def _cursor_installed(root: Path) -> bool:
    try:
        text = (root / SPECS["cursor"].hooks_file).read_text(encoding="utf-8")
    except OSError:
        return False
    return any(hook.command in text for hook in SPECS["cursor"].hooks)


def _nothing(harness: str, hook: HookSpec) -> str:
    """What to print when there is nothing to say: Gemini wants JSON on stdout, always."""
    if harness == "gemini":
        return "{}"
    if harness == "cursor":
        return '{"continue": true}' if hook.kind == PROMPT else "{}"
    return ""


def _context_json(harness: str, hook: HookSpec, text: str) -> str:
    if harness == "cursor":
        return json.dumps({"additional_context": text}, ensure_ascii=False)
    return json.dumps(
        {"hookSpecificOutput": {"hookEventName": hook.event, "additionalContext": text}}, ensure_ascii=False
    )


def _session_id(payload: dict[str, Any], env: Mapping[str, str]) -> str | None:
    for key in ("session_id", "conversation_id"):
        value = payload.get(key)
        if isinstance(value, str) and value.strip():
            return value.strip()
    value = env.get("GEMINI_SESSION_ID")
    return value.strip() if value and value.strip() else None


def _transcript(payload: dict[str, Any], env: Mapping[str, str]) -> str | None:
    value = payload.get("transcript_path") or env.get("CURSOR_TRANSCRIPT_PATH")
    return value if isinstance(value, str) and value else None


def _run(
    harness: str, hook: HookSpec, payload: dict[str, Any], root: Path, home: Path, env: Mapping[str, str]
) -> tuple[str, str]:
    """(stdout, heartbeat detail) of one hook."""
    cfg = load_config(root, dict(env))
    sid = _session_id(payload, env)
    state = agent_state.SessionState.load(home, root, harness, sid or "unknown")
    transcript = _transcript(payload, env)
    if transcript:
        state.transcript = transcript
    if hook.kind == SESSION_START:
        return _session_start(cfg, harness, hook, sid, state)
    if hook.kind == PROMPT:
        prompt = payload.get("prompt")
        return _prompt(cfg, harness, hook, sid, state, prompt if isinstance(prompt, str) else "")
    if hook.kind == SESSION_END and sid and _keeps_records(cfg):
        _end(cfg, harness, sid)
    if hook.kind == STOP:
        # Codex's Stop ends every turn, not the session: it captures by the thresholds.
        captured = _maybe_capture(cfg, hook.kind, state)
        state.save()
        return "", "capture started in the background" if captured else "below the capture thresholds"
    state.save()
    if hook.kind in (PRE_COMPACT, SESSION_END) and state.transcript and os.path.isfile(state.transcript):
        from hippo_git.agents.ingest import spawn_ingest

        state.captured_prompts, state.captured_at = state.prompts, time.time()
        state.save()
        spawn_ingest(home, root, [state])
        return "", f"capture of {state.transcript} started in the background"
    return "", "no transcript to ingest"


def _session_start(
    cfg: Config, harness: str, hook: HookSpec, sid: str | None, state: agent_state.SessionState
) -> tuple[str, str]:
    from hippo_git.notes import context, declared

    try:
        block = _build(cfg, harness, context, time.monotonic() + NOTES_BUDGET_S)
    except HippoError as exc:
        text = f"hippo_git could not build this repository's context block: {exc.message}" + (
            f" ({exc.hint})" if exc.hint else ""
        )
        state.save()
        return _context_json(harness, hook, text), f"context failed: {exc.message}"
    if sid and _keeps_records(cfg):
        declared.start_session(cfg, None, session_id=sid, harness=harness, context_bytes=block.size)
    from hippo_git.capture.workspaces import register

    register(cfg.home, cfg.root)  # the watcher and the nightly job serve registered workspaces
    # After a compaction or a resume, what was given before may be gone: start the list afresh.
    state.given = [p.label for p in block.parts if p.kind in ("entry", "required", "relevant")]
    state.save()
    _catch_up(cfg, state)
    if not block.index_complete or block.lint_pending:
        spawn_notes_index(cfg.home, cfg.root)
    return _context_json(harness, hook, block.text), f"context {block.size} bytes, {len(state.given)} notes"


def _build(cfg: Config, harness: str, context: Any, deadline: float) -> Any:
    """The context block, never refused for its size (required notes that do not fit are shortened);
    for Claude Code within its 10,000-character hook cap; with the memories relevant to it."""
    from hippo_git.memories.framing import context_extra

    return context.build_context(
        cfg,
        for_claude_hook=harness == "claude-code",
        degrade=True,
        deadline=deadline,
        extra=context_extra(cfg),
    )


def spawn_notes_index(home: Path, root: Path) -> None:
    """Finish building the notes index in a detached process; return without waiting."""
    from hippo_git.agents.detached import spawn_hook

    spawn_hook(home, root, NOTES_INDEX_EVENT, "notes-index-background.log")


def _finish_notes_index(home: Path, cwd: Path, env: Mapping[str, str]) -> None:
    from hippo_git.notes.notes_index import refresh_notes_index

    try:
        refresh_notes_index(load_config(cwd, dict(env)))
    except Exception as exc:  # detached: nobody to tell but the log
        agent_state.log(
            home,
            NOTES_INDEX_EVENT,
            f"{type(exc).__name__}: {exc}",
            None if isinstance(exc, HippoError) else exc,
        )


def _catch_up(cfg: Config, state: agent_state.SessionState) -> None:
    """Transcripts that grew after their last background ingest (killed, locked out) are read now."""
    pending = agent_state.pending_transcripts(cfg.home, cfg.root, skip=state.session_id)
    if pending:
        from hippo_git.agents.ingest import spawn_ingest

        spawn_ingest(cfg.home, cfg.root, pending)


def _prompt(
    cfg: Config, harness: str, hook: HookSpec, sid: str | None, state: agent_state.SessionState, prompt: str
) -> tuple[str, str]:
    if not prompt.strip():
        state.save()
        return "", "empty prompt"
    from hippo_git.transcripts.redact import Redactor

    clean = Redactor().redact(prompt)
    if sid and _keeps_records(cfg):
        _record_prompt(cfg, harness, sid, clean)
    state.prompts += 1
    _maybe_capture(cfg, hook.kind, state)
    if harness == "cursor":  # beforeSubmitPrompt cannot add context
        state.save()
        return "", "prompt recorded"
    notes = _new_notes(cfg, clean, state.given)
    memory_ids, memory_text = _new_memories(cfg, clean, state.given)
    if not notes and not memory_ids:
        state.save()
        return "", "prompt recorded; no new notes"
    state.given += [path for path, _ in notes] + memory_ids
    state.save()
    text = ""
    if notes:
        text = "Notes from this repository's hippo_git memory that match this prompt (not shown earlier in the session):\n\n"
        text += "\n".join(block for _, block in notes)
    if memory_ids:
        text += ("\n" if text else "") + memory_text
    added = f"{len(notes)} notes" + (f", {len(memory_ids)} memories" if memory_ids else "")
    return _context_json(harness, hook, text), f"prompt recorded; {added} added"


def _new_memories(cfg: Config, prompt: str, given: list[str]) -> tuple[list[str], str]:
    from hippo_git.memories.framing import prompt_memories

    return prompt_memories(cfg, prompt, given)


def _maybe_capture(cfg: Config, kind: str, state: agent_state.SessionState) -> bool:
    """Capture the session (a background ingest, and an episode summary when a model is set) once
    it passed `capture.turns` prompts or `capture.minutes` since its last capture."""
    from hippo_git.capture.thresholds import capture_due

    now = time.time()
    if not state.captured_at:
        state.captured_at = now  # the clock starts at the session's first prompt
    since = now - state.captured_at
    if not capture_due(kind, state.prompts - state.captured_prompts, since, cfg.capture):
        return False
    if not (state.transcript and os.path.isfile(state.transcript)):
        return False
    state.captured_prompts, state.captured_at = state.prompts, now
    state.save()
    from hippo_git.agents.ingest import spawn_ingest

    spawn_ingest(cfg.home, cfg.root, [state])
    return True


def _record_prompt(cfg: Config, harness: str, sid: str, prompt: str) -> None:
    from hippo_git.index import records
    from hippo_git.notes import declared

    record = records.read_record(cfg.root, sid)
    if not records.is_declared(record):
        record = declared.start_session(cfg, None, session_id=sid, harness=harness)
    assert record is not None
    record = dict(record)
    if not record.get("task"):
        record["task"] = " ".join(prompt.split())[: records.TASK_CHARS]
    prompts = [p for p in record.get("prompts") or [] if isinstance(p, str)]
    prompts.append(prompt[:PROMPT_CHARS])
    record["prompts"] = prompts[-PROMPTS_KEPT:]
    records.write_record_dict(cfg.root, record)


def _new_notes(cfg: Config, prompt: str, given: list[str]) -> list[tuple[str, str]]:
    """(path, fenced text) of notes that match the prompt well and were not given yet."""
    from hippo_git.notes import notes_index
    from hippo_git.notes.context import fence_note
    from hippo_git.notes.relevance import rank_relevant, task_terms

    terms = task_terms(prompt)
    if not terms:
        return []
    conn = notes_index.open_notes_index(cfg)
    try:
        if not notes_index.refresh(conn, cfg, deadline=time.monotonic() + NOTES_BUDGET_S).complete:
            spawn_notes_index(cfg.home, cfg.root)
        ranked = rank_relevant(conn, prompt, exclude=given, limit=PROMPT_NOTES)
    finally:
        conn.close()
    out: list[tuple[str, str]] = []
    total = 0
    memories = f"{cfg.notes_dir}/memories/"  # memories come framed (`_new_memories`), not as raw notes
    for item in ranked:
        if item.path.startswith(memories):
            continue
        try:
            text = (cfg.root / item.path).read_bytes().decode("utf-8", errors="replace")
        except OSError:
            continue
        # A good match shares at least two of the prompt's words (one, for a one-word prompt).
        lowered = text.lower()
        shared = sum(1 for t in terms if t[:6] in lowered)
        if shared < min(2, len(terms)):
            continue
        if len(text.encode("utf-8")) > PROMPT_NOTE_BYTES:
            text = text.encode("utf-8")[:PROMPT_NOTE_BYTES].decode("utf-8", errors="ignore")
            text += f"\n[… cut here; the whole note is {item.path}]\n"
        block = fence_note(item.path, text, "relevant", "; ".join(item.why))
        if total + len(block.encode("utf-8")) > PROMPT_CONTEXT_BYTES:
            break
        total += len(block.encode("utf-8"))
        out.append((item.path, block))
    return out


def _end(cfg: Config, harness: str, sid: str) -> None:
    from hippo_git.index import records
    from hippo_git.notes import declared

    if not records.is_declared(records.read_record(cfg.root, sid)):
        declared.start_session(cfg, None, session_id=sid, harness=harness)
    declared.end_session(cfg, session_id=sid)
