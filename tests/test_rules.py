"""One test (or a few) per rollup rule, on small transcripts written for it (tests/rules_support.py)."""

from __future__ import annotations

import pytest

from hippo_git.signals import rules, rules_claims, rules_cross, rules_incidents
from hippo_git.signals.rollup_commands import command_categories
from hippo_git.signals.rollup_facts import Command, EditRow, SessionSpan
from hippo_git.signals.rollup_parse import exit_status, parse_fields
from tests.rules_support import Script

# --- parsing tool turns ----------------------------------------------------------------------------


def test_tool_inputs_of_every_rendering_are_read_back() -> None:
    assert parse_fields("command: ls -la\ndescription: list", "Bash") == {
        "command": "ls -la",
        "description": "list",
    }
    multi = parse_fields("file_path: a.py\nold_string: x = 1\nfoo: y\nnew_string: x = 2\ny: 3", "Edit")
    assert multi["old_string"] == "x = 1\nfoo: y" and multi["new_string"] == "x = 2\ny: 3"
    assert (
        parse_fields('run_shell_command {"command": "git status", "description": "d"}')["command"]
        == "git status"
    )
    assert parse_fields("*** Begin Patch\n*** Update File: a.py\n+x", "apply_patch") == {
        "": "*** Begin Patch\n*** Update File: a.py\n+x"
    }


@pytest.mark.parametrize(
    ("text", "error", "code"),
    [
        ("Exit code 2\nboom", True, 2),  # Claude Code
        ("Command: ls\nOutput: x\nError: (none)\nExit Code: 0\nSignal: 0", False, 0),  # Gemini CLI
        ("Chunk ID: 1\nWall time: 0.2s\nProcess exited with code 1\nOutput:\nE fail", False, 1),  # Codex
        ("[stderr]\nnope\n[exit code: 127]", False, 127),  # DeepSeek Harness
        ("all good", False, 0),
        ("it broke", True, None),
    ],
)
def test_exit_status_as_each_harness_reports_it(text: str, error: bool, code: int | None) -> None:
    assert exit_status(text, error) == code


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        ("uv run pytest -q", ("test",)),
        ("go test ./... -count=1", ("test",)),
        ("mise run fmt && mise run lint && mise run test", ("lint", "test")),
        ("npm run build", ("build",)),
        ("cargo clippy -- -D warnings", ("lint",)),
        ("git -C repo push origin main", ("push",)),
        ("git commit -m 'tests pass'", ("commit",)),
        ("gh pr create --fill", ("pr_create",)),
        ("gh pr merge 12 --squash", ("merge",)),
        ("gh pr checks 12 --watch", ("ci",)),
        ("fly deploy --remote-only", ("deploy",)),
        ("git restore src/app.py", ("revert",)),
        ("grep -rn test src", ()),
        ("ls tests", ()),
    ],
)
def test_command_categories(command: str, expected: tuple[str, ...]) -> None:
    assert command_categories(command) == expected


# --- work time, commands, edits, PRs --------------------------------------------------------------


def test_work_time_counts_gaps_up_to_the_threshold_and_the_rest_as_waits() -> None:
    s = Script(step=60)
    s.prompt("add a flag")
    s.answer("done")
    s.answer("anything else?")
    s.prompt("now the docs", wait=900)
    s.answer("ok", wait=30)
    work, wall, waits = rules.work_time(s.turns)
    assert work == 150 and wall == 1050
    assert [(w.seq, w.seconds, w.for_user) for w in waits] == [(3, 900, True)]


def test_commands_pair_parallel_calls_and_follow_background_runs() -> None:
    s = Script()
    s.add("tool_call", "cmd: pytest -q", tool="exec_command")
    s.add("tool_call", "cmd: ruff check .", tool="exec_command")
    s.add("tool_output", "Process exited with code 1\n3 failed", tool="exec_command")
    s.add("tool_output", "Process exited with code 0\nAll checks passed!", tool="exec_command")
    s.add("tool_call", "command: npm test\nrun_in_background: true", tool="Bash")
    s.add("tool_output", "Command running in background with ID: bash_7", tool="Bash")
    s.add("tool_call", "bash_id: bash_7", tool="BashOutput")
    s.add("tool_output", "<status>completed</status>\n<exit_code>0</exit_code>", tool="BashOutput")
    s.add("tool_call", 'bash {"command": "make check"}', tool="bash")
    s.add("tool_output", "make: *** [check] Error 2", tool="bash")
    s.add("system", "Command failed with exit code 2.")
    found = [(c.seq, c.out_seq, c.command, c.exit) for c in rules.commands(s.turns)]
    assert found == [
        (0, 2, "pytest -q", 1),
        (1, 3, "ruff check .", 0),
        (4, 7, "npm test", 0),
        (8, 9, "make check", 2),
    ]


