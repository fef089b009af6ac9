"""Running a model command in isolation (invariant 4).

A model runs only through the argv of `model_command`, with the prompt on stdin, in a fresh
scratch folder `$HIPPO_HOME/model-runs/<run>/<n>/` that is removed afterwards (ingest never reads
it), with an environment built from an allowlist, a timeout that kills the whole process group,
and a cap on what it may print. A failure is a `ModelRunError` the dream reports, never a crash.

The environment a model command gets (nothing else of the caller's environment passes):
- `PATH`, `HOME`, `USER`, `LOGNAME`, `LANG`, `LC_ALL`, `LC_CTYPE`, `TERM`, `TZ`, `SYSTEMROOT`
  (the basics a CLI needs to start and to find its own login under HOME);
- the model CLIs' own settings and credentials when set: `ANTHROPIC_API_KEY`, `ANTHROPIC_AUTH_TOKEN`,
  `ANTHROPIC_BASE_URL`, `ANTHROPIC_MODEL`, `CLAUDE_CONFIG_DIR`, `CLAUDE_CODE_USE_BEDROCK`,
  `CLAUDE_CODE_USE_VERTEX`, `OPENAI_API_KEY`, `OPENAI_BASE_URL`, `CODEX_HOME`, `GEMINI_API_KEY`,
  `GOOGLE_API_KEY`, `DEEPSEEK_API_KEY`, `OPENROUTER_API_KEY`, `MISTRAL_API_KEY`, `LLM_USER_PATH`,
  `OLLAMA_HOST`, and proxy/CA settings (`HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY` in both cases,
  `SSL_CERT_FILE`, `SSL_CERT_DIR`, `REQUESTS_CA_BUNDLE`);
- set by hippo: `PWD` and `TMPDIR` = the scratch folder, `HIPPO_INTERNAL=1` (hippo's own hooks
  no-op inside a model run), `PYTHONDONTWRITEBYTECODE=1`, and `GIT_CEILING_DIRECTORIES` so git
  run inside the model finds no repository above the scratch folder.
The workspace path, `HIPPO_HOME` and `GIT_*` never pass, so a model command has no pointer to the
repository.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from hippo_git.config import Config
from hippo_git.errors import HippoError

BASE_ENV = ("PATH", "HOME", "USER", "LOGNAME", "LANG", "LC_ALL", "LC_CTYPE", "TERM", "TZ", "SYSTEMROOT")
MODEL_ENV = (
    "ANTHROPIC_API_KEY",
    "ANTHROPIC_AUTH_TOKEN",
    "ANTHROPIC_BASE_URL",
    "ANTHROPIC_MODEL",
    "CLAUDE_CONFIG_DIR",
    "CLAUDE_CODE_USE_BEDROCK",
    "CLAUDE_CODE_USE_VERTEX",
    "OPENAI_API_KEY",
    "OPENAI_BASE_URL",
    "CODEX_HOME",
    "GEMINI_API_KEY",
    "GOOGLE_API_KEY",
    "DEEPSEEK_API_KEY",
    "OPENROUTER_API_KEY",
    "MISTRAL_API_KEY",
    "LLM_USER_PATH",
    "OLLAMA_HOST",
    "HTTPS_PROXY",
    "HTTP_PROXY",
    "NO_PROXY",
    "https_proxy",
    "http_proxy",
    "no_proxy",
    "SSL_CERT_FILE",
    "SSL_CERT_DIR",
    "REQUESTS_CA_BUNDLE",
)
ALLOWED_ENV = BASE_ENV + MODEL_ENV
OUTPUT_CAP = 2_000_000  # bytes of stdout a model may print
STDERR_KEEP = 4_000  # bytes of stderr kept for the error message

# The flag set of AGENT-INTEGRATION.md §1: no tools, no MCP servers, no project settings, no hooks,
# no saved session. The prompt arrives on stdin.
CLAUDE_ARGV = (
    "claude",
    "-p",
    "--output-format",
    "json",
    "--tools",
    "",
    "--strict-mcp-config",
    "--no-session-persistence",
    "--setting-sources",
    "user",
    "--settings",
    '{"disableAllHooks": true}',
)


class ModelRunError(HippoError):
    """The model command failed: not found, non-zero exit, timeout or too much output."""


@dataclass(frozen=True)
class ModelOutput:
    """A model command's stdout, with how long it took and how many bytes went in and out."""

    stdout: str
    seconds: float
    bytes_in: int
    bytes_out: int


