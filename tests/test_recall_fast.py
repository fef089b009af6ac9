"""`git hippo recall` answered before click (`hippo_git.cli.recall_fast`): the plain forms print
what the click command prints, load no click, and everything else goes to the click command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from hippo_git.cli.recall_fast import parse
from hippo_git.config import load_config
from hippo_git.memories.service import remember_text
from tests.conftest import run_cli


def test_parse_reads_the_plain_forms_and_leaves_the_rest_to_click() -> None:
    assert parse(["queue port", "--json", "--why", "--limit", "3", "--budget=80", "--no-notes"]) == {
        "as_json": True,
        "why": True,
        "no_notes": True,
        "limit": 3,
        "budget": 80,
        "query": "queue port",
    }
    assert parse(["q"]) == {
        "as_json": False,
        "why": False,
        "no_notes": False,
        "limit": 10,
        "budget": None,
        "query": "q",
    }
    for argv in (
        [],
        ["--help"],
        ["two", "words"],
        ["q", "--limit", "0"],
        ["q", "--limit"],
        ["q", "--budget", "-1"],
        ["q", "--limit=x"],
        ["q", "--json=yes"],
        ["q", "--tag", "x"],
        [""],
    ):
        assert parse(argv) is None, argv


def _memories(repo: Path) -> None:
    cfg = load_config(repo)
    for n in range(4):
        remember_text(cfg, f"Service {n} talks to the queue over port 50{n}, see the docs")


def test_the_fast_recall_prints_what_the_click_command_prints(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    _memories(repo)
    for args in (
        ["queue port", "--no-notes"],
        ["queue port", "--limit", "2"],
        ["queue port", "--budget", "40"],
    ):
        fast = run_cli(["recall", *args], cwd=repo)
        slow = hippo(["recall", *args], cwd=repo)
        assert fast.returncode == slow.exit_code == 0
        assert fast.stdout == slow.stdout and fast.stdout.count("[observed]") >= 1, args
    fast_json = json.loads(run_cli(["recall", "queue port", "--json", "--why"], cwd=repo).stdout)
    slow_json = json.loads(hippo(["recall", "queue port", "--json", "--why"], cwd=repo).stdout)
    assert [r["id"] for r in fast_json] == [r["id"] for r in slow_json] and len(fast_json) == 4
    assert set(fast_json[0]["why"]) == set(slow_json[0]["why"])
    nothing = run_cli(["recall", "zebra"], cwd=repo)
    assert (nothing.returncode, nothing.stdout, nothing.stderr) == (0, "", "nothing recalled\n")


def test_a_plain_recall_loads_no_click_and_a_bad_value_gets_clicks_error(repo: Path) -> None:
    _memories(repo)
    proc = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hippo_git", "recall", "queue port"],
        cwd=repo,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0 and "Service" in proc.stdout
    assert not [line for line in proc.stderr.splitlines() if line.rstrip().endswith("| click")]
    bad = run_cli(["recall", "queue port", "--limit", "0"], cwd=repo)
    assert bad.returncode == 2 and "--limit" in bad.stderr  # click's own usage error


def test_a_broken_config_is_one_line_and_the_same_exit_as_the_full_command(repo: Path, hippo) -> None:  # type: ignore[no-untyped-def]
    (repo / ".hippo").mkdir(exist_ok=True)
    (repo / ".hippo" / "hippo.toml").write_text("notes_dir = [\n")
    fast = run_cli(["recall", "queue"], cwd=repo)
    slow = run_cli(["recall", "queue", "--limit", "x"], cwd=repo)  # not a plain form: click's path
    assert (
        fast.stderr.startswith("error: ")
        and "hippo.toml" in fast.stderr
        and fast.stderr.count("\n") <= 2
        and "Traceback" not in fast.stderr
    )
    full = run_cli(
        ["recall", "queue", "--why", "--json", "--no-notes", "--limit", "9", "--budget", "9", "-x"], cwd=repo
    )
    assert full.returncode == 2  # an unknown option: click's path, which refuses it before any config
    plain_click = run_cli(["recall", "--limit", "3", "queue", "--json=1"], cwd=repo)
    assert plain_click.returncode == 2
    assert fast.returncode not in (0, 2)
    assert slow.returncode == 2  # click refuses the value before the config is read


def test_a_broken_config_exits_as_the_click_command_does(repo: Path) -> None:
    (repo / ".hippo").mkdir(exist_ok=True)
    (repo / ".hippo" / "hippo.toml").write_text("notes_dir = [\n")
    fast = run_cli(["recall", "queue"], cwd=repo)
    script = "import sys; from hippo_git.cli.main import main; sys.argv[1:] = ['recall', 'queue']; main()"
    slow = subprocess.run([sys.executable, "-c", script], cwd=repo, capture_output=True, text=True)
    assert (fast.returncode, fast.stderr) == (slow.returncode, slow.stderr)
