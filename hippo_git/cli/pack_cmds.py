"""`packs` (list, show, test, add, update, remove) and `registry` (check, build)."""

from __future__ import annotations

import sys
from pathlib import Path

import click

from hippo_git.cli.render import emit_json, json_option, say, table
from hippo_git.config import load_config


@click.group("packs")
def packs_group() -> None:
    """Dream packs: the passes a dream runs, their prompts and reviewers."""


@packs_group.command("list")
@json_option
def packs_list_cmd(as_json: bool) -> None:
    """List the packs this workspace can use (.hippo/packs/, then shipped), with source and review."""
    from hippo_git.dream.pack_install import list_installed

    rows = list_installed(load_config())
    if as_json:
        emit_json(rows)
        return

    def edited(r: dict[str, object]) -> str:
        flag = r.get("local_changes")
        return "edited" if flag is True else "no" if flag is False else "-"

    table(
        [
            (
                r["name"],
                r.get("version", "-"),
                r["source"] if r["source"] == "shipped" else r.get("origin") or "local folder",
                r.get("verdict", "shipped" if r["source"] == "shipped" else "-"),
                edited(r),
                ", ".join(str(x) for x in r.get("passes", []) or []) or f"error: {r.get('error')}",  # type: ignore[attr-defined]
            )
            for r in rows
        ],
        ["pack", "version", "source", "review", "local edits", "passes"],
        max_width=70,
    )


@packs_group.command("show")
@click.argument("name")
@json_option
def packs_show_cmd(name: str, as_json: bool) -> None:
    """Show a pack: passes, what they read, budgets, reviewer."""
    from hippo_git.dream.packs import describe_pack, find_pack

    info = describe_pack(find_pack(load_config().hippo_dir, name))
    if as_json:
        emit_json(info)
        return
    click.echo(
        f"{info['name']} {info['version']} ({info['source']}: {info['path']})\n{info['description']}\n"
    )
    for p in info["passes"]:  # type: ignore[attr-defined]
        click.echo(f"{p['name']}: {p['description']}")
        click.echo(
            f"  prompt {p['prompt']}, reviewer {p['reviewer']}, ops {'/'.join(p['ops'])}, budget {p['budget_bytes']} bytes"
        )
        click.echo(f"  reads {', '.join(p['reads'])}; turns {', '.join(p['turn_kinds'])}")


@packs_group.command("test")
@click.argument("name")
@json_option
def packs_test_cmd(name: str, as_json: bool) -> None:
    """Run a pack's test fixtures and check the proposals they give."""
    from hippo_git.dream.packs import find_pack
    from hippo_git.dream.packtest import run_pack_tests

    results = run_pack_tests(find_pack(load_config().hippo_dir, name))
    if as_json:
        emit_json([r.as_dict() for r in results])
    else:
        for r in results:
            click.echo(f"{'ok  ' if r.ok else 'FAIL'}  {r.name}: {r.description}")
            for problem in r.problems:
                click.echo(f"      {problem}")
        say(f"{sum(r.ok for r in results)} of {len(results)} cases passed")
    if not all(r.ok for r in results):
        sys.exit(1)


@packs_group.command("add")
@click.argument("source")
@click.option("--ref", help="Branch, tag or commit to take from a git SOURCE.")
@click.option("--subdir", default="", help="The pack's folder inside SOURCE.")
@json_option
def packs_add_cmd(source: str, ref: str | None, subdir: str, as_json: bool) -> None:
    """Review a pack (a folder, a git URL, or a name in the registry) and add it as one commit."""
    from hippo_git.dream.pack_install import add

    change = add(load_config(), source, ref=ref, subdir=subdir)
    if as_json:
        emit_json(change.as_dict())
        return
    click.echo(
        f"added {change.name} in {change.commit[:12] if change.commit else '-'}: .hippo/packs/{change.name}/"
    )
    say(f"review: confirm ({change.reason})")
    say("push that commit to share the pack with your team")


@packs_group.command("update")
@click.argument("name", required=False)
@json_option
def packs_update_cmd(name: str | None, as_json: bool) -> None:
    """Take upstream changes of added packs: shown as a diff, applied only after a new review."""
    from hippo_git.dream.pack_install import update_all, update_pack
    from hippo_git.dream.pack_review import model_for

    cfg = load_config()
    changes = [update_pack(cfg, name, model_for(cfg))] if name else update_all(cfg, model_for(cfg))
    if as_json:
        emit_json([c.as_dict() for c in changes])
    for c in changes if not as_json else ():
        click.echo(c.diff, nl=False)
        say(
            f"{c.name}: {c.status}"
            + (f" in {c.commit[:12]}" if c.commit else "")
            + (f": {c.reason}" if c.reason else "")
        )
    if not changes:
        say("no pack here was added with `git hippo packs add`; nothing to update")
    if any(c.status in ("local-edits", "rejected") for c in changes):
        sys.exit(1)


@packs_group.command("remove")
@click.argument("name")
@json_option
def packs_remove_cmd(name: str, as_json: bool) -> None:
    """Remove an added pack from .hippo/packs/ as one commit."""
    from hippo_git.dream.pack_install import remove_pack

    change = remove_pack(load_config(), name)
    if as_json:
        emit_json(change.as_dict())
        return
    click.echo(f"removed {change.name} in {change.commit[:12] if change.commit else '-'}")


@click.group("registry")
def registry_group() -> None:
    """Pack registries: an index of packs, each pinned to the content its review read."""


@registry_group.command("check")
@click.argument("location", required=False)
@json_option
def registry_check_cmd(location: str | None, as_json: bool) -> None:
    """Check a registry (default: packs.registry): every entry resolves, hashes match, reviews cover them."""
    from hippo_git.dream.pack_install import registry_location
    from hippo_git.dream.registry import check_registry

    checks = check_registry(location or registry_location(load_config()))
    if as_json:
        emit_json([{"name": c.name, "ok": c.ok, "problems": c.problems} for c in checks])
    else:
        for c in checks:
            click.echo(
                f"{'ok  ' if c.ok else 'FAIL'}  {c.name}" + "".join(f"\n      {p}" for p in c.problems)
            )
        say(f"{sum(c.ok for c in checks)} of {len(checks)} entries hold up")
    if not all(c.ok for c in checks):
        sys.exit(1)


@registry_group.command("build")
@click.argument("folder", type=click.Path(file_okay=False, path_type=Path))
@click.option(
    "--out",
    type=click.Path(dir_okay=False, path_type=Path),
    help="Index file (default FOLDER/hippo-registry.json).",
)
@click.option(
    "--source", default="", help="URL the packs are fetched from (default: the index's own repository)."
)
@click.option("--ref", help="Ref of --source to pin.")
@json_option
def registry_build_cmd(folder: Path, out: Path | None, source: str, ref: str | None, as_json: bool) -> None:
    """Review every pack under FOLDER and write the registry index of the confirmed ones."""
    from hippo_git.dream.pack_review import model_for
    from hippo_git.dream.registry import build_registry

    result = build_registry(folder, model_for(load_config()), source=source, ref=ref, out=out)
    if as_json:
        emit_json(
            {"path": str(result.path), "packs": [e.name for e in result.entries], "rejected": result.rejected}
        )
        return
    click.echo(str(result.path))
    say(
        f"{len(result.entries)} pack(s) indexed"
        + "".join(f"\nleft out {n}: {why}" for n, why in result.rejected)
    )
