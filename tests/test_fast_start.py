"""What a cold `git-hippo` loads: rarely used standard-library modules only on first use
(`hippo_git.cli.deferred`), so the fast paths pay for them only when they need them and behave
the same either way; `--version` without click."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from hippo_git import __version__
from hippo_git.index.embed_model import available
from tests.conftest import REPO_ROOT
from tests.test_search_cli import indexed  # noqa: F401 - the fixture

SCRIPT = """
import importlib.util, sys
from hippo_git.cli.deferred import defer
defer(("colorsys", "wave", "no_such_module_here"))
import colorsys
loaded = [n for n in ("colorsys", "wave") if {"rgb_to_hsv", "Wave_read"} & set(vars(sys.modules[n]))]
print(loaded, importlib.util.find_spec("colorsys").name, "no_such_module_here" in sys.modules)
print(colorsys.rgb_to_hsv(1.0, 0.0, 0.0), type(sys.modules["colorsys"]).__name__)
from colorsys import hsv_to_rgb
print(hsv_to_rgb(0.0, 1.0, 1.0))
"""


def test_a_deferred_module_loads_when_first_used() -> None:
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.splitlines() == [
        "[] colorsys False",  # imported but not run; find_spec still answers; a missing name is left alone
        "(0.0, 1.0, 1.0) module",  # the real module replaced the stand-in
        "(1.0, 0.0, 0.0)",
    ]


def _imported(args: list[str], cwd: Path, stdin: str | None = None) -> tuple[set[str], str]:
    """What `git-hippo ARGS` imports, started without `site`, as the git-hook shims start it."""
    start = f"import sys; sys.path[:0] = [{str(REPO_ROOT)!r}]; from hippo_git.__main__ import main; main()"
    proc = subprocess.run(
        [sys.executable, "-S", "-X", "importtime", "-c", start, *args],
        cwd=cwd,
        input=stdin,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stderr.splitlines()
    return {line.rsplit("|", 1)[1].strip() for line in lines if line.startswith("import time:")}, proc.stdout


def test_a_search_loads_hashlib_and_json_only_for_json(indexed: tuple[Path, object]) -> None:  # noqa: F811
    repo, _ = indexed
    imported, out = _imported(["search", "rebase"], repo)
    assert "hippo_git.index.search" in imported and out.startswith("abc111#")
    # inspect (and its ast, dis, tokenize) loads only when a dataclass lacks a docstring
    assert not {"hashlib", "_hashlib", "json.decoder", "ipaddress", "ast", "dis", "tokenize"} & imported, (
        sorted({"hashlib", "_hashlib", "json.decoder", "ipaddress", "ast", "dis", "tokenize"} & imported)
    )
    if not available():  # without the [semantic] extra, nothing of the embedding store or fusion loads
        assert not {"hippo_git.index.embed_store", "hippo_git.index.fusion"} & imported
    imported, out = _imported(["search", "rebase", "--json"], repo)
    assert "json.encoder" in imported and "_hashlib" not in imported
    assert json.loads(out)[0]["session_id"] == "abc111"


# inspect and what it imports (a dataclass without a docstring loads them); traceback loads tokenize too
INSPECT_AND_CO = {"inspect", "ast", "dis", "tokenize"}


def test_a_cold_context_loads_no_inspect(indexed: tuple[Path, object]) -> None:  # noqa: F811
    repo, _ = indexed
    imported, out = _imported(["context"], repo)
    assert "hippo_git.notes.context" in imported and out.strip()
    assert not INSPECT_AND_CO & imported, sorted(INSPECT_AND_CO & imported)


def test_the_session_start_hook_loads_no_inspect(indexed: tuple[Path, object]) -> None:  # noqa: F811
    repo, _ = indexed
    imported, out = _imported(["hook", "session-start"], repo, stdin="{}")
    assert "hippo_git.notes.context" in imported and out.strip()
    assert not INSPECT_AND_CO & imported, sorted(INSPECT_AND_CO & imported)


def test_version_answers_without_click(tmp_path: Path) -> None:
    imported, out = _imported(["--version"], tmp_path)
    assert out == f"git hippo {__version__}\n"
    assert "hippo_git.cli.manpage" in imported and "click" not in imported


NO_VECTORS = """
import sys
from pathlib import Path
from hippo_git.index.embed_store import open_store
from hippo_git.index.fusion import load_vectors
store = Path(sys.argv[1])
print(load_vectors(store, "all-MiniLM-L6-v2"))
open_store(store).close()
print(load_vectors(store, "all-MiniLM-L6-v2"))
"""


def test_no_vectors_no_numpy(tmp_path: Path) -> None:
    """With the [semantic] extra installed but nothing embedded, a search stays as light as without
    it: numpy (0.1 s to import) loads only when there are vectors. A numpy that fails on import
    stands in for the real one, which this environment may not have."""
    fake = tmp_path / "site" / "numpy"
    fake.mkdir(parents=True)
    (fake / "__init__.py").write_text("raise ImportError('numpy was imported')\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), str(REPO_ROOT)])}
    proc = subprocess.run(
        [sys.executable, "-c", NO_VECTORS, str(tmp_path / "embeddings.sqlite")],
        capture_output=True,
        text=True,
        env=env,
    )
    assert (proc.returncode, proc.stdout) == (0, "None\nNone\n"), proc.stderr
