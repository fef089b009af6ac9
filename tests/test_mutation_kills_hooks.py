"""The agent hooks' small contracts that mutation testing found unguarded (issue 21): what each
harness is told when there is nothing to say, the JSON shapes, where the session id, transcript
and workspace come from, and a payload that is not an object."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from hippo_git.agents import hooks
from hippo_git.agents.spec import PROMPT, SESSION_START, SPECS, HookSpec
from tests.conftest import make_repo

START = HookSpec("SessionStart", "session-start", SESSION_START, 10)
PROMPT_HOOK = HookSpec("UserPromptSubmit", "prompt", PROMPT, 10)


def test_nothing_to_say_is_what_each_harness_accepts() -> None:
    assert hooks._nothing("gemini", START) == hooks._nothing("gemini", PROMPT_HOOK) == "{}"
    assert hooks._nothing("cursor", PROMPT_HOOK) == '{"continue": true}'
    assert hooks._nothing("cursor", START) == "{}"
    assert hooks._nothing("claude-code", START) == hooks._nothing("codex", PROMPT_HOOK) == ""


def test_context_json_per_harness_keeps_utf8() -> None:
    assert json.loads(hooks._context_json("cursor", START, "é")) == {"additional_context": "é"}
    out = hooks._context_json("claude-code", PROMPT_HOOK, "é")
    assert json.loads(out) == {
        "hookSpecificOutput": {"hookEventName": "UserPromptSubmit", "additionalContext": "é"}
    }
    assert "é" in out and "é" in hooks._context_json("cursor", START, "é")


def test_the_session_id_comes_from_the_payload_then_geminis_environment() -> None:
    assert hooks._session_id({"session_id": " s1 ", "conversation_id": "c1"}, {}) == "s1"
    assert hooks._session_id({"session_id": "  ", "conversation_id": "c1"}, {}) == "c1"
    assert hooks._session_id({"session_id": 7}, {"GEMINI_SESSION_ID": " g1 "}) == "g1"
    assert hooks._session_id({}, {"GEMINI_SESSION_ID": "  "}) is None
    assert hooks._session_id({}, {}) is None


def test_the_transcript_comes_from_the_payload_then_cursors_environment() -> None:
    assert hooks._transcript({"transcript_path": "/t.jsonl"}, {"CURSOR_TRANSCRIPT_PATH": "/c"}) == "/t.jsonl"
    assert hooks._transcript({}, {"CURSOR_TRANSCRIPT_PATH": "/c.jsonl"}) == "/c.jsonl"
    assert hooks._transcript({"transcript_path": ""}, {}) is None
    assert hooks._transcript({"transcript_path": 3}, {}) is None


def test_a_payload_that_is_not_an_object_is_empty() -> None:
    assert hooks._parse('{"a": 1}') == {"a": 1}
    assert hooks._parse("[1, 2]") == {} and hooks._parse("not json") == {} and hooks._parse("  ") == {}


def test_the_workspace_is_the_first_candidate_inside_a_repository(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", files={"a.txt": "a\n"})
    other = make_repo(tmp_path / "other", files={"b.txt": "b\n"})
    outside = tmp_path / "plain"
    outside.mkdir()
    assert hooks._workspace({"cwd": str(repo)}, other, {}) == repo
    assert hooks._workspace({"cwd": str(outside), "workspace_roots": [5, str(repo)]}, other, {}) == repo
    assert hooks._workspace({"cwd": 3}, outside, {"CURSOR_PROJECT_DIR": str(repo)}) == repo
    assert (
        hooks._workspace({}, outside, {"GEMINI_PROJECT_DIR": "", "CLAUDE_PROJECT_DIR": str(other)}) == other
    )
    assert hooks._workspace({}, repo, {}) == repo
    assert hooks._workspace({"workspace_roots": "nope"}, outside, {}) is None


def test_cursor_counts_as_installed_only_with_its_hippo_hooks(tmp_path: Path) -> None:
    repo = make_repo(tmp_path / "repo", files={"a.txt": "a\n"})
    assert not hooks._cursor_installed(repo)
    spec = SPECS["cursor"]
    target = repo / spec.hooks_file
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text('{"hooks": {}}')
    assert not hooks._cursor_installed(repo)
    target.write_text(json.dumps({"hooks": {"x": [{"command": spec.hooks[0].command}]}}))
    assert hooks._cursor_installed(repo)


def test_a_hook_stamps_its_heartbeat_with_how_long_it_took(tmp_path: Path) -> None:
    from hippo_git.agents import state

    repo = make_repo(tmp_path / "repo", files={"a.txt": "a\n"})
    home = tmp_path / "home"
    before = time.perf_counter()
    code, out, err = hooks.handle(
        "pre-compact", json.dumps({"cwd": str(repo)}), repo, {"HIPPO_HOME": str(home)}
    )
    took_ms = (time.perf_counter() - before) * 1000
    assert (code, out, err) == (0, "", "")
    beat = state.read_heartbeat(home, repo, "claude-code", "pre-compact")
    assert beat is not None and beat["ok"] is True and beat["detail"] == "no transcript to ingest"
    # milliseconds, and no more than the call took as measured around it (not a timing threshold)
    assert 0 <= beat["ms"] <= took_ms + 0.1


def test_the_internal_events_answer_exit_zero_and_nothing(tmp_path: Path) -> None:
    from hippo_git.agents.spec import INGEST_EVENT

    env = {"HIPPO_HOME": str(tmp_path / "home")}
    assert hooks.handle(INGEST_EVENT, "{}", tmp_path, env) == (0, "", "")  # a payload without items
    assert hooks.handle("no-such-hook", "{}", tmp_path, env) == (0, "", "")


def test_cursor_only_continues_a_prompt() -> None:
    from hippo_git.agents.spec import PRE_COMPACT, SESSION_END

    for kind in (PRE_COMPACT, SESSION_END):
        assert hooks._nothing("cursor", HookSpec("x", "x", kind, 10)) == "{}"


def test_a_capture_that_is_due_waits_for_a_transcript_on_disk(tmp_path: Path) -> None:
    from hippo_git.agents import state as agent_state
    from hippo_git.config import load_config

    repo = make_repo(tmp_path / "repo", files={"a.txt": "a\n"})
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    for transcript in (None, str(tmp_path / "gone.jsonl")):
        state = agent_state.SessionState.load(cfg.home, repo, "codex", "s1")
        state.prompts, state.captured_at, state.transcript = 10_000, 1.0, transcript
        assert hooks._maybe_capture(cfg, PROMPT, state) is False
        assert (state.captured_prompts, state.captured_at) == (0, 1.0)  # nothing was captured


def test_only_claude_codes_context_is_capped_at_its_hook_limit(tmp_path: Path) -> None:
    import time

    from hippo_git.config import load_config
    from hippo_git.notes import context

    toml = "[context]\nbudget_bytes = 50000\n"
    repo = make_repo(tmp_path / "repo", files={"notes/index.md": "# Index\n", ".hippo/hippo.toml": toml})
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    deadline = time.monotonic() + 30
    assert hooks._build(cfg, "claude-code", context, deadline).budget == context.CLAUDE_HOOK_MAX_BYTES
    assert hooks._build(cfg, "codex", context, deadline).budget == 50_000


def test_a_context_that_cannot_be_built_is_said_in_the_context(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hippo_git.agents import state
    from hippo_git.errors import HippoError

    def refuse(*args: object) -> object:
        raise HippoError("the notes folder is unreadable", hint="check its permissions")

    monkeypatch.setattr(hooks, "_build", refuse)  # (every real refusal is shortened away by degrade)
    repo = make_repo(tmp_path / "repo", files={"notes/index.md": "# Index\n"})
    home = tmp_path / "home"
    code, out, err = hooks.handle(
        "session-start", json.dumps({"cwd": str(repo)}), repo, {"HIPPO_HOME": str(home)}
    )
    assert (code, err) == (0, "")
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == (
        "hippo_git could not build this repository's context block: the notes folder is unreadable"
        " (check its permissions)"
    )
    beat = state.read_heartbeat(home, repo, "claude-code", "session-start")
    assert (
        beat is not None
        and beat["ok"] is True
        and beat["detail"] == "context failed: the notes folder is unreadable"
    )


def test_a_capture_is_not_due_soon_after_the_last(tmp_path: Path) -> None:
    import time

    from hippo_git.agents import state as agent_state
    from hippo_git.config import load_config

    repo = make_repo(tmp_path / "repo", files={"a.txt": "a\n"})
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n")
    state = agent_state.SessionState.load(cfg.home, repo, "codex", "s1")
    state.prompts, state.captured_at, state.transcript = 1, time.time() - 5, str(transcript)
    assert hooks._maybe_capture(cfg, PROMPT, state) is False  # one prompt, five seconds: not yet


def test_a_long_matching_note_is_cut_next_to_a_prompt_and_a_short_one_is_not(tmp_path: Path) -> None:
    from hippo_git.config import load_config

    long_body = "# Storage checkpoints\nThe storage checkpoints run nightly.\n" + "filler line\n" * 400
    short_body = "# Storage vacuum\nThe storage checkpoints vacuum weekly.\n"
    files = {"notes/index.md": "# Index\n", "notes/long.md": long_body, "notes/short.md": short_body}
    repo = make_repo(tmp_path / "repo", files=files)
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    notes = dict(hooks._new_notes(cfg, "storage checkpoints", []))
    assert set(notes) == {"notes/long.md", "notes/short.md"}
    assert "[… cut here; the whole note is notes/long.md]" in notes["notes/long.md"]
    assert len(notes["notes/long.md"].encode()) < hooks.PROMPT_NOTE_BYTES + 300
    assert "cut here" not in notes["notes/short.md"] and short_body in notes["notes/short.md"]


def test_a_refusal_without_a_hint_is_said_without_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hippo_git.errors import HippoError

    def refuse(*args: object) -> object:
        raise HippoError("no notes folder")

    monkeypatch.setattr(hooks, "_build", refuse)
    repo = make_repo(tmp_path / "repo", files={"a.txt": "a\n"})
    _, out, _ = hooks.handle(
        "codex-session-start", json.dumps({"cwd": str(repo)}), repo, {"HIPPO_HOME": str(tmp_path / "h")}
    )
    assert json.loads(out)["hookSpecificOutput"]["additionalContext"] == (
        "hippo_git could not build this repository's context block: no notes folder"
    )


def test_a_session_record_keeps_each_prompt_up_to_2000_characters_and_the_newest_200(tmp_path: Path) -> None:
    from hippo_git.config import load_config
    from hippo_git.index import records

    repo = make_repo(tmp_path / "repo", files={"a.txt": "a\n"})
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    hooks._record_prompt(cfg, "codex", "s1", "x" * 2000)
    hooks._record_prompt(cfg, "codex", "s1", "y" * 2001)
    record = records.read_record(repo, "s1")
    assert record is not None and record["prompts"] == ["x" * 2000, "y" * 2000]
    records.write_record_dict(repo, {**record, "prompts": [f"p{i}" for i in range(200)]})
    hooks._record_prompt(cfg, "codex", "s1", "newest")
    kept = (records.read_record(repo, "s1") or {})["prompts"]
    assert len(kept) == 200 and kept[0] == "p1" and kept[-1] == "newest"


def test_next_to_a_prompt_at_most_three_notes_and_6000_bytes_each_sharing_two_words(tmp_path: Path) -> None:
    from hippo_git.config import load_config

    files = {"notes/index.md": "# Index\n"}
    files |= {
        f"notes/s{i}.md": f"# Storage checkpoints {i}\nThe storage checkpoints run.\n" for i in range(4)
    }
    files["notes/half.md"] = "# Storage only\nThe storage is here.\n"
    repo = make_repo(tmp_path / "repo", files=files)
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    notes = hooks._new_notes(cfg, "storage checkpoints", [])
    assert len(notes) == 3 and all(path.startswith("notes/s") for path, _ in notes)
    given = [f"notes/s{i}.md" for i in range(4)]
    assert hooks._new_notes(cfg, "storage checkpoints", given) == []  # half.md shares one word of two
    assert [p for p, _ in hooks._new_notes(cfg, "storage", given)] == ["notes/half.md"]  # one of one
    assert hooks._new_notes(cfg, "the and", []) == []  # no words to match on

    big = "The storage checkpoints run.\n" + "more words here\n" * 300
    repo2 = make_repo(
        tmp_path / "repo2", files={f"notes/b{i}.md": f"# Storage checkpoints {i}\n{big}" for i in range(3)}
    )
    cfg2 = load_config(repo2, {"HIPPO_HOME": str(tmp_path / "home")})
    blocks = [block for _, block in hooks._new_notes(cfg2, "storage checkpoints", [])]
    assert len(blocks) == 2 and sum(len(b.encode()) for b in blocks) <= hooks.PROMPT_CONTEXT_BYTES


def test_a_prompt_gets_the_notes_then_the_memories_that_match_it(tmp_path: Path) -> None:
    from hippo_git.config import load_config
    from hippo_git.memories.service import remember_text
    from tests.conftest import run_cli

    repo = make_repo(
        tmp_path / "repo", files={"notes/release.md": "# Release builds\nRelease builds are signed.\n"}
    )
    env = {"HIPPO_HOME": str(tmp_path / "home")}
    assert run_cli(["init", "--no-hooks"], cwd=repo).returncode == 0
    remember_text(load_config(repo, env), "Release builds need the signing key from the vault")
    payload = {"session_id": "s1", "cwd": str(repo), "prompt": "how are release builds signed?"}
    code, out, _ = hooks.handle("prompt", json.dumps(payload), repo, env)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    notes, memories = text.split("\n\nMemories from this repository's hippo_git that match this prompt:\n")
    assert notes.endswith("</note>")  # one blank line between the two
    from hippo_git.agents import state

    beat = state.read_heartbeat(tmp_path / "home", repo, "claude-code", PROMPT)
    assert beat is not None and beat["detail"] == "prompt recorded; 1 notes, 1 memories added"
    only = {"session_id": "s2", "cwd": str(repo), "prompt": "need the vault key"}
    text = json.loads(hooks.handle("prompt", json.dumps(only), repo, env)[1])["hookSpecificOutput"][
        "additionalContext"
    ]
    assert text.startswith("Memories from this repository's hippo_git that match this prompt:\n")
    assert "notes/memories/" not in text  # a memory comes once, framed, never as its raw note too
    beat = state.read_heartbeat(tmp_path / "home", repo, "claude-code", PROMPT)
    assert beat is not None and beat["detail"] == "prompt recorded; 0 notes, 1 memories added"
    assert notes.startswith("Notes from this repository's hippo_git memory that match this prompt")
    assert (
        '<note path="notes/release.md" role="relevant"' in notes and "signing key from the vault" in memories
    )


def test_a_prompt_over_a_finished_notes_index_starts_no_background_build(tmp_path: Path) -> None:
    from hippo_git.config import load_config

    repo = make_repo(
        tmp_path / "repo", files={"notes/s.md": "# Storage checkpoints\nThe storage checkpoints.\n"}
    )
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    assert [p for p, _ in hooks._new_notes(cfg, "storage checkpoints", [])] == ["notes/s.md"]
    assert not (cfg.home / "logs" / "notes-index-background.log").exists()


def test_the_notes_index_event_builds_the_index_and_answers_exit_zero(tmp_path: Path) -> None:
    from hippo_git.agents.spec import NOTES_INDEX_EVENT
    from hippo_git.config import load_config
    from hippo_git.notes import notes_index

    repo = make_repo(tmp_path / "repo", files={"notes/s.md": "# Storage\nThe storage.\n"})
    env = {"HIPPO_HOME": str(tmp_path / "home")}
    assert hooks.handle(NOTES_INDEX_EVENT, "", repo, env) == (0, "", "")
    cfg = load_config(repo, env)
    conn = notes_index.open_notes_index(cfg)
    try:
        assert [p for (p,) in conn.execute("SELECT path FROM notes")] == ["notes/s.md"]
    finally:
        conn.close()


def test_only_claude_codes_hooks_step_aside_inside_cursor(tmp_path: Path) -> None:
    from tests.conftest import run_cli

    repo = make_repo(tmp_path / "repo", files={"notes/index.md": "# Index\n"})
    assert run_cli(["init", "--no-hooks"], cwd=repo).returncode == 0
    assert run_cli(["agent", "install", "cursor"], cwd=repo).returncode == 0
    env = {"HIPPO_HOME": str(tmp_path / "home"), "CURSOR_VERSION": "1.7"}
    payload = json.dumps({"session_id": "c1", "cwd": str(repo)})
    assert hooks.handle("session-start", payload, repo, env) == (0, "", "")  # Cursor's own hooks answer
    out = hooks.handle("codex-session-start", payload, repo, env)[1]
    assert (
        '<note path="notes/index.md" role="entry">'
        in json.loads(out)["hookSpecificOutput"]["additionalContext"]
    )


@pytest.mark.parametrize("event", ["session-start", "prompt"])
def test_a_notes_budget_that_is_not_spent_reads_every_note_in_the_hook(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, event: str
) -> None:
    """The hook's deadline is NOTES_BUDGET_S from now: a budget far larger than any refresh
    takes lets the hook itself read every note, with nothing left for the background."""
    from hippo_git.config import load_config
    from hippo_git.notes import notes_index

    files = {
        f"notes/storage-{i}.md": f"# Storage checkpoints {i}\nThe storage checkpoints.\n" for i in range(3)
    }
    repo = make_repo(tmp_path / "repo", files=files)
    env = {"HIPPO_HOME": str(tmp_path / "home")}
    spawned: list[Path] = []
    monkeypatch.setattr(hooks, "spawn_notes_index", lambda home, root: spawned.append(root))
    monkeypatch.setattr(hooks, "NOTES_BUDGET_S", 1e6)
    payload = {"session_id": "s1", "cwd": str(repo), "prompt": "storage checkpoints"}
    code, out, err = hooks.handle(event, json.dumps(payload), repo, env)
    assert (code, err) == (0, "") and ("storage-0.md" in out) == (event == "prompt")
    conn = notes_index.open_notes_index(load_config(repo, env))
    try:
        assert sorted(p for (p,) in conn.execute("SELECT path FROM notes")) == sorted(files)
    finally:
        conn.close()
    if event == "prompt":
        assert spawned == []  # a complete index: nothing to finish in the background


def test_the_heartbeat_counts_milliseconds_from_the_hooks_start(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stepped clock (the hook reads it at its start and at its stamp): 0.25 s is 250.0 ms."""
    from types import SimpleNamespace

    from hippo_git.agents import state

    readings = iter([5000.0, 5000.25])
    clock = SimpleNamespace(
        perf_counter=lambda: next(readings), monotonic=time.monotonic, time=time.time, sleep=time.sleep
    )
    monkeypatch.setattr(hooks, "time", clock)
    repo = make_repo(tmp_path / "repo", files={"a.txt": "a\n"})
    home = tmp_path / "home"
    assert hooks.handle("pre-compact", json.dumps({"cwd": str(repo)}), repo, {"HIPPO_HOME": str(home)}) == (
        0,
        "",
        "",
    )
    beat = state.read_heartbeat(home, repo, "claude-code", "pre-compact")
    assert beat is not None and beat["ms"] == 250.0


