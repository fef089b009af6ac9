"""The documentation site: every page in the navigation exists, every page is in it, the commands
it names exist, and `mkdocs build --strict` (broken internal links fail it) succeeds."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from hippo_git.cli.main import cli

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"


def nav_pages() -> list[str]:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text(encoding="utf-8"))
    return [next(iter(item.values())) for item in config["nav"]]


def test_the_navigation_and_the_pages_agree() -> None:
    pages = sorted(p.name for p in DOCS.glob("*.md"))
    assert sorted(nav_pages()) == pages


def command_paths() -> set[str]:
    import click

    found: set[str] = set()

    def walk(group: click.Group, prefix: str) -> None:
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            sub = group.get_command(ctx, name)
            if sub is None:
                continue
            found.add(f"{prefix}{name}")
            if isinstance(sub, click.Group):
                walk(sub, f"{prefix}{name} ")

    walk(cli, "")
    return found


def test_every_command_a_page_names_exists() -> None:
    """`git hippo X` in any page (or the README) must be a command that exists."""
    known = command_paths()
    missing = []
    for page in [*DOCS.glob("*.md"), ROOT / "README.md"]:
        for match in re.finditer(r"git hippo ([a-z][a-z-]*)", page.read_text(encoding="utf-8")):
            if match.group(1) not in known:
                missing.append(f"{page.name}: git hippo {match.group(1)}")
    assert missing == []


def test_mkdocs_builds_strict(tmp_path: Path) -> None:
    pytest.importorskip("mkdocs", reason="the dev extra installs mkdocs")
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    assert (tmp_path / "site" / "commands" / "index.html").is_file()


def test_every_doctor_check_is_documented(repo: Path) -> None:
    """The checks a fresh workspace's doctor prints are each a row of docs/doctor.md."""
    import json

    from tests.conftest import run_cli

    run_cli(["init"], cwd=repo)
    checks = json.loads(run_cli(["doctor", "--json", "--no-probe"], cwd=repo).stdout)["checks"]
    page = (DOCS / "doctor.md").read_text(encoding="utf-8")
    first_cells = [line.split("|")[1] for line in page.splitlines() if line.startswith("| `")]
    documented = {name for cell in first_cells for name in re.findall(r"`([^`]+)`", cell)}
    missing = [c["check"] for c in checks if c["check"] not in documented]
    assert missing == []
