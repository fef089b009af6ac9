"""The hook command's last-resort handler (issue 21): whatever the agent-hook handler does (raise,
exit 2, fail to import), `git hippo hook` exits 0 with the harness's neutral output and logs why.

The failures are planted in a real subprocess through a `sitecustomize` module on PYTHONPATH, so
the code under test is the installed command, unchanged."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hippo_git.agents.hooks import _nothing
from hippo_git.agents.spec import EVENTS
from hippo_git.cli.hook_cmds import neutral_output
from tests.conftest import make_repo, run_cli

PLANTS = {
    "raises": (
        "import hippo_git.agents.hooks as h\n"
        "def boom(*a, **k):\n    raise RuntimeError('planted failure in the handler')\n"
        "h.handle = boom\n"
    ),
    "exits-2": (
        "import hippo_git.agents.hooks as h\ndef boom(*a, **k):\n    raise SystemExit(2)\nh.handle = boom\n"
    ),
    "cannot-import": "import sys\nsys.modules['hippo_git.agents.hooks'] = None\n",
}


@pytest.fixture
def ws(tmp_path: Path) -> Path:
    root = make_repo(tmp_path / "ws")
    assert run_cli(["init", "--no-hooks"], cwd=root).returncode == 0
    return root


def _hook(ws: Path, plant_dir: Path | None, name: str, payload: bytes) -> subprocess.CompletedProcess[bytes]:
    env = dict(os.environ)
    if plant_dir is not None:
        env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plant_dir), env.get("PYTHONPATH", "")]))
    return subprocess.run(
        [sys.executable, "-m", "hippo_git", "hook", name],
        cwd=ws,
        input=payload,
        capture_output=True,
        env=env,
        timeout=60,
    )


@pytest.mark.parametrize("plant", sorted(PLANTS))
def test_a_failing_handler_never_fails_the_agent(ws: Path, tmp_path: Path, plant: str) -> None:
    plant_dir = tmp_path / "plant"
    plant_dir.mkdir()
    (plant_dir / "sitecustomize.py").write_text(PLANTS[plant])
    payload = json.dumps({"session_id": "s-1", "cwd": str(ws), "prompt": "hello"}).encode()
    for name in ("session-start", "prompt", "gemini-prompt", "cursor-prompt", "cursor-session-start"):
        proc = _hook(ws, plant_dir, name, payload)
        expected = neutral_output(name) + "\n" if neutral_output(name) else ""  # one line, or nothing
        assert (proc.returncode, proc.stdout.decode(), proc.stderr.decode()) == (0, expected, ""), (
            name,
            proc.stderr.decode()[-500:],
        )
    log = (Path(os.environ["HIPPO_HOME"]) / "logs" / "errors.log").read_text()
    expected = {
        "raises": "planted failure",
        "exits-2": "SystemExit: 2",
        "cannot-import": "ModuleNotFoundError",
    }
    assert expected[plant] in log


def test_an_unusable_hippo_home_does_not_break_the_net(ws: Path, tmp_path: Path) -> None:
    """Logging itself fails (HIPPO_HOME is a file): the hook still exits 0, quietly."""
    plant_dir = tmp_path / "plant"
    plant_dir.mkdir()
    (plant_dir / "sitecustomize.py").write_text(PLANTS["raises"])
    blocker = tmp_path / "home-is-a-file"
    blocker.write_text("")
    env = {**os.environ, "HIPPO_HOME": str(blocker), "PYTHONPATH": str(plant_dir)}
    proc = subprocess.run(
        [sys.executable, "-m", "hippo_git", "hook", "gemini-prompt"],
        cwd=ws,
        input=b"{}",
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"{}\n", b"")


def test_a_payload_that_is_not_utf8_still_reaches_the_handler(ws: Path) -> None:
    payload = b'{"session_id": "s-9", "cwd": "' + str(ws).encode() + b'", "prompt": "caf\xe9 ole \xff"}'
    proc = _hook(ws, None, "gemini-prompt", payload)
    assert (proc.returncode, proc.stderr) == (0, b"")
    json.loads(proc.stdout)
    assert not (Path(os.environ["HIPPO_HOME"]) / "logs" / "errors.log").exists()
    record = json.loads((ws / ".hippo" / "sessions" / "s-9.json").read_text())
    assert record["prompts"] == ["caf\ufffd ole \ufffd"]


def test_a_terminal_on_stdin_is_not_read(ws: Path) -> None:
    """Run by hand from a shell, the hook must not wait for a payload that never comes."""
    import pty

    leader, follower = pty.openpty()
    try:
        proc = subprocess.run(
            [sys.executable, "-m", "hippo_git", "hook", "gemini-prompt"],
            cwd=ws,
            stdin=follower,
            capture_output=True,
            timeout=60,
        )
    finally:
        os.close(follower)
        os.close(leader)
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"{}\n", b"")


def test_a_hippo_home_that_cannot_be_resolved_still_exits_zero(ws: Path) -> None:
    """`~user` of no user: resolving it raises, in the handler and again in the logging."""
    env = {**os.environ, "HIPPO_HOME": "~no-such-user-of-hippo/home"}
    proc = subprocess.run(
        [sys.executable, "-m", "hippo_git", "hook", "cursor-prompt"],
        cwd=ws,
        input=b"{}",
        capture_output=True,
        env=env,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b'{"continue": true}\n', b"")


def test_git_hooks_report_on_stderr_and_keep_their_exit_code(ws: Path) -> None:
    (ws / ".hippo" / "sessions").mkdir(parents=True, exist_ok=True)
    (ws / ".hippo" / "sessions" / "s1.json").write_text("{}")
    subprocess.run(["git", "add", "-f", ".hippo/sessions/s1.json"], cwd=ws, check=True)
    proc = subprocess.run(
        [sys.executable, "-m", "hippo_git", "hook", "pre-commit"], cwd=ws, capture_output=True, timeout=60
    )
    assert proc.returncode == 1 and proc.stdout == b""
    assert b".hippo/sessions/s1.json" in proc.stderr
    assert proc.stderr.endswith(b"\n") and not proc.stderr.endswith(b"\n\n")  # one line end, not two


def test_options_a_harness_adds_are_passed_on_not_refused(ws: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-m", "hippo_git", "hook", "gemini-prompt", "--verbose", "x"],
        cwd=ws,
        input=b"{}",
        capture_output=True,
        timeout=60,
    )
    assert (proc.returncode, proc.stdout, proc.stderr) == (0, b"{}\n", b"")


def test_the_neutral_output_agrees_with_the_handlers(ws: Path) -> None:
    for name, (harness, spec) in EVENTS.items():
        assert neutral_output(name) == _nothing(harness, spec), name
