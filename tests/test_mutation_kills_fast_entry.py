"""`context` and the agent hooks answered without click, in process (issue 21, mutation testing of
cli/fast_entry.py): the last-resort handler around every agent hook, the payload read from
stdin, what reaches stdout and stderr, and which `context` forms are answered here and how.

The subprocess tests (test_hook_safety_net.py, test_fast_entry.py) show the installed command
end to end; these pin each piece's exact output, so a changed line shows up in seconds."""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest

from hippo_git.agents.spec import EVENTS
from hippo_git.cli import fast_entry
from hippo_git.cli.fast_entry import (
    ContextArgs,
    agent_hook,
    context_output,
    echo,
    neutral_output,
    parse_context_args,
    run_agent_hook,
    run_context,
)
from hippo_git.config import load_config
from hippo_git.notes.context import build_context
from tests.conftest import make_repo

# What the planted handler saw and what it does; reset by the `planted` fixture.
SEEN: list[tuple[str, str, Path]] = []
ACTION: dict[str, Any] = {}


def _handler(event: str, payload_text: str, cwd: Path) -> tuple[int, str, str]:
    SEEN.append((event, payload_text, cwd))
    todo = ACTION.get("do")
    if isinstance(todo, BaseException):
        raise todo
    assert isinstance(todo, tuple)
    return todo


class _Stream(io.StringIO):
    def __init__(self, text: str = "", *, tty: bool = False) -> None:
        super().__init__(text)
        self.tty = tty

    def isatty(self) -> bool:
        return self.tty


class _ByteStdin(_Stream):
    """stdin with a byte buffer under it, as a pipe has."""

    def __init__(self, data: bytes, *, tty: bool = False) -> None:
        super().__init__("never read as text", tty=tty)
        self.buffer = io.BytesIO(data)


@pytest.fixture
def planted(monkeypatch: pytest.MonkeyPatch) -> None:
    SEEN.clear()
    ACTION.clear()
    monkeypatch.setattr(fast_entry, "AGENT_HOOK_HANDLER", f"{__name__}:_handler")


def _log() -> str:
    path = Path(os.environ["HIPPO_HOME"]) / "logs" / "errors.log"
    return path.read_text() if path.exists() else ""


# -- the neutral output: what each harness reads when a hook has nothing to say -----------------


@pytest.mark.parametrize(
    ("name", "expected"),
    [
        ("cursor-prompt", '{"continue": true}'),
        ("cursor-session-start", "{}"),
        ("cursor-stop", "{}"),
        ("gemini-prompt", "{}"),
        ("gemini-session-start", "{}"),
        ("session-start", ""),
        ("prompt", ""),
        ("codex-prompt", ""),
        ("cursor", ""),  # no dash: not a Cursor hook name
        ("gemini", ""),
        ("", ""),
    ],
)
def test_the_neutral_output_of_each_kind_of_name(name: str, expected: str) -> None:
    assert neutral_output(name) == expected


def test_every_known_hook_has_json_or_nothing_as_its_neutral_output() -> None:
    for name, (harness, _) in EVENTS.items():
        out = neutral_output(name)
        if harness in ("gemini", "cursor"):
            assert isinstance(json.loads(out), dict), name
        else:
            assert out == "", name


# -- the payload on stdin --------------------------------------------------------------------------


