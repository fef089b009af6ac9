"""The gate lookups' edges that mutation testing checks (issue 21): the gates each engine refuses,
how the engine is chosen, and the grouped lookup on texts around its length threshold."""

from __future__ import annotations

import pytest

from hippo_git.transcripts import redact_gates


def test_a_word_gate_must_be_read_lowercased() -> None:
    # A gate without one of the parent characters is looked up by word, in the lowercased text.
    with pytest.raises(ValueError, match="must be looked up in lowercase"):
        redact_gates.gate_lookup([(("token",), False)], use="re")
    assert redact_gates.gate_lookup([(("token",), True)], use="re")("a TOKEN", "a token") == 1


def test_hyperscan_refuses_gates_it_could_not_match_as_the_definition_does() -> None:
    pytest.importorskip("hyperscan")
    for bad in [(("tökén",), True), (("Token",), True)]:
        with pytest.raises(ValueError, match="must be ASCII"):
            redact_gates.gate_lookup([bad], use="hyperscan")
    # Upper case is fine where the gate is read in the text as it is.
    hits = redact_gates.gate_lookup([(("Tok=",), False)], use="hyperscan")
    assert hits("a Tok=1", "a tok=1") == 1 and hits("a tok=1", "a tok=1") == 0


@pytest.mark.parametrize("value", ["re", " RE ", "Re"])
def test_the_re_engine_is_chosen_by_name_whatever_its_case(
    monkeypatch: pytest.MonkeyPatch, value: str
) -> None:
    monkeypatch.setenv("HIPPO_REDACT_ENGINE", value)
    assert redact_gates.engine() == "re"


def test_the_lookup_switches_to_groups_at_exactly_its_length() -> None:
    # Gates under `=` (a group anchor) and a word; texts one short of, at and past `long`.
    rule_gates = [(("key=",), True), (("passwd",), True), (("~x",), False)]
    for long in (10, 11):
        hits = redact_gates.gate_lookup(rule_gates, long=long, use="re")
        for text, want in [
            ("aa key=1 b", 0b001),
            ("passwd ~x!", 0b110),
            ("KEY= ~xpass", 0b101),
            ("key passw ~", 0),
        ]:
            assert hits(text, text.lower()) == want, (long, text)


def test_a_gate_tried_after_another_still_opens_its_other_rules() -> None:
    # `://` is tried only after `//`; it opens rule 1 too, which `//` alone does not.
    rule_gates = [(("//", "://"), False), (("://",), False)]
    for long in (0, 10**9):
        hits = redact_gates.gate_lookup(rule_gates, long=long, use="re")
        assert hits("see http://host", "see http://host") == 0b11, long
        assert hits("a // comment", "a // comment") == 0b01, long


def test_a_longer_word_gate_still_opens_the_rules_its_shorter_parent_does_not() -> None:
    # `passwd` sits under `pass`; rule 0 is opened by either, rule 1 by `passwd` only: finding
    # `pass` (rule 0) must not skip the look for `passwd`, in short and in long texts alike.
    rule_gates = [(("pass", "passwd"), True), (("passwd",), True)]
    for long in (0, 10**9):
        hits = redact_gates.gate_lookup(rule_gates, long=long, use="re")
        assert hits("my passwd x", "my passwd x") == 0b11, long
        assert hits("my pass x", "my pass x") == 0b01, long
