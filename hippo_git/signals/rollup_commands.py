"""What a shell command is, for the rollup rules: its normal form (for grouping retries) and its
categories (test, lint, build, git, deploy, …), read from its words after wrappers (`uv run`,
`npx`, `bash -c`) are taken off. Pure functions over strings, like `rollup_parse`.
"""

from __future__ import annotations

import re

from hippo_git.signals.rollup_parse import program, segments

_REDIRECT = re.compile(r"\s*2>&1")
_PAGER = re.compile(r"\s*\|\s*(?:head|tail|grep|less|cat|tee)\b[^|;&]*$")


def norm_command(command: str) -> str:
    if "2>&1" in command:
        command = _REDIRECT.sub("", command)
    if "|" in command:
        command = _PAGER.sub("", command)
    return " ".join(command.split())


_GIT_VALUE_OPTS = frozenset({"-C", "-c", "--git-dir", "--work-tree", "--namespace"})
_SCRIPT_RUNNERS = frozenset({"uv", "poetry", "pipenv", "hatch", "pdm", "rye", "bundle"})
_NPX = frozenset({"npx", "bunx", "pnpx"})
_TASK_RUNNERS = frozenset(
    {
        "make",
        "mise",
        "just",
        "task",
        "rake",
        "gradle",
        "gradlew",
        "mvn",
        "sbt",
        "npm",
        "yarn",
        "pnpm",
        "bun",
        "tox",
        "nox",
    }
)
_TEST_PROGS = frozenset(
    {
        "pytest",
        "py.test",
        "jest",
        "vitest",
        "mocha",
        "rspec",
        "phpunit",
        "ctest",
        "bats",
        "ava",
        "karma",
        "playwright",
        "cypress",
    }
)
_LINT_PROGS = frozenset(
    {
        "ruff",
        "flake8",
        "pylint",
        "mypy",
        "pyright",
        "eslint",
        "golangci-lint",
        "shellcheck",
        "rubocop",
        "tsc",
        "biome",
        "stylelint",
        "hadolint",
        "clippy",
    }
)
_LANG_TOOLS = frozenset({"go", "cargo", "dotnet", "deno", "mix", "swift", "zig", "bun"})


def git_sub(words: list[str]) -> tuple[str, list[str]]:
    """(subcommand, its arguments) of a `git ...` word list."""
    i = 1
    while i < len(words) and words[i].startswith("-"):
        i += 2 if words[i] in _GIT_VALUE_OPTS else 1
    return (words[i], words[i + 1 :]) if i < len(words) else ("", [])


def _unwrap(words: list[str]) -> list[str]:
    prog = program(words)
    if prog in _SCRIPT_RUNNERS and len(words) > 2 and words[1] in ("run", "exec"):
        return words[2:]
    if prog in _NPX and len(words) > 1:
        return [w for w in words[1:] if not w.startswith("-")][:1] + words[2:]
    if prog.startswith("python") and len(words) > 2 and words[1] == "-m":
        return words[2:]
    return words


def _runner_targets(words: list[str]) -> list[str]:
    targets = [w for w in words[1:] if not w.startswith("-")]
    return targets[1:] if targets[:1] == ["run"] else targets


_TARGETS = {
    words: re.compile(rf"(^|[\s:/_-])({words})([\s:_-]|$)")
    for words in ("test|tests|check", "lint|typecheck", "build|compile|all", "deploy|release|publish")
}
_TEST_SCRIPT = re.compile(r"^(run[_-]?)?tests?(\.sh|\.py)?$")


def command_categories(command: str) -> tuple[str, ...]:
    """What a command line does, as far as the claim and PR rules care (a chain may do several)."""
    cats: set[str] = set()
    for raw in segments(command):
        words = _unwrap(raw)
        prog = program(words)
        args = words[1:]
        first = args[0] if args else ""
        targets = " ".join(_runner_targets(words)) if prog in _TASK_RUNNERS else ""
        if prog == "git":
            sub, rest = git_sub(words)
            cats.update({"push": ["push"], "commit": ["commit"], "merge": ["merge"]}.get(sub, []))
            if sub == "revert" or (
                sub in ("checkout", "restore") and rest and rest != ["."] and "-b" not in rest
            ):
                cats.add("revert")
        elif prog in ("gh", "glab"):
            pair = " ".join(args[:2])
            if pair in ("pr create", "mr create"):
                cats.add("pr_create")
            elif pair in ("pr merge", "mr merge"):
                cats.add("merge")
            elif pair in ("pr checks", "run watch", "run view", "run list", "ci status", "ci view"):
                cats.add("ci")
        if (
            prog in _TEST_PROGS
            or prog == "unittest"
            or (prog in _LANG_TOOLS and first == "test")
            or ("test" in prog and prog != "test" and _TEST_SCRIPT.match(prog))
        ):
            cats.add("test")
        if (
            prog in _LINT_PROGS
            or (prog == "go" and first == "vet")
            or (prog == "cargo" and first == "clippy")
        ):
            cats.add("lint")
        if (
            (prog in _LANG_TOOLS and first in ("build", "check"))
            or (prog == "make" and not targets)
            or prog == "build"
            or (prog in ("docker", "bazel", "podman") and first == "build")
        ):
            cats.add("build")
        if _is_deploy(prog, args):
            cats.add("deploy")
        if targets:
            for category, names in (
                ("test", "test|tests|check"),
                ("lint", "lint|typecheck"),
                ("build", "build|compile|all"),
                ("deploy", "deploy|release|publish"),
            ):
                if _word_in(targets, names):
                    cats.add(category)
    return tuple(sorted(cats))


def _word_in(targets: str, words: str) -> bool:
    """Whether a task runner's targets name one of `words` (`test`, `test:unit`, `ci-test` ...)."""
    return bool(targets) and _TARGETS[words].search(targets) is not None


def _is_deploy(prog: str, args: list[str]) -> bool:
    first = args[0] if args else ""
    if prog in (
        "fly",
        "flyctl",
        "netlify",
        "firebase",
        "serverless",
        "sls",
        "kamal",
        "cap",
        "wrangler",
        "railway",
    ):
        return first in ("deploy", "publish", "up")
    if prog == "vercel":
        return not args or first in ("deploy", "--prod")
    if prog == "kubectl":
        return first in ("apply", "rollout")
    if prog == "helm":
        return first in ("upgrade", "install")
    if prog == "terraform":
        return first == "apply"
    if prog == "gcloud":
        return "deploy" in args
    return prog == "ansible-playbook"