def test_the_payload_is_read_as_utf8_bytes_with_bad_bytes_replaced(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", _ByteStdin(b'{"p": "caf\xc3\xa9 \xff"}'))
    assert fast_entry._read_payload() == '{"p": "caf\u00e9 \ufffd"}'


def test_a_stdin_without_a_byte_buffer_is_read_as_text(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", _Stream("text payload"))
    assert fast_entry._read_payload() == "text payload"


def test_no_stdin_or_a_terminal_gives_an_empty_payload(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", None)
    assert fast_entry._read_payload() == ""
    monkeypatch.setattr("sys.stdin", _ByteStdin(b"never read", tty=True))
    assert fast_entry._read_payload() == ""


# -- the last-resort handler ------------------------------------------------------------------------


def test_the_handler_gets_the_hook_name_the_payload_and_the_cwd(
    planted: None, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setattr("sys.stdin", _ByteStdin(b'{"session_id": "s"}'))
    ACTION["do"] = (0, '{"a": 1}', "")
    assert agent_hook("gemini-prompt") == (0, '{"a": 1}', "")
    assert [("gemini-prompt", '{"session_id": "s"}', tmp_path)] == SEEN
    ACTION["do"] = (7, "out", "err")  # whatever the handler answers is passed on as it is
    assert agent_hook("prompt") == (7, "out", "err")
    assert _log() == ""


@pytest.mark.parametrize(
    "failure",
    [RuntimeError("planted failure"), ValueError("bad payload"), SystemExit(2), SystemExit("stop")],
    ids=["runtime-error", "value-error", "exit-2", "exit-text"],
)
@pytest.mark.parametrize("name", ["prompt", "session-start", "gemini-prompt", "cursor-prompt", "cursor-stop"])
def test_a_failing_handler_answers_neutrally_and_is_logged(
    planted: None, monkeypatch: pytest.MonkeyPatch, failure: BaseException, name: str
) -> None:
    monkeypatch.setattr("sys.stdin", None)
    ACTION["do"] = failure
    assert agent_hook(name) == (0, neutral_output(name), "")
    assert f"{type(failure).__name__}: {failure}" in _log()


def test_a_handler_that_cannot_be_found_answers_neutrally(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", None)
    monkeypatch.setattr(fast_entry, "AGENT_HOOK_HANDLER", "hippo_git.no_such_module:handle")
    assert agent_hook("cursor-prompt") == (0, '{"continue": true}', "")
    assert "ModuleNotFoundError" in _log()
    monkeypatch.setattr(fast_entry, "AGENT_HOOK_HANDLER", f"{__name__}:no_such_function")
    assert agent_hook("gemini-prompt") == (0, "{}", "")
    assert "AttributeError" in _log()


def test_ctrl_c_is_not_swallowed(planted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("sys.stdin", None)
    ACTION["do"] = KeyboardInterrupt()
    with pytest.raises(KeyboardInterrupt):
        agent_hook("prompt")


def test_a_failure_to_log_stays_inside_the_net(planted: None, monkeypatch: pytest.MonkeyPatch) -> None:
    import hippo_git.cli.main as cli_main

    def unusable(exc: BaseException) -> None:
        raise PermissionError("no log for you")

    monkeypatch.setattr(cli_main, "_log_unexpected", unusable)
    monkeypatch.setattr("sys.stdin", None)
    ACTION["do"] = RuntimeError("planted")
    assert agent_hook("gemini-prompt") == (0, "{}", "")
    fast_entry._log_quietly(RuntimeError("direct"))  # returns quietly


def test_the_log_holds_the_traceback(monkeypatch: pytest.MonkeyPatch) -> None:
    fast_entry._log_quietly(RuntimeError("logged here"))
    assert "RuntimeError: logged here" in _log()


# -- what reaches stdout and stderr -----------------------------------------------------------------


def test_echo_strips_ansi_codes_unless_writing_to_a_terminal(monkeypatch: pytest.MonkeyPatch) -> None:
    out, err = _Stream(), _Stream(tty=True)
    monkeypatch.setattr("sys.stdout", out)
    monkeypatch.setattr("sys.stderr", err)
    echo("\033[1mbold\033[0m and \033[?25lplain")
    echo("\033[31mred\033[0m", err=True, nl=False)
    echo("x", nl=False)
    assert out.getvalue() == "bold and plain\nx"
    assert err.getvalue() == "\033[31mred\033[0m"


@pytest.mark.parametrize(
    ("answer", "stdout", "stderr"),
    [
        ((0, "{}", ""), "{}\n", ""),
        ((0, "{}\n", ""), "{}\n", ""),
        ((0, "", ""), "", ""),
        ((3, "out", "err"), "out\n", "err\n"),
        ((0, "", "err\n"), "", "err\n"),
    ],
)
def test_a_hook_prints_its_answer_with_one_line_end_each(
    planted: None,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    answer: tuple[int, str, str],
    stdout: str,
    stderr: str,
) -> None:
    monkeypatch.setattr("sys.stdin", None)
    ACTION["do"] = answer
    assert run_agent_hook("prompt") == answer[0]
    assert capsys.readouterr() == (stdout, stderr)


def test_inside_hippos_own_model_runs_a_hook_does_nothing(
    planted: None, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("HIPPO_INTERNAL", "1")
    ACTION["do"] = (5, "never", "printed")
    assert run_agent_hook("gemini-prompt") == 0
    assert SEEN == [] and capsys.readouterr() == ("", "")


# -- which `context` forms are answered here --------------------------------------------------------


@pytest.mark.parametrize(
    ("argv", "expected"),
    [
        ([], ContextArgs()),
        (["--json"], ContextArgs(as_json=True)),
        (["--claude-hook", "--json"], ContextArgs(claude_hook=True, as_json=True)),
        (["--task", "a b"], ContextArgs(task="a b")),
        (["--task="], ContextArgs(task="")),
        (["--task=x=y"], ContextArgs(task="x=y")),
        (["--budget=0"], ContextArgs(budget=0)),
        (["--budget", "-5"], None),  # a value starting with a dash is left to click
        (["--budget=-5"], ContextArgs(budget=-5)),
        (["--budget", "12", "--task", "t"], ContextArgs(task="t", budget=12)),
        (["--format", "markdown"], ContextArgs(fmt="markdown")),
        (["--format=json", "--json"], ContextArgs(as_json=True, fmt="json")),
        (["--framing", "observe", "--framing=suggest"], ContextArgs(framing="suggest")),
        (["--task"], None),
        (["--json", "--task"], None),
        (["--task", "t", "--budget"], None),
        (["--budget", "1.5"], None),
        (["--format"], None),
        (["--format=JSON"], None),
        (["--framing", "observe", "--framing", "quiet"], None),
        (["--claude-hook", "-x"], None),
        (["--tasks", "x"], None),
        (["--task", "t", "stray"], None),
    ],
)
def test_parse_context_args_exactly(argv: list[str], expected: ContextArgs | None) -> None:
    assert parse_context_args(argv) == expected


@pytest.fixture
def ws(tmp_path: Path, hippo: Any, monkeypatch: pytest.MonkeyPatch) -> Path:
    root = make_repo(tmp_path / "ws")
    assert hippo(["init", "--no-hooks"], cwd=root).exit_code == 0
    (root / "notes" / "deploy.md").write_text(
        "---\ntitle: Deploy\n---\nArgo canary rollout, déploiement. [[index]]\n"
    )
    monkeypatch.chdir(root)
    return root


def test_context_output_in_each_format(ws: Path) -> None:
    cfg = load_config()
    plain = build_context(cfg, "deploy", None)
    hooked = build_context(cfg, "deploy", None, for_claude_hook=True)
    text = context_output("deploy", None, False, False, None, "observe")
    assert text == (plain.text if plain.text.endswith("\n") else plain.text + "\n")
    assert text.endswith("\n") and not text.endswith("\n\n")
    assert context_output("deploy", None, False, False, "markdown", "observe") == text
    as_json = json.loads(context_output("deploy", None, False, True, None, "observe"))
    assert as_json == json.loads(context_output("deploy", None, False, False, "json", "observe"))
    assert as_json["text"] == plain.text and "déploiement" in as_json["text"]
    raw = context_output("deploy", 4321, False, True, None, "observe")
    assert raw.startswith('{\n  "task": "deploy",\n  "budget": 4321,\n') and raw.endswith("\n}\n")
    assert "déploiement" in raw  # not escaped to \\u00e9
    claude = hooked.claude_hook() + "\n"
    assert context_output("deploy", None, True, False, None, "observe") == claude
    assert context_output("deploy", None, False, False, "claude-hook", "observe") == claude
    assert json.loads(claude)["hookSpecificOutput"]["additionalContext"] == hooked.text
    # --json wins over the hook form, as in the click command
    assert json.loads(context_output("deploy", None, True, True, None, "observe"))["text"] == hooked.text


def test_run_context_prints_the_block_and_exits_zero(ws: Path, capsys: pytest.CaptureFixture[str]) -> None:
    expected = context_output("deploy", 5000, False, True, None, "observe")
    assert run_context(["--task", "deploy", "--budget", "5000", "--json"]) == 0
    assert capsys.readouterr() == (expected, "")


def test_run_context_reports_a_budget_too_small_as_an_error(
    ws: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_context(["--budget", "10"]) == 1
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("error: the required context is ") and "\nhint: " in err
    assert err.endswith("\n") and not err.endswith("\n\n")


def test_run_context_leaves_less_plain_forms_and_surprises_to_click(
    ws: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_context(["--help"]) is None

    def broken(*args: object) -> str:
        raise RuntimeError("surprise")

    monkeypatch.setattr(fast_entry, "context_output", broken)
    assert run_context(["--task", "x"]) is None
    assert capsys.readouterr() == ("", "")


def test_run_context_into_a_closed_pipe_exits_one(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    class Closed(_Stream):
        def write(self, text: str) -> int:
            raise BrokenPipeError

    monkeypatch.setattr("sys.stdout", Closed())
    assert run_context(["--task", "x"]) == 1


def test_a_long_command_line_is_read_to_its_end() -> None:
    """Past 256 arguments the position and the length are equal ints but not one object."""
    assert parse_context_args(["--json"] * 300) == ContextArgs(as_json=True)
    assert parse_context_args(["--task", "t"] * 150) == ContextArgs(task="t")
    assert parse_context_args(["--json"] * 299 + ["--task"]) is None


def test_context_output_ends_with_exactly_one_line_end(ws: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The printed block always ends with one newline, also for a block text that has none."""
    import dataclasses

    from hippo_git.notes import context

    real = context.build_context

    def without_line_end(*args: Any, **kwargs: Any) -> Any:
        block = real(*args, **kwargs)
        return dataclasses.replace(block, text=block.text.rstrip("\n"))

    expected = real(load_config(), "deploy", None).text
    monkeypatch.setattr(context, "build_context", without_line_end)
    assert context_output("deploy", None, False, False, None, "observe") == expected.rstrip("\n") + "\n"
