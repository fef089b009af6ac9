"""`redact_pregate.may_hold_secret` may say yes too often, never no too often: whatever
`find_secrets` names, it lets through (the pre-commit hook skips the redactor on its no)."""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from hippo_git.team.githooks import check_staged
from hippo_git.team.setup import init_workspace
from hippo_git.transcripts import redact_tables, redact_tokens
from hippo_git.transcripts.redact import find_secrets
from hippo_git.transcripts.redact_pregate import _RUN, GATES, MIN_RUN, may_hold_secret
from tests.conftest import corpus, git
from tests.test_redact import A36, FAKE_SECRETS, HEX

SECRET_KINDS = sorted(k for k in FAKE_SECRETS if k != "email")  # emails are personal data: never blocked


def _sound(text: str) -> None:
    if find_secrets(text):
        assert may_hold_secret(text), f"the pregate let a secret through: {text[:200]!r}"


def test_every_rule_gate_holds_a_pregate_literal_and_runs_are_the_tokens_runs() -> None:
    _, rule_gates = redact_tables.rules()
    for literals, _ in rule_gates:
        for literal in literals:
            assert any(g in literal.lower() for g in GATES), (
                f"gate {literal!r} is missing from redact_pregate.GATES"
            )
    assert all(g == g.lower() for g in GATES)
    assert MIN_RUN == redact_tokens.MIN_RUN
    for code in range(256):  # a run is made of the same characters both ways
        assert bool(_RUN.fullmatch(chr(code) * MIN_RUN)) == (chr(code) in redact_tokens._RUN_CHARS), chr(code)


def test_plain_notes_are_told_apart_without_the_redactor() -> None:
    plain = "# Build\n\nRun make test before pushing. See [[index]] and [[deploy-notes]].\n"
    assert not may_hold_secret(plain) and find_secrets(plain) == []
    assert may_hold_secret(plain + "The " + "key is here.\n")  # a gate word
    assert may_hold_secret(plain + "x" * MIN_RUN)  # a run long enough for a token
    assert not may_hold_secret(plain + "x" * (MIN_RUN - 1))


@pytest.mark.parametrize("kind", sorted(FAKE_SECRETS))
def test_every_planted_secret_gets_through_alone_in_a_note_and_in_json(kind: str) -> None:
    text, secret = FAKE_SECRETS[kind]
    for variant in (
        text,
        secret,
        f"# Note\n\n{text}\n",
        json.dumps({"text": text}),
        text.upper(),
        f"İ {text} ş",
    ):
        _sound(variant)


def test_random_mixtures_of_secrets_words_and_gate_characters() -> None:
    rng = random.Random(13)
    pieces = [s for text, s in FAKE_SECRETS.values()] + [text for text, _ in FAKE_SECRETS.values()]
    pieces += [
        "password",
        "=",
        ": ",
        '"',
        "'",
        "\\n",
        "\n",
        " ",
        "//",
        "@",
        "$",
        "key",
        "-----BEGIN ",
        A36,
        HEX,
    ]
    pieces += [
        "Run make",
        "[[link]]",
        "é",
        "İ",
        "token",
        "Bearer ",
        "AKIA",
        "ghp_",
        "sk-",
        "://u:p@h/",
        "-p ",
    ]
    found = 0
    for _ in range(3000):
        parts = rng.choices(pieces, k=rng.randint(1, 6))
        text = "".join(p[rng.randint(0, len(p) // 2) :] if rng.random() < 0.3 else p for p in parts)
        found += bool(find_secrets(text))
        _sound(text)
    assert found > 300  # the mixtures did reach the redactor's rules


def test_real_transcripts_and_rule_examples() -> None:
    paths = [p for p in sorted(corpus("transcripts").rglob("*")) if p.suffix in (".jsonl", ".json", ".md")]
    rules = sorted(corpus("secrets", "noseyparker").rglob("*.yml"))
    texts = [line for p in paths[:60] for line in p.read_text(errors="replace").splitlines()]
    texts += [line for p in rules for line in p.read_text(errors="replace").splitlines()]
    assert len(texts) > 1000
    for text in texts:
        _sound(text)


def test_the_hook_blocks_every_kind_of_secret_across_the_gate(repo: Path) -> None:
    init_workspace(repo)
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up")
    for kind in SECRET_KINDS:
        (repo / f"notes/{kind}.md").write_text(f"# {kind}\n\nSee [[index]].\n{FAKE_SECRETS[kind][0]}\n")
    (repo / "notes/plain.md").write_text("# Plain\n\nRun make before pushing. See [[index]].\n")
    git(repo, "add", "-A")
    errors, _ = check_staged(repo)
    blocked = {e.split("notes/", 1)[1].split(".md:", 1)[0] for e in errors if "looks like a secret" in e}
    assert blocked == set(SECRET_KINDS)
    assert all(FAKE_SECRETS[k][1] not in " ".join(errors) for k in SECRET_KINDS)
