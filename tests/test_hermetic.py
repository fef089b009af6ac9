"""Fixtures wider than one test see the same pinned environment as the tests themselves."""

from __future__ import annotations

import os

import pytest

from tests.conftest import PINNED, git, make_repo


@pytest.fixture(scope="module")
def module_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[dict[str, str], str]:
    # Built before any function-scoped fixture runs: the identity must already be pinned here.
    seen = {key: os.environ.get(key, "") for key in ("HOME", "GIT_AUTHOR_NAME", "GIT_CONFIG_GLOBAL")}
    root = make_repo(tmp_path_factory.mktemp("module") / "repo")
    return seen, git(root, "log", "-1", "--format=%an <%ae>")


def test_module_fixtures_run_with_the_pinned_identity_and_a_temp_home(
    module_repo: tuple[dict[str, str], str],
) -> None:
    seen, author = module_repo
    assert author == f"{PINNED['GIT_AUTHOR_NAME']} <{PINNED['GIT_AUTHOR_EMAIL']}>"
    assert seen["GIT_AUTHOR_NAME"] == PINNED["GIT_AUTHOR_NAME"]
    assert "session-home" in seen["HOME"] and seen["GIT_CONFIG_GLOBAL"].startswith(seen["HOME"])