def test_an_entry_note_over_the_hook_cap_is_shortened_not_refused(tmp_path: Path) -> None:
    """At session start the block degrades: an entry note larger than Claude Code's cap comes
    shortened, with its marker, never as 'could not build'."""
    body = "".join(f"Line {n} of a long index.\n" for n in range(1500))
    repo = make_repo(tmp_path / "repo", files={"notes/index.md": "# Index\n" + body})
    env = {"HIPPO_HOME": str(tmp_path / "home")}
    payload = json.dumps({"session_id": "s1", "cwd": str(repo)})
    code, out, err = hooks.handle("session-start", payload, repo, env)
    text = json.loads(out)["hookSpecificOutput"]["additionalContext"]
    assert (code, err) == (0, "") and "could not build" not in text
    assert '<note path="notes/index.md" role="entry, shortened">\n# Index\nLine 0 of a long index.\n' in text
    assert "read the full note at notes/index.md]" in text


STORAGE = "# Storage\n\nThe index is one SQLite file in WAL mode. Checkpoints run after each ingest.\n"
MATCHING = "sqlite checkpoint wal readers"


def _expected(harness: str, spec: HookSpec, payload: object) -> tuple[str | None, str]:
    """(what the context says, or None for the harness's nothing; the heartbeat's detail)."""
    prompt = payload.get("prompt") if isinstance(payload, dict) else None
    if spec.kind == SESSION_START:
        return "# Context from hippo_git", "context "
    if spec.kind == PROMPT:
        if not isinstance(prompt, str) or not prompt.strip():
            return None, "empty prompt"
        if harness == "cursor":
            return None, "prompt recorded"
        if prompt == MATCHING:
            return "Notes from this repository's hippo_git memory", "prompt recorded; 1 notes added"
        return None, "prompt recorded; no new notes"
    if spec.kind == "stop":
        return None, "below the capture thresholds"
    return None, "no transcript to ingest"