def test_edits_count_lines_of_edits_writes_and_patches_but_not_refused_ones() -> None:
    s = Script()
    s.edit("/repo/a.py", "x = 1\ny = 2", "x = 3")
    s.add("tool_call", "file_path: b.md\ncontent: # B\n\nhello\n", tool="Write", paths=("b.md",), edited=True)
    s.add("tool_output", "File created", tool="Write")
    s.add(
        "tool_call",
        "*** Begin Patch\n*** Update File: c.py\n@@\n-old\n+new\n+more\n*** End Patch",
        tool="apply_patch",
    )
    s.add("tool_output", "Success", tool="apply_patch")
    s.edit("/repo/d.py", "a", "b", refused=True)
    found = [(e.path, e.added, e.removed) for e in rules.edits(s.turns, cwd="/repo")]
    assert found == [("/repo/a.py", 1, 2), ("/repo/b.md", 3, 0), ("/repo/c.py", 2, 1)]


def test_pull_requests_opened_and_merged() -> None:
    s = Script()
    s.bash("gh pr create --fill", "Creating pull request\nhttps://github.com/acme/app/pull/42\n")
    s.bash("gh pr merge 42 --squash", "✓ Squashed and merged pull request #42")
    s.bash("gh pr create --fill", "a pull request already exists", error=True)
    cmds = rules.commands(s.turns)
    prs = [(p.action, p.url) for p in rules.pull_requests(s.turns, cmds)]
    assert prs == [("opened", "https://github.com/acme/app/pull/42"), ("merged", "gh pr merge 42 --squash")]


# --- claims beside their evidence -----------------------------------------------------------------


def _claims(s: Script, delegated: tuple[Command, ...] = ()) -> list[tuple[int, str, str, int | None]]:
    cmds = rules.commands(s.turns)
    found = rules_claims.claims(s.turns, cmds, rules.edits(s.turns), delegated)
    return [(c.seq, c.kind, c.status, c.evidence.seq if c.evidence else None) for c in found]


def test_a_claim_is_checked_by_a_passing_run_after_the_last_edit() -> None:
    s = Script()
    s.edit("/r/a.py", "a", "b")
    run = s.bash("uv run pytest -q", "12 passed in 0.4s")
    said = s.answer("All tests pass. Let me also check the docs.")
    assert _claims(s) == [(said, "tests", "checked", run)]


def test_a_claim_after_a_failing_run_is_contradicted() -> None:
    s = Script()
    s.edit("/r/a.py", "a", "b")
    run = s.bash("uv run pytest -q", "Exit code 1\n1 failed, 11 passed", error=True)
    said = s.answer("The tests pass now and the build is green.")
    assert _claims(s) == [(said, "tests", "contradicted", run), (said, "build", "contradicted", run)]


def test_a_claim_whose_run_came_before_the_last_edit_is_unchecked() -> None:
    s = Script()
    s.bash("uv run pytest -q", "12 passed")
    s.edit("/r/a.py", "a", "b")
    said = s.answer("Fixed the bug; all tests pass.")
    assert _claims(s) == [(said, "tests", "unchecked", None), (said, "fixed", "unchecked", None)]


def test_plans_questions_and_negations_are_not_claims() -> None:
    assert rules_claims.find_claims("Let me run the tests to make sure they pass.") == []
    assert rules_claims.find_claims("Do the tests pass?") == []
    assert rules_claims.find_claims("The tests are not passing yet, and I haven't pushed.") == []
    assert rules_claims.find_claims("```\n12 tests passed\n```") == []
    assert [
        k
        for k, _ in rules_claims.find_claims(
            "✅ Fixed the parser\n\nI've pushed the branch. PR #4 was merged."
        )
    ] == [
        "fixed",
        "pushed",
        "merged",
    ]


def test_pushed_needs_a_push_after_the_last_commit() -> None:
    s = Script()
    s.bash("git commit -am wip", "[main abc] wip")
    push = s.bash("git push origin main", "To github.com:acme/app.git")
    s.bash("git commit -am more", "[main abd] more")
    late = s.answer("I've pushed the changes.")
    assert _claims(s) == [(late, "pushed", "unchecked", None)]
    s2 = Script()
    s2.bash("git commit -am wip", "[main abc] wip")
    push = s2.bash("git push origin main", "To github.com:acme/app.git")
    said = s2.answer("Changes were pushed to main.")
    assert _claims(s2) == [(said, "pushed", "checked", push)]


