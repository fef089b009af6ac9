"""The redaction engine's shortcuts really prune (issue 21; speed is issue 12's): a text runs only
the passes it can need. A mutant that makes a shortcut less selective changes no output, only
the work done, so these tests count the passes `scan` calls for texts that need none of them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from hippo_git.transcripts import redact as engine
from hippo_git.transcripts.redact import Redactor, scan


def _count(monkeypatch: pytest.MonkeyPatch, name: str) -> list[Any]:
    """Calls of `engine.<name>` from now on (the real function still runs)."""
    real: Callable[..., Any] = getattr(engine, name)
    calls: list[Any] = []

    def counted(*args: Any) -> Any:
        calls.append(args)
        return real(*args)

    monkeypatch.setattr(engine, name, counted)
    return calls


def test_escapes_are_blanked_only_in_text_that_has_a_backslash(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count(monkeypatch, "blank_escapes")
    assert scan("password = s3cretValue99") == [(11, 24, "password")] and calls == []
    assert scan("x\\npassword = s3cretValue99") == [(14, 27, "password")] and len(calls) == 1


def test_a_text_of_word_characters_only_opens_no_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    """No character but letters, digits, `_`, `.`, `-`: only a bare vendor token can be there, so
    no context rule is looked up, in ASCII as outside it."""
    calls = _count(monkeypatch, "_gates")
    for text in ("password_token_secret", "pässwörd_tökén_sécret", "ΚΛΕΙΔΙ.password-token"):
        assert scan(text) == []
    assert calls == []
    assert scan("password = s3cretValue99") and len(calls) == 1
    assert scan("pässwörd = s3cretValue99") == [] and len(calls) == 2


def test_the_rules_run_only_when_a_gate_opened(monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[int] = []
    real = engine._assign.run_rules

    def counted(text: str, low: str, view: str, hits: int, spans: list[tuple[int, int, str]]) -> None:
        calls.append(hits)
        real(text, low, view, hits, spans)

    monkeypatch.setattr(engine._assign, "run_rules", counted)
    assert scan("nothing to see here: a plain sentence, with commas.") == [] and calls == []
    assert scan("token = Xk9mQ2pL7abc;") == [(8, 20, "secret")] and len(calls) == 1 and calls[0]


def test_emails_are_looked_for_only_where_an_at_sign_is(monkeypatch: pytest.MonkeyPatch) -> None:
    calls = _count(monkeypatch, "_emails")
    assert scan("write to the list, then wait") == [] and calls == []
    assert scan("write to ann.lee@mailhost.org, then wait") == [(9, 29, "email")] and len(calls) == 1


def test_an_echo_is_looked_for_in_a_text_of_six_characters_or_more() -> None:
    r = Redactor()
    r.start_echoes()
    assert r.redact("password = abc123") == "password = [redacted:password]"
    assert r.redact("abc123") == "[redacted:password]"
    assert r.redact("xabc123") == "x[redacted:password]"


def test_text_outside_ascii_is_lowercased_from_its_bytes_when_it_has_no_escape(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """A long text outside ASCII was already encoded for the token pass: lowercasing those bytes
    spares a second encoding; with an escape the view differs and the text itself is lowercased."""
    calls = _count(monkeypatch, "_lower")
    assert scan("É password = s3cretValue99, ok") == [(13, 26, "password")] and calls == []
    assert scan("É password = s3cretValue99\\nok") == [(13, 26, "password")] and len(calls) == 1
    assert scan("É pwd = s3cret9") == [(8, 15, "password")] and len(calls) == 2  # too short for bytes