@pytest.mark.parametrize(
    "payload",
    [
        {"prompt": MATCHING},
        {"prompt": MATCHING, "session_id": 7},
        {"prompt": "hello there"},
        {"prompt": "   "},
        {"prompt": 5, "session_id": 7, "transcript_path": 3},
        {"prompt": "x" * 20_000},
        "not json",
        [1, 2],
        "",
    ],
    ids=[
        "matching",
        "no-session-id",
        "unrelated",
        "blank",
        "wrong-types",
        "oversize",
        "not-json",
        "a-list",
        "empty",
    ],
)
def test_every_hook_of_every_harness_answers_its_shape_and_says_what_it_did(
    tmp_path: Path, hippo: object, payload: object
) -> None:
    from hippo_git.agents import state
    from hippo_git.agents.spec import EVENTS

    repo = make_repo(tmp_path / "repo")
    assert hippo(["init", "--no-hooks"], cwd=repo).exit_code == 0  # type: ignore[operator]
    (repo / "notes" / "storage.md").write_text(STORAGE)
    home = tmp_path / "home"
    for n, (name, (harness, spec)) in enumerate(EVENTS.items()):
        sid = f"s{n}"  # a session each: no note was given earlier
        body = (
            {**payload, "session_id": payload.get("session_id", sid)}
            if isinstance(payload, dict)
            else payload
        )
        text = body if isinstance(body, str) else json.dumps(body)
        code, out, err = hooks.handle(name, text, repo, {"HIPPO_HOME": str(home)})
        says, detail = _expected(harness, spec, payload)
        assert (code, err) == (0, ""), name
        if says is None:
            assert out == hooks._nothing(harness, spec), name
        else:
            got = json.loads(out)
            context = (
                got["additional_context"]
                if harness == "cursor"
                else got["hookSpecificOutput"]["additionalContext"]
            )
            assert context.startswith(says), name
            if harness != "cursor":
                assert got["hookSpecificOutput"]["hookEventName"] == spec.event, name
        beat = state.read_heartbeat(home, repo, harness, spec.kind)
        assert beat is not None and beat["ok"] is True and str(beat["detail"]).startswith(detail), (
            name,
            beat,
        )
        if spec.kind == PROMPT and detail.startswith("prompt recorded"):
            own = body.get("session_id") == sid  # type: ignore[union-attr]
            kept = state.SessionState.load(home, repo, harness, sid if own else "unknown")
            assert kept.prompts == 1, name
    records = {p.stem: json.loads(p.read_text()) for p in (repo / ".hippo" / "sessions").glob("*.json")}
    named = isinstance(payload, dict) and "session_id" not in payload
    # a session record only for a session that names itself: started, given a prompt, or ended
    # (never by a pre-compact or a stop); ended only by a session end
    kinds = {f"s{n}": spec.kind for n, (_, spec) in enumerate(EVENTS.values())}
    wrote = {"session-start", "session-end"} | ({PROMPT} if _names_a_prompt(payload) else set())
    assert set(records) == ({sid for sid, kind in kinds.items() if kind in wrote} if named else set())
    assert {sid for sid, record in records.items() if record.get("ended")} == {
        sid for sid in records if kinds[sid] == "session-end"
    }