class Model(Protocol):
    """Something that answers a prompt: a model command, or an in-process stand-in for tests."""

    @property
    def argv(self) -> tuple[str, ...]: ...

    def __call__(self, prompt: str) -> ModelOutput: ...


@dataclass(frozen=True)
class CommandModel:
    """The configured model command, run in isolation by `run_model` for every call."""

    argv: tuple[str, ...]
    home: Path
    run_id: str
    parent_env: Mapping[str, str]
    timeout_s: float

    def __call__(self, prompt: str) -> ModelOutput:
        return run_model(
            self.argv,
            prompt,
            home=self.home,
            run_id=self.run_id,
            parent_env=self.parent_env,
            timeout_s=self.timeout_s,
        )


@dataclass(frozen=True)
class InProcessModel:
    """A model answered by a Python function (the heuristic in `packs test`, scripted replies, benchmarks).
    `argv` is what receipts name as the reviewer."""

    argv: tuple[str, ...]
    answer: Callable[[str], str]

    def __call__(self, prompt: str) -> ModelOutput:
        started = time.monotonic()
        out = self.answer(prompt)
        return ModelOutput(
            stdout=out,
            seconds=time.monotonic() - started,
            bytes_in=len(prompt.encode("utf-8")),
            bytes_out=len(out.encode("utf-8")),
        )


def heuristic_argv() -> tuple[str, ...]:
    return (sys.executable, "-m", "hippo_git", "model", "heuristic")


def is_heuristic(argv: Sequence[str]) -> bool:
    return tuple(argv[-2:]) == ("model", "heuristic")


def _heuristic_reply(prompt: str) -> str:
    from hippo_git.dream.heuristic import answer

    code, out = answer(prompt)
    if code != 0:
        raise ModelRunError(f"the built-in model exited with status {code}: {out[:300]}")
    return out


def builtin_model(argv: Sequence[str]) -> InProcessModel:
    """The built-in offline model, answered in this process. It is hippo's own code reading the same
    request text, so the isolation of invariant 4 (which guards against what an external command
    may do) costs a Python start per call and protects nothing; receipts still name `argv`."""
    return InProcessModel(tuple(argv), _heuristic_reply)


def make_model(
    argv: Sequence[str], home: Path, run_id: str, env: Mapping[str, str], timeout_s: float
) -> Model:
    """The model a run uses for `argv`: the built-in one in process, any other command isolated."""
    if is_heuristic(argv):
        return builtin_model(argv)
    return CommandModel(tuple(argv), home, run_id, env, timeout_s)


def default_model_command(configured: Sequence[str], path_env: str | None) -> tuple[str, ...]:
    """`model_command` when set; else `claude -p ...` when claude is on PATH; else the heuristic."""
    if configured:
        return tuple(configured)
    if shutil.which("claude", path=path_env) is not None:
        return CLAUDE_ARGV
    return heuristic_argv()


def resolve_model_command(cfg: Config, path_env: str | None = None) -> tuple[tuple[str, ...], str]:
    """The argv a dream would run and why: ("model_command" | "claude on PATH" | "built-in heuristic")."""
    argv = default_model_command(cfg.model_command, path_env)
    if cfg.model_command:
        return argv, f"model_command ({cfg.sources.get('model_command', 'configured')})"
    return argv, "built-in heuristic (no model CLI found)" if is_heuristic(argv) else "claude on PATH"


def scrubbed_env(parent: Mapping[str, str], scratch: Path) -> dict[str, str]:
    env = {k: parent[k] for k in ALLOWED_ENV if parent.get(k)}
    env.setdefault("PATH", os.defpath)
    env.update(
        {
            "PWD": str(scratch),
            "TMPDIR": str(scratch),
            "HIPPO_INTERNAL": "1",
            "PYTHONDONTWRITEBYTECODE": "1",
            # git run by the model finds no repository above its scratch folder
            "GIT_CEILING_DIRECTORIES": str(scratch.parent),
        }
    )
    return env