def test_a_delegated_sessions_run_is_evidence_for_the_parent() -> None:
    s = Script()
    s.edit("/r/a.py", "a", "b")
    child = Script("s1/agent-1", start=s.clock)
    child.bash("go test ./...", "ok  \texample.com/app\t0.2s")
    s.clock = child.clock
    said = s.answer("The subagent ran them: tests pass.")
    delegated = tuple(rules.commands(child.turns, "s1/agent-1"))
    assert _claims(s, delegated) == [(said, "tests", "checked", 0)]


def test_fixed_is_checked_by_rerunning_the_command_that_failed() -> None:
    s = Script()
    s.bash("./scripts/migrate.sh", "Exit code 3\nno such table", error=True)
    s.edit("/r/migrate.sh", "a", "b")
    rerun = s.bash("./scripts/migrate.sh", "migrated 3 tables")
    said = s.answer("The migration is fixed.")
    assert _claims(s) == [(said, "fixed", "checked", rerun)]


# --- incidents ------------------------------------------------------------------------------------


def test_corrections_name_the_agent_turn_they_correct() -> None:
    s = Script()
    s.prompt("No, set it up with pip")  # the first prompt corrects nothing yet
    wrong = s.answer("I installed it with pip.")
    said = s.prompt("No, that's wrong: we use uv here, never pip.")
    s.answer("Sorry, switching to uv.")
    s.prompt("No problem, carry on.")
    s.prompt("<command-name>/clear</command-name>")
    cleared = s.answer("Cleared.")
    again = s.prompt("I told you to keep the API stable.")
    found = [(i.seq, i.cause, i.kind) for i in rules_incidents.corrections(s.turns, [], [])]
    assert found == [(said, wrong, "correction"), (again, cleared, "correction")]


def test_reverting_the_agents_edit_at_a_persons_request_is_a_correction() -> None:
    s = Script()
    edit = s.edit("/r/src/app.py", "a", "b")
    s.prompt("put the old version of app.py back")
    revert = s.bash("git restore src/app.py", "")
    cmds = rules.commands(s.turns)
    found = [
        (i.seq, i.cause, i.rule) for i in rules_incidents.corrections(s.turns, cmds, rules.edits(s.turns))
    ]
    assert (revert, edit, "revert_edit") in found


def test_blocked_steps_tool_errors_and_repeated_failures() -> None:
    s = Script()
    denied = s.edit("/r/a.py", "a", "b", refused=True)
    s.add("tool_call", "file_path: /r/missing.py", tool="Read")
    s.add("tool_output", "<tool_use_error>File does not exist.</tool_use_error>", tool="Read", error=True)
    s.add("error", "API error: 529 overloaded")
    s.bash("grep -rn TODO src", "Exit code 1", error=True)  # grep found nothing: not a failure
    s.bash("grep -rn TODO src", "Exit code 1", error=True)
    first = s.bash("uv run pytest -q", "Exit code 1\n1 failed", error=True)
    s.bash("uv run pytest -q 2>&1 | tail -5", "Exit code 1\n1 failed", error=True)
    s.bash("uv run pytest -q", "12 passed")
    s.bash("make lint", "Exit code 2", error=True)  # once only: not repeated
    s.bash(
        "curl localhost:8080", "Exit code 7\ncurl: (7) Connection refused", error=True
    )  # a failure, not a block
    found = [(i.kind, i.cause) for i in rules_incidents.failed_steps(s.turns, rules.commands(s.turns))]
    assert found == [("blocked", denied), ("tool_error", 2), ("tool_error", None), ("failing_command", first)]


@pytest.mark.parametrize(
    ("command", "reason"),
    [
        ("rm -rf src", "rm -rf"),
        ("cd app && rm -fr ./data", "rm -rf"),
        ("rm -r -f build/", None),  # a build folder comes back
        ("rm -rf node_modules /tmp/x", None),
        ("git reset --hard HEAD~3", "git reset --hard"),
        ("git push --force origin main", "git push --force"),
        ("git push -f", "git push --force"),
        ("git push origin +main", "git push --force"),
        ("git push origin main", None),
        ("git clean -fdx", "git clean -f"),
        ("git checkout .", "git checkout . (discards all uncommitted changes)"),
        ("psql -c 'DROP TABLE users;'", "DROP TABLE"),
        ("echo 'never rm -rf / or git reset --hard'", None),
        ("grep -n 'DROP TABLE' schema.sql", None),
    ],
)
def test_destructive_commands(command: str, reason: str | None) -> None:
    assert rules_incidents.destructive_reason(command) == reason


def test_destructive_sql_through_a_database_tool() -> None:
    s = Script()
    s.add("tool_call", "query: DROP TABLE invoices", tool="mcp__db__execute_sql")
    s.add("tool_output", "ok", tool="mcp__db__execute_sql")
    s.bash("rm -rf ~/project", "")
    found = [(i.rule, i.cause) for i in rules_incidents.destructive(s.turns, rules.commands(s.turns))]
    assert found == [("destructive_command", 2), ("destructive_sql", 0)]