def _names_a_prompt(payload: object) -> bool:
    prompt = payload.get("prompt") if isinstance(payload, dict) else None
    return isinstance(prompt, str) and bool(prompt.strip())


def test_outside_any_repository_every_hook_says_nothing_and_stamps_nothing(tmp_path: Path) -> None:
    from hippo_git.agents.spec import EVENTS

    outside = tmp_path / "plain"
    outside.mkdir()
    home = tmp_path / "home"
    for name, (harness, spec) in EVENTS.items():
        payload = json.dumps({"cwd": str(outside), "prompt": MATCHING, "session_id": "s1"})
        assert hooks.handle(name, payload, outside, {"HIPPO_HOME": str(home)}) == (
            0,
            hooks._nothing(harness, spec),
            "",
        ), name
    assert not (home / "heartbeats").exists()


@pytest.mark.parametrize(
    ("files", "prompt", "ranked_first", "shown"),
    [
        pytest.param(
            {
                "notes/memories/signing.md": "# Release signing\nRelease builds signed. Release builds signed.\n",
                "notes/release.md": "# Release process\nThe release builds are signed by the vault key, then uploaded.\n",
            },
            "how are release builds signed",
            "notes/memories/signing.md",
            "notes/release.md",
            id="a memory ranked first",
        ),
        pytest.param(
            {
                "notes/vault.md": "# Vault\nVault vault vault.\n",
                "notes/keys.md": "# Keys\nThe rotation schedule for the signing keys is weekly, see the wiki page.\n",
            },
            "vault rotation schedule",
            "notes/vault.md",
            "notes/keys.md",
            id="a weak match (one shared word) ranked first",
        ),
    ],
)
def test_a_skipped_note_ranked_first_does_not_hide_a_good_one_after_it(
    tmp_path: Path, files: dict[str, str], prompt: str, ranked_first: str, shown: str
) -> None:
    from hippo_git.config import load_config
    from hippo_git.notes import notes_index
    from hippo_git.notes.relevance import rank_relevant

    cfg = load_config(make_repo(tmp_path / "repo", files=files), {"HIPPO_HOME": str(tmp_path / "home")})
    conn = notes_index.open_notes_index(cfg)
    try:
        notes_index.refresh(conn, cfg)
        ranked = [item.path for item in rank_relevant(conn, prompt, exclude=[], limit=3)]
    finally:
        conn.close()
    assert ranked == [ranked_first, shown]
    assert [path for path, _ in hooks._new_notes(cfg, prompt, [])] == [shown]