def new_scratch(home: Path, run_id: str) -> Path:
    """A fresh, empty folder `$HIPPO_HOME/model-runs/<run>/<n>/` (n counts up; never reused)."""
    base = home / "model-runs" / run_id
    base.mkdir(parents=True, exist_ok=True)
    n = len(os.listdir(base)) + 1
    while True:
        scratch = base / str(n)
        try:
            scratch.mkdir(mode=0o700)
            return scratch
        except FileExistsError:
            n += 1


def _kill_group(proc: subprocess.Popen[bytes]) -> None:
    try:
        if hasattr(os, "killpg"):
            os.killpg(proc.pid, signal.SIGKILL)
        else:
            proc.kill()
    except (ProcessLookupError, PermissionError):
        pass


def run_model(
    argv: Sequence[str],
    prompt: str,
    *,
    home: Path,
    run_id: str,
    parent_env: Mapping[str, str],
    timeout_s: float,
    output_cap: int = OUTPUT_CAP,
) -> ModelOutput:
    """Run one model call in isolation and return what it printed on stdout."""
    if not argv:
        raise ModelRunError("the model command is empty", hint="set model_command in .hippo/hippo.toml")
    scratch = new_scratch(home, run_id)
    data = prompt.encode("utf-8")
    started = time.monotonic()
    try:
        env = scrubbed_env(parent_env, scratch)
        exe = shutil.which(argv[0], path=env["PATH"]) or argv[0]
        try:
            proc = subprocess.Popen(
                [exe, *argv[1:]],
                cwd=scratch,
                env=env,
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise ModelRunError(
                f"cannot start the model command {argv[0]!r}: {exc.strerror or exc}",
                hint="check model_command (`git hippo config show`)",
            ) from None
        out, err, over = _talk(proc, data, timeout_s, output_cap)
        seconds = time.monotonic() - started
        if over == "timeout":
            raise ModelRunError(
                f"the model command ran longer than {timeout_s:g} s and was stopped",
                hint="raise dream.model_timeout_s",
            )
        if over == "cap":
            raise ModelRunError(f"the model command printed more than {output_cap} bytes and was stopped")
        if proc.returncode != 0:
            tail = err.decode("utf-8", "replace").strip().splitlines()
            said = f": {tail[-1][:300]}" if tail else ""
            raise ModelRunError(f"the model command exited with status {proc.returncode}{said}")
        text = out.decode("utf-8", "replace")
        return ModelOutput(stdout=text, seconds=seconds, bytes_in=len(data), bytes_out=len(out))
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
        with contextlib.suppress(OSError):
            scratch.parent.rmdir()  # only when no other call of the run is using it


def _talk(
    proc: subprocess.Popen[bytes], data: bytes, timeout_s: float, cap: int
) -> tuple[bytes, bytes, str | None]:
    """Feed stdin, collect stdout (capped) and the tail of stderr; stop the group on timeout/cap."""
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    out = bytearray()
    err = bytearray()
    over: list[str] = []

    def feed() -> None:
        try:
            proc.stdin.write(data)  # type: ignore[union-attr]
        except (BrokenPipeError, OSError):
            pass
        finally:
            with contextlib.suppress(OSError):
                proc.stdin.close()  # type: ignore[union-attr]

    def read_out() -> None:
        while chunk := proc.stdout.read1(65536):  # type: ignore[union-attr]
            out.extend(chunk)
            if len(out) > cap:
                over.append("cap")
                _kill_group(proc)
                return

    def read_err() -> None:
        while chunk := proc.stderr.read1(65536):  # type: ignore[union-attr]
            err.extend(chunk)
            del err[: max(0, len(err) - STDERR_KEEP)]

    threads = [threading.Thread(target=f, daemon=True) for f in (feed, read_out, read_err)]
    for t in threads:
        t.start()
    try:
        proc.wait(timeout=timeout_s)
    except subprocess.TimeoutExpired:
        over.append("timeout")
        _kill_group(proc)
        proc.wait()
    for t in threads:
        t.join(timeout=5)
    _kill_group(proc)  # a model must not leave children behind
    for stream in (proc.stdout, proc.stderr):
        stream.close()
    return bytes(out), bytes(err), over[0] if over else None
