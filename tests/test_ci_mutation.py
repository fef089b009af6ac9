"""The mutation-testing setup stays runnable: every config names a module and tests that exist,
the report is read right, and CI runs it on a schedule only (issue 21)."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import re
import shlex
import sys
import tomllib

from tests.conftest import REPO_ROOT

CONFIGS = sorted((REPO_ROOT / ".ci" / "mutation").glob("*.toml"))
INVARIANT_MODULES = {
    "hippo_git/dream/apply.py",
    "hippo_git/dream/receipts.py",
    "hippo_git/team/verify.py",
    "hippo_git/transcripts/redact.py",
    "hippo_git/transcripts/redact_tokens.py",
    "hippo_git/transcripts/redact_assign.py",
    "hippo_git/transcripts/redact_spans.py",
    "hippo_git/notes/context.py",
    "hippo_git/agents/hooks.py",
    "hippo_git/cli/hook_cmds.py",
    "hippo_git/dream/validate.py",
    "hippo_git/transcripts/redact_gates.py",  # the redactor's one-pass gates
    "hippo_git/notes/context_fit.py",  # the context budget's fitting
    "hippo_git/cli/fast_entry.py",  # the agent hooks' last-resort handler
    "hippo_git/git/worktree.py",  # the compare-and-swap fast-forward of a checked-out branch
}


def test_every_config_names_a_module_and_tests_that_exist() -> None:
    modules = set()
    for config in CONFIGS:
        cr = tomllib.loads(config.read_text())["cosmic-ray"]
        assert (REPO_ROOT / cr["module-path"]).is_file(), config
        modules.add(cr["module-path"])
        argv = shlex.split(cr["test-command"])
        assert argv[:3] == ["python", "-m", "pytest"], config
        tests = [a for a in argv if a.startswith("tests/")]
        assert tests and all((REPO_ROOT / t).is_file() for t in tests), config
    assert modules == INVARIANT_MODULES


def test_mutants_in_type_annotations_are_found_and_nothing_else() -> None:
    loader = importlib.machinery.SourceFileLoader("mutation_run", str(REPO_ROOT / ".ci" / "mutation-run"))
    spec = importlib.util.spec_from_loader("mutation_run", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["mutation_run"] = module
    loader.exec_module(module)
    source = "def f(a: int | None, *, b: str = 'x') -> str | None:\n    y: int = 1\n    return a | 2\n"
    spans = module.annotation_spans(source)
    assert sorted(spans) == [((1, 9), (1, 19)), ((1, 27), (1, 30)), ((1, 41), (1, 51)), ((2, 7), (2, 10))]
    inside = lambda pos: any(lo <= pos < hi for lo, hi in spans)  # noqa: E731
    assert inside((1, 13)) and inside((1, 45)) and not inside((3, 13))  # `a | 2` is code, mutated


def test_ci_runs_mutation_testing_on_a_schedule_not_on_push() -> None:
    text = (REPO_ROOT / ".github" / "workflows" / "mutation.yml").read_text()
    triggers = text.split("\njobs:")[0]
    assert "schedule:" in triggers and "cron:" in triggers
    assert not re.search(r"^\s*(push|pull_request):", triggers, re.M)
    assert ".ci/mutation-run" in text and "'.[dev,mutation]'" in text


def test_a_signatures_bare_star_is_told_from_a_multiplication() -> None:
    module = sys.modules.get("mutation_run")
    if module is None:
        loader = importlib.machinery.SourceFileLoader("mutation_run", str(REPO_ROOT / ".ci" / "mutation-run"))
        spec = importlib.util.spec_from_loader("mutation_run", loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["mutation_run"] = module
        loader.exec_module(module)
    source = "def f(a, *, b=2):\n    return a * b\ndef g(*args, **kw):\n    return f(*args)\ndef h(a, *)\n"
    assert module.is_bare_star(source, 1, 9)  # keyword-only marker
    assert not module.is_bare_star(source, 2, 13)  # a * b
    assert not module.is_bare_star(source, 3, 6) and not module.is_bare_star(source, 3, 14)  # *args, **kw
    assert not module.is_bare_star(source, 4, 13)  # f(*args)
    assert module.is_bare_star(source, 5, 9) and not module.is_bare_star(source, 9, 0)


def test_a_config_declares_its_equivalent_mutants_with_a_reason(tmp_path) -> None:  # type: ignore[no-untyped-def]
    module = sys.modules.get("mutation_run")
    if module is None:
        loader = importlib.machinery.SourceFileLoader("mutation_run", str(REPO_ROOT / ".ci" / "mutation-run"))
        spec = importlib.util.spec_from_loader("mutation_run", loader)
        assert spec is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules["mutation_run"] = module
        loader.exec_module(module)
    for config in CONFIGS:  # every committed declaration is well-formed and names a real line
        cr = tomllib.loads(config.read_text())["cosmic-ray"]
        source = {line.strip() for line in (REPO_ROOT / cr["module-path"]).read_text().splitlines()}
        assert all(line in source for _, line in module.declared_equivalents(config)), config
    bad = tmp_path / "bad.toml"
    bad.write_text('[[hippo.equivalent]]\noperator = "core/X"\nline = "x = 1"\n')
    import pytest

    with pytest.raises(SystemExit, match="needs operator, line and why"):
        module.declared_equivalents(bad)