def test_a_capture_counts_the_prompts_since_the_last_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """capture.turns (5) prompts after the last capture start one; fewer, however many in all, do not."""
    from hippo_git.agents import ingest
    from hippo_git.agents import state as agent_state
    from hippo_git.config import load_config

    spawned: list[int] = []
    monkeypatch.setattr(ingest, "spawn_ingest", lambda home, root, states: spawned.append(states[0].prompts))
    repo = make_repo(tmp_path / "repo", files={"a.txt": "a\n"})
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    transcript = tmp_path / "t.jsonl"
    transcript.write_text("{}\n")
    for prompts, captured, due in ((20, 20, False), (24, 20, False), (25, 20, True), (3, 0, False)):
        state = agent_state.SessionState.load(cfg.home, repo, "codex", f"s{prompts}")
        state.prompts, state.captured_prompts = prompts, captured
        state.captured_at, state.transcript = time.time() - 5, str(transcript)
        assert hooks._maybe_capture(cfg, PROMPT, state) is due, (prompts, captured)
        assert state.captured_prompts == (prompts if due else captured)
    assert spawned == [25]


def test_a_note_that_cannot_be_read_is_skipped_not_an_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A note gone between the index and the read (a checkout racing the hook) is passed over."""
    from hippo_git.config import load_config

    repo = make_repo(
        tmp_path / "repo",
        files={
            "notes/a.md": "# Storage checkpoints\nStorage checkpoints storage checkpoints.\n",
            "notes/b.md": "# Storage\nThe storage checkpoints run nightly.\n",
        },
    )
    for name in ("a.md", "b.md"):  # settled on disk: the next refresh reads neither again
        os.utime(repo / "notes" / name, (1_600_000_000, 1_600_000_000))
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    assert [p for p, _ in hooks._new_notes(cfg, "storage checkpoints", [])] == ["notes/a.md", "notes/b.md"]
    real = Path.read_bytes

    def racing(self: Path) -> bytes:
        if self.name == "a.md":
            raise FileNotFoundError(self)
        return real(self)

    monkeypatch.setattr(Path, "read_bytes", racing)
    assert [p for p, _ in hooks._new_notes(cfg, "storage checkpoints", [])] == ["notes/b.md"]


def test_the_prompt_notes_budget_is_on_their_sum_at_its_boundary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two blocks of one size: at exactly their sum both come, one byte under only the first."""
    from hippo_git.config import load_config

    text = "# Storage checkpoints\nThe storage checkpoints run nightly.\n"
    repo = make_repo(tmp_path / "repo", files={"notes/a.md": text, "notes/b.md": text})
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    monkeypatch.setattr(hooks, "PROMPT_CONTEXT_BYTES", 10**6)
    blocks = [block for _, block in hooks._new_notes(cfg, "storage checkpoints", [])]
    sizes = [len(block.encode("utf-8")) for block in blocks]
    assert len(sizes) == 2 and sizes[0] == sizes[1]
    for budget, count in ((sum(sizes) + 1, 2), (sum(sizes), 2), (sum(sizes) - 1, 1), (sizes[0], 1)):
        monkeypatch.setattr(hooks, "PROMPT_CONTEXT_BYTES", budget)
        assert len(hooks._new_notes(cfg, "storage checkpoints", [])) == count, budget
    monkeypatch.setattr(hooks, "PROMPT_CONTEXT_BYTES", sizes[0] - 1)
    assert hooks._new_notes(cfg, "storage checkpoints", []) == []


