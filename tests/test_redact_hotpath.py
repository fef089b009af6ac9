"""The hot path of redaction skips work only where the skipped work cannot change the result.

`redact.scan` lowercases a text before its gate lookup only when the lookup reads the lowercased
copy (the pure-`re` one); Hyperscan reads the text itself, so the copy is made only when a rule
is to run. Both engines must still redact the same secrets.
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from hippo_git.transcripts import redact as engine
from hippo_git.transcripts import redact_gates

try:
    import hyperscan  # noqa: F401

    HAS_HYPERSCAN = True
except ImportError:
    HAS_HYPERSCAN = False

# A secret for an assignment rule (read in the lowercased text) and one for a context rule.
PLANTED = (
    "DB_PASSWORD=Zx9!qLm2#Vt7pRw4 and later\n"
    "curl -H 'Authorization: Bearer 8f3kQ9zLm2Xc7Vb4Nn6Tt1Rr5Yy0Ww3E' https://api.example.org/v1\n"
)


def test_the_re_lookup_reads_low() -> None:
    assert redact_gates.reads_low(redact_gates.gate_lookup(engine._RULE_GATES, use="re"))


@pytest.mark.skipif(not HAS_HYPERSCAN, reason="no hyperscan wheel here")
def test_the_hyperscan_lookup_reads_the_text_only() -> None:
    hits = redact_gates.gate_lookup(engine._RULE_GATES, use="hyperscan")
    assert not redact_gates.reads_low(hits)
    # and gives the same bits whatever `low` it is handed
    assert hits(PLANTED, "") == hits(PLANTED, PLANTED.lower()) != 0


def _redacted_with(engine_name: str) -> str:
    code = "import sys; from hippo_git.transcripts.redact import redact; sys.stdout.write(redact(sys.stdin.read())[0])"
    env = dict(os.environ, HIPPO_REDACT_ENGINE=engine_name)
    out = subprocess.run(
        [sys.executable, "-c", code], input=PLANTED, capture_output=True, text=True, env=env, check=True
    )
    return out.stdout


def test_both_engines_redact_the_planted_secrets() -> None:
    here = engine.redact(PLANTED)[0]
    assert "Zx9!qLm2#Vt7pRw4" not in here and "8f3kQ9zLm2Xc7Vb4Nn6Tt1Rr5Yy0Ww3E" not in here
    assert _redacted_with("re") == here


def test_cursor_state_keeps_its_times_without_redacting_them() -> None:
    from hippo_git.index.scrub import Scrubber
    from hippo_git.transcripts.redact import Redactor

    seen: list[str] = []

    class Counting(Redactor):
        __slots__ = ()

        def redact(self, text: str) -> str:
            seen.append(text)
            return super().redact(text)

    scrub = Scrubber(Counting())
    state = {"started": "2025-06-10T11:00:05.965Z", "ended": "2025-06-10 11:58", "title": "ghp_" + "x" * 36}
    out = scrub.state(state)
    assert out["started"] == state["started"] and out["ended"] == state["ended"]
    assert out["title"] == "[redacted:github_token]"
    assert "2025-06-10T11:00:05.965Z" not in seen and state["title"] in seen


def test_a_rule_opening_with_alternatives_is_looked_for_by_their_leads() -> None:
    from hippo_git.transcripts.redact_tables import _leads

    assert _leads("(?:passw(?:or)?d|pwd|credentials?)[ \\t]*:") == ("passw", "pwd", "credential")
    assert _leads("mysql[a-z]*[ \\t]-p") == ("mysql",)
    assert _leads("(?:abc|def)?ghi") == ()  # the group may match nothing
    assert _leads("(?:abc|[dD]ef)x") == ()  # a class: unsure
    assert _leads("(?:abc|d?ef)x") == ()  # an alternative without a lead


def test_every_match_of_a_rule_with_leads_starts_with_one() -> None:
    from hippo_git.transcripts import redact_assign

    sample = (
        "config:\n  password: |\n    hunter2-Zq9\n  api_token: >\n    abc\n"
        'key: "|"\nsecret\\": |\n  x\ncredentials: |\n  y\nmysql -u root -pS3cr3t db\n'
    )
    checked = 0
    for kind, rx, on_low, _groups, assignment, leads in redact_assign.RULES:
        if assignment or not leads:
            continue
        text = sample.lower() if on_low else sample
        for m in rx.finditer(text):
            assert m.group().startswith(leads), (kind, m.group())
            checked += 1
    assert checked >= 2
