"""The `git-hippo` executable (bin/git-hippo) starts python without `site` and finds hippo_git
itself, in each shape a user has it: a regular install, an editable one (the README's), a venv
that is not activated, and links to it elsewhere on PATH (as pipx makes them). The full command
still gets `site` (and so click), and anything the launcher does not know falls back to `site`.

Each venv is real (pip installs this checkout into it, without dependencies); its site-packages
reaches the test run's own packages through a .pth file, so click is importable only when `site`
runs, and a second .pth line marks, in a file, that it ran."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from collections.abc import Iterator
from pathlib import Path

import pytest

from hippo_git import __version__
from hippo_git.index.db import connect
from tests.conftest import REPO_ROOT

MARK_ENV = "HIPPO_TEST_SITE_MARK"


def _venv(root: Path, *, editable: bool) -> Path:
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    pip = [
        sys.executable,
        "-m",
        "pip",
        "--python",
        str(root / "bin" / "python"),
        "install",
        "-q",
        "--no-deps",
    ]
    target = ["-e", str(REPO_ROOT)] if editable else [str(REPO_ROOT)]
    proc = subprocess.run([*pip, *target], capture_output=True, text=True, timeout=900, cwd=root)
    assert proc.returncode == 0, proc.stderr
    site_dir = root / "lib" / f"python{sys.version_info[0]}.{sys.version_info[1]}" / "site-packages"
    (site_dir / "zz_test_site.pth").write_text(
        f"{sysconfig.get_paths()['purelib']}\n"
        f"import os; os.environ.get('{MARK_ENV}') and open(os.environ['{MARK_ENV}'], 'a').close()\n"
    )
    return root


@pytest.fixture(scope="module")
def venvs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, Path]]:
    base = tmp_path_factory.mktemp("launcher")
    yield {shape: _venv(base / shape, editable=shape == "editable") for shape in ("regular", "editable")}


def _index(home: Path) -> None:
    conn = connect(home / "index.sqlite")
    conn.execute(
        "INSERT INTO sessions(id, harness, cwd, started, ended, turns)"
        " VALUES ('abc111', 'claude-code', '/w', '2026-01-02T03:04:05Z', '2026-01-02T03:04:05Z', 1)"
    )
    conn.execute(
        "INSERT INTO turns(session_id, seq, kind, text, ts)"
        " VALUES ('abc111', 0, 'prompt', 'why does the rebase fail', '2026-01-02T03:04:05Z')"
    )
    conn.execute("INSERT INTO turns_fts(rowid, text) SELECT id, text FROM turns")
    conn.commit()
    conn.close()


def _run(exe: Path, args: list[str], tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], bool]:
    """Run `exe ARGS` from outside any repository, its venv not activated; (result, whether `site` ran)."""
    mark = tmp_path / "site-ran"
    mark.unlink(missing_ok=True)
    env = {**os.environ, MARK_ENV: str(mark)}
    env.pop("VIRTUAL_ENV", None)
    env.pop("PYTHONPATH", None)
    env["PATH"] = os.pathsep.join(p for p in env["PATH"].split(os.pathsep) if not p.startswith(sys.prefix))
    proc = subprocess.run([str(exe), *args], cwd=tmp_path, env=env, capture_output=True, text=True)
    return proc, mark.exists()


@pytest.mark.parametrize("shape", ["regular", "editable"])
def test_search_runs_without_site_and_the_full_command_with_it(
    venvs: dict[str, Path], shape: str, tmp_path: Path
) -> None:
    exe = venvs[shape] / "bin" / "git-hippo"
    _index(Path(os.environ["HIPPO_HOME"]))
    proc, site_ran = _run(exe, ["search", "--all", "rebase"], tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("abc111#0  claude-code  2026-01-02 03:04  prompt  /w")
    assert not site_ran
    proc, site_ran = _run(exe, ["--version"], tmp_path)
    assert (proc.returncode, proc.stdout) == (0, f"git hippo {__version__}\n"), proc.stderr
    assert not site_ran
    proc, site_ran = _run(exe, ["search", "rebase", "--harness", "nope"], tmp_path)  # click's message
    assert proc.returncode == 2 and "Invalid value for '--harness'" in proc.stderr
    assert site_ran


def test_linked_from_another_folder_as_pipx_does(venvs: dict[str, Path], tmp_path: Path) -> None:
    links = tmp_path / "bin"
    links.mkdir()
    for name in ("git-hippo", "git-hippo-py"):
        (links / name).symlink_to(venvs["regular"] / "bin" / name)
    _index(Path(os.environ["HIPPO_HOME"]))
    proc, site_ran = _run(links / "git-hippo", ["search", "--all", "rebase"], tmp_path)
    assert proc.returncode == 0 and proc.stdout.startswith("abc111#0"), proc.stderr
    assert not site_ran


def test_what_the_launcher_cannot_place_falls_back_to_site(venvs: dict[str, Path], tmp_path: Path) -> None:
    """A venv that also reads the system's site-packages: `site` decides the path, as it would."""
    cfg = venvs["regular"] / "pyvenv.cfg"
    before = cfg.read_text()
    cfg.write_text(
        before.replace("include-system-site-packages = false", "include-system-site-packages = true")
    )
    try:
        _index(Path(os.environ["HIPPO_HOME"]))
        proc, site_ran = _run(venvs["regular"] / "bin" / "git-hippo", ["search", "--all", "rebase"], tmp_path)
    finally:
        cfg.write_text(before)
    assert proc.returncode == 0 and proc.stdout.startswith("abc111#0"), proc.stderr
    assert site_ran


def test_without_pips_script_beside_it_the_launcher_says_so(venvs: dict[str, Path], tmp_path: Path) -> None:
    alone = tmp_path / "git-hippo"
    alone.write_bytes((venvs["regular"] / "bin" / "git-hippo").read_bytes())
    alone.chmod(0o755)
    proc, _ = _run(alone, ["search", "rebase"], tmp_path)
    assert proc.returncode != 0 and "git-hippo-py" in proc.stderr