def test_overlapping_edits_and_redone_work_across_sessions() -> None:
    spans = {
        "a": SessionSpan("a", "2026-03-02T09:00:00Z", "2026-03-02T10:00:00Z", None),
        "b": SessionSpan("b", "2026-03-02T09:30:00Z", "2026-03-02T11:00:00Z", None),
        "a/agent-1": SessionSpan("a/agent-1", "2026-03-02T09:10:00Z", "2026-03-02T09:20:00Z", "a"),
        "c": SessionSpan("c", "2026-03-03T09:00:00Z", "2026-03-03T10:00:00Z", None),
    }
    digest = "d" * 20
    rows = [
        EditRow("a", 3, "2026-03-02T09:40:00Z", "/r/app.py", ""),
        EditRow("b", 5, "2026-03-02T09:45:00Z", "/r/app.py", ""),
        EditRow("a/agent-1", 2, "2026-03-02T09:15:00Z", "/r/app.py", ""),  # a subagent: no clash
        EditRow("a", 8, "2026-03-02T09:50:00Z", "/r/x/util.py", digest),
        EditRow("c", 4, "2026-03-03T09:30:00Z", "/other/x/util.py", digest),
    ]
    found = [(sid, i.kind, i.cause, i.other_session) for sid, i in rules_cross.cross_session(rows, spans)]
    assert found == [("b", "overlap", 5, "a"), ("c", "redone", 4, "a")]


def test_analyse_bundles_every_rule() -> None:
    s = Script()
    s.prompt("Make the parser strict")
    s.edit("/r/parse.py", "a", "b")
    s.bash("uv run pytest", "3 passed")
    s.answer("Done: tests pass.")
    facts = rules.analyse(s.turns, cwd="/r")
    assert facts.task == "Make the parser strict" and facts.outcome == "Done: tests pass."
    assert [c.status for c in facts.claims] == ["checked"] and len(facts.edits) == 1 and facts.incidents == []


def test_many_sessions_editing_one_file_give_a_bounded_number_of_incidents() -> None:
    def at(day: int, minute: int) -> str:
        return f"2026-03-0{day}T{9 + minute // 60:02d}:{minute % 60:02d}:00Z"

    spans, rows = {}, []
    # Eight sessions all at work on app.py in one hour, four more the next day, one after them.
    for n in range(13):
        sid = f"s{n:02d}"
        day, start, minute = (2, 0, 10 + n) if n < 8 else (3, 0, 10 + n) if n < 12 else (2, 180, 200)
        spans[sid] = SessionSpan(sid, at(day, start), at(day, start + 60), None)
        rows.append(EditRow(sid, 1, at(day, minute), "/r/app.py", ""))
    # One session redoes seven changes s00 made.
    spans["z"] = SessionSpan("z", at(4, 0), at(4, 60), None)
    for n in range(7):
        rows.append(EditRow("s00", 10 + n, at(2, 20 + n), "/r/lib.py", f"{n:020d}"))
        rows.append(EditRow("z", 10 + n, at(4, 20 + n), "/r/lib.py", f"{n:020d}"))

    found = rules_cross.cross_session(rows, spans)
    overlaps: dict[str, list[str | None]] = {}
    for sid, i in found:
        if i.rule == "overlapping_edits":
            overlaps.setdefault(sid, []).append(i.other_session)
    # Each session names the (at most five) latest sessions before it on the file; the rest are counted.
    assert overlaps == {
        "s01": ["s00"],
        "s02": ["s00", "s01"],
        "s03": ["s00", "s01", "s02"],
        "s04": ["s00", "s01", "s02", "s03"],
        "s05": ["s00", "s01", "s02", "s03", "s04"],
        "s06": ["s01", "s02", "s03", "s04", "s05", None],
        "s07": ["s02", "s03", "s04", "s05", "s06", None],
        "s09": ["s08"],
        "s10": ["s08", "s09"],
        "s11": ["s08", "s09", "s10"],
    }
    counted = [i.summary for sid, i in found if i.other_session is None and i.rule == "overlapping_edits"]
    assert [s.split(" by ")[1] for s in counted] == ["1 more session", "2 more sessions"]
    redone = [(sid, i.seq, i.other_session) for sid, i in found if i.rule == "redone_edit"]
    assert redone == [("z", 10 + n, "s00") for n in range(5)] + [("z", 15, None)]
    assert [i.summary for _, i in found][-1] == "made 2 more changes to lib.py that other sessions had made"
