"""`init`, `hooks`, `config`: setting a repository up."""

from __future__ import annotations

from pathlib import Path

import click

from hippo_git.cli.render import FullHelpGroup, emit_json, json_option, say, table
from hippo_git.config import load_config
from hippo_git.team.setup import init_workspace, uninstall_git_hooks


@click.command("init")
@click.option("--notes-dir", default="notes", show_default=True, help="Folder for the Markdown notes.")
@click.option("--no-hooks", is_flag=True, help="Do not install the pre-commit and post-merge hooks.")
@json_option
def init_cmd(notes_dir: str, no_hooks: bool, as_json: bool) -> None:
    """Set this repository up: .hippo/hippo.toml, the notes folder, git hooks, receipts config."""
    result = init_workspace(Path.cwd(), notes_dir=notes_dir, install_hooks=not no_hooks)
    if as_json:
        emit_json(result.as_dict())
        return
    for rel in result.created:
        say(f"created  {rel}")
    for rel in result.kept:
        say(f"kept     {rel} (already there)")
    for change in result.hooks:
        say(f"hook     {change.hook}: {change.action} ({change.path})")
    for line in result.config:
        say(f"config   {line}")
    if result.registered:
        say(f"registered {result.workdir} for `git hippo watch` and `git hippo schedule`")
    if not result.to_commit:
        say("hippo is set up; its files are committed already.")
        return
    say("hippo is set up. Nothing was committed; to share it with your team, commit:")
    click.echo("  git add " + " ".join(result.to_commit) + " && git commit -m 'Set up hippo_git'")


@click.group("hooks", cls=FullHelpGroup)
def hooks_group() -> None:
    """Manage the git hooks hippo installs (pre-commit, post-merge)."""


@hooks_group.command("uninstall")
@json_option
def hooks_uninstall_cmd(as_json: bool) -> None:
    """Remove hippo's hook shims and restore any hook that was there before."""
    changes = uninstall_git_hooks(Path.cwd())
    if as_json:
        emit_json([{"hook": c.hook, "path": str(c.path), "action": c.action} for c in changes])
        return
    for c in changes:
        say(f"{c.hook}: {c.action} ({c.path})")


@click.group("config", cls=FullHelpGroup)
def config_group() -> None:
    """Show the configuration in effect, or change one setting."""


@config_group.command("show")
@json_option
def config_show_cmd(as_json: bool) -> None:
    """Print every setting, its value and where the value came from (outside a repository: this
    machine's settings alone)."""
    from hippo_git.config import machine_config
    from hippo_git.errors import NotARepoError

    try:
        cfg = load_config()
        root = str(cfg.root)
    except NotARepoError:
        cfg, root = machine_config(), ""
    rows = cfg.effective()
    if as_json:
        emit_json({"home": str(cfg.home), "root": root or None, "settings": rows})
        return
    say(f"workspace {root or '(none: not inside a git repository)'}\nhippo home {cfg.home}")
    table([(r["key"], r["value"], r["source"]) for r in rows], ["key", "value", "source"], max_width=80)


@config_group.command("set")
@click.argument("key")
@click.argument("value")
@click.option("--machine", is_flag=True, help="Set it in $HIPPO_HOME/config.toml (this machine) instead.")
@json_option
def config_set_cmd(key: str, value: str, machine: bool, as_json: bool) -> None:
    """Set KEY to VALUE in .hippo/hippo.toml, keeping the file's comments and layout."""
    from hippo_git.team.settings import set_setting

    change = set_setting(Path.cwd(), key, value, machine=machine)
    if as_json:
        emit_json(change.as_dict())
        return
    verb = "set" if change.changed else "unchanged"
    say(f"{verb} {change.key} = {change.new!r} in {change.path}")
