"""`graph` and `eval`: what a note or session connects to, and whether recall finds what the team expects."""

from __future__ import annotations

import click

from hippo_git.cli.render import emit_json, json_option, say
from hippo_git.config import load_config


@click.command("graph")
@click.argument("start")
@click.option("--hops", default=1, show_default=True, type=click.IntRange(0, 5), help="Edges to walk out.")
@json_option
def graph_cmd(start: str, hops: int, as_json: bool) -> None:
    """What the note or session START connects to: notes by [[links]], sessions that touched or
    cited notes, files sessions edited."""
    from hippo_git.notes.graph_walk import walk

    result = walk(load_config(), start, hops)
    if as_json:
        emit_json(result.as_dict())
        return
    for node, info in result.nodes.items():
        click.echo(f"{'  ' * info['hop']}{node}  [{info['kind']}]  {info['label']}".rstrip())
    for edge in result.edges:
        click.echo(f"{edge.source} --{edge.kind}--> {edge.target}")
    if len(result.nodes) == 1:
        say("no connections")


@click.command("eval")
@click.argument("cases", required=False)
@click.option("--min-recall", type=click.FloatRange(0, 1), help="Fail when recall@5 is below this (0..1).")
@click.option("--bootstrap", is_flag=True, help="Draft cases from the notes and sessions into CASES.")
@json_option
def eval_cmd(cases: str | None, min_recall: float | None, bootstrap: bool, as_json: bool) -> None:
    """Measure recall on CASES (default .hippo/eval.json): recall@1/5/10, MRR, nDCG@10 and
    must-not-include violations; exits 1 under --min-recall or on any violation."""
    from hippo_git.notes.evaluate import bootstrap as draft
    from hippo_git.notes.evaluate import cases_path, evaluate, load_cases

    cfg = load_config()
    path = cases_path(cfg, cases)
    if bootstrap:
        count = draft(cfg, path)
        say(f"drafted {count} cases in {path}: edit them, then run `git hippo eval`")
        return
    report = evaluate(cfg, load_cases(path))
    if as_json:
        emit_json({**report.as_dict(), "min_recall": min_recall, "passed": report.passed(min_recall)})
    else:
        for case in report.cases:
            missed = [item for item, rank in case.ranks.items() if rank is None]
            line = f"{case.recall[5]:.2f}  {case.query}"
            if missed:
                line += f"  (missed {', '.join(missed)})"
            if case.violations:
                line += f"  (must not include: {', '.join(case.violations)})"
            click.echo(line)
        r = report.recall
        click.echo(
            f"{len(report.cases)} cases: recall@1 {r[1]:.3f}  @5 {r[5]:.3f}  @10 {r[10]:.3f}  "
            f"MRR {report.mrr:.3f}  nDCG@10 {report.ndcg:.3f}  must-not violations {report.violations}"
        )
    for note in report.notes:
        say(note)
    if not report.passed(min_recall):
        say(
            f"eval failed: recall@5 {report.recall[5]:.3f}"
            + (f" < {min_recall}" if min_recall is not None and report.recall[5] < min_recall else "")
            + (f", {report.violations} must-not violations" if report.violations else "")
        )
        click.get_current_context().exit(1)