def test_a_session_start_catches_up_on_a_transcript_that_grew_and_only_then(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from hippo_git.agents import ingest
    from hippo_git.agents import state as agent_state

    spawned: list[list[str]] = []
    monkeypatch.setattr(
        ingest, "spawn_ingest", lambda home, root, states: spawned.append([s.session_id for s in states])
    )
    repo = make_repo(tmp_path / "repo", files={"notes/index.md": "# Index\n"})
    env = {"HIPPO_HOME": str(tmp_path / "home")}
    start = json.dumps({"session_id": "new-1", "cwd": str(repo)})
    assert hooks.handle("session-start", start, repo, env)[0] == 0
    assert spawned == []  # nothing pending: no ingest spawned for nothing
    transcript = tmp_path / "old.jsonl"
    transcript.write_text('{"type": "user"}\n')
    old = agent_state.SessionState.load(tmp_path / "home", repo, "claude-code", "old-1")
    old.transcript = str(transcript)
    old.save()
    assert (
        hooks.handle("session-start", json.dumps({"session_id": "new-2", "cwd": str(repo)}), repo, env)[0]
        == 0
    )
    assert spawned == [["old-1"]]  # the earlier session's transcript grew past its last ingest


def test_three_prompt_notes_come_up_to_exactly_6000_bytes(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three matching notes whose blocks sum to 6,000 bytes all come; at 6,001 the third stays out."""
    from hippo_git.config import load_config

    head = "# Storage checkpoints\nThe storage checkpoints run nightly.\n"
    repo = make_repo(tmp_path / "repo", files={f"notes/n{i}.md": head + "z" * 1900 + "\n" for i in range(3)})
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})

    def sizes(budget: int | None = None) -> list[int]:
        with monkeypatch.context() as patch:
            if budget is not None:
                patch.setattr(hooks, "PROMPT_CONTEXT_BYTES", budget)
            return [
                len(block.encode("utf-8")) for _, block in hooks._new_notes(cfg, "storage checkpoints", [])
            ]

    pad = 1900
    for total, count in ((6_000, 3), (6_001, 2)):
        pad -= sum(sizes(10**6)) - total
        (repo / "notes" / "n0.md").write_text(head + "z" * pad + "\n")
        assert sum(sizes(10**6)) == total
        assert len(sizes()) == count, total


@pytest.mark.parametrize(("size", "cut"), [(2_499, False), (2_500, False), (2_501, True)])
def test_a_prompt_note_is_cut_past_exactly_2500_bytes(tmp_path: Path, size: int, cut: bool) -> None:
    from hippo_git.config import load_config

    head = "# Storage checkpoints\nThe storage checkpoints run nightly.\n"
    text = head + "z" * (size - len(head))  # no line end: a cut drops a z
    assert len(text.encode("utf-8")) == size
    repo = make_repo(tmp_path / "repo", files={"notes/s.md": text})
    cfg = load_config(repo, {"HIPPO_HOME": str(tmp_path / "home")})
    [(path, block)] = hooks._new_notes(cfg, "storage checkpoints", [])
    assert ("[… cut here; the whole note is notes/s.md]" in block) is cut
    assert (text in block) is not cut
    if cut:
        assert text[:2_500] + "\n[… cut here; the whole note is notes/s.md]\n" in block
