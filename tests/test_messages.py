"""What a person reads: machine-wide views run anywhere, empty tables say what to do, help shows
whole first lines."""

from __future__ import annotations

import json
from pathlib import Path

from hippo_git.team.setup import init_workspace
from tests.conftest import run_cli


def test_fleet_and_config_show_run_outside_a_repository(tmp_path: Path) -> None:
    outside = tmp_path / "not-a-repo"
    outside.mkdir()
    fleet = run_cli(["fleet"], cwd=outside)
    assert fleet.returncode == 0, fleet.stderr
    assert fleet.stdout == "" and "no sessions indexed on this machine yet" in fleet.stderr
    assert json.loads(run_cli(["fleet", "--json"], cwd=outside).stdout) == []
    shown = run_cli(["config", "show", "--json"], cwd=outside)
    assert shown.returncode == 0, shown.stderr
    data = json.loads(shown.stdout)
    assert data["root"] is None and any(r["key"] == "ingest.workers" for r in data["settings"])
    text = run_cli(["config", "show"], cwd=outside)
    assert "not inside a git repository" in text.stderr and "ingest.workers" in text.stdout


def test_empty_tables_print_a_hint_instead_of_a_header(repo: Path) -> None:
    init_workspace(repo, install_hooks=False)
    for args, hint in (
        (["receipts"], "no receipts yet"),
        (["proposals", "--runs"], "no dream runs yet"),
    ):
        proc = run_cli(args, cwd=repo)
        assert proc.returncode == 0, proc.stderr
        assert proc.stdout == "" and hint in proc.stderr


def test_short_help_shows_whole_first_lines(repo: Path) -> None:
    import click

    from hippo_git.cli.main import cli
    from hippo_git.cli.render import first_line

    def check(group: click.Group, args: list[str]) -> None:
        proc = run_cli([*args, "-h"], cwd=repo)
        shown = " ".join(proc.stdout.split())
        ctx = click.Context(group)
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            if command.hidden:
                continue
            assert first_line(command) in shown, (args, name)
            if isinstance(command, click.Group):
                check(command, [*args, name])
        assert "..." not in proc.stdout.replace("[ARGS]...", "").replace("QUERY...", "")

    check(cli, [])


def test_a_group_declared_without_full_help_lists_whole_lines_too() -> None:
    import click
    from click.testing import CliRunner

    from hippo_git.cli.render import FullHelpGroup

    long = "A description long enough that click would cut it with an ellipsis to fit the terminal width."

    @click.group("outer", cls=FullHelpGroup)
    def outer() -> None:
        """Outer."""

    @outer.group("inner")  # a plain click.Group, as a new module might declare it
    def inner() -> None:
        """Inner."""

    @inner.command("leaf", help=long)
    def leaf() -> None:
        pass

    shown = CliRunner().invoke(outer, ["inner", "--help"], terminal_width=80).output
    assert long in " ".join(shown.split()) and "..." not in shown.replace("[ARGS]...", "")
