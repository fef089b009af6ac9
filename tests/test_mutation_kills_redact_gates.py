"""The gate lookups' edges that mutation testing checks (issue 21): the gates each engine refuses,
how the engine is chosen, and the grouped lookup on texts around its length threshold."""

from __future__ import annotations

import re
import sys
from collections.abc import Callable
from typing import Any

import pytest

from hippo_git.transcripts import redact as engine
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


# The gates PRUNE (issue 12's speed): a gate is looked for only where it can still open a rule.
# A shortcut broken the other way changes no bits, only the work, so these tests watch the work:
# each `in` the lookup makes on the text (a `str` that records what is looked for in it) and each
# search of a group's regex (`GateGroups.found`, still run).
class Watched(str):
    """A text that records each literal looked for in it with `in`."""

    log: list[object]

    def __contains__(self, needle: object) -> bool:
        self.log.append(needle)
        return super().__contains__(needle)  # type: ignore[operator]


def traced(
    monkeypatch: pytest.MonkeyPatch, hits: Callable[[str, str], int], text: str
) -> tuple[int, list[object], list[int]]:
    """The bits `hits` gives for `text`, the literals it looked for with `in`, and the groups it
    searched, in order."""
    log: list[object] = []
    searched: list[int] = []
    real = redact_gates.GateGroups.found

    def found(self: redact_gates.GateGroups, group: int, low: str) -> int:
        searched.append(group)
        return real(self, group, low)

    monkeypatch.setattr(redact_gates.GateGroups, "found", found)
    watched, low = Watched(text), Watched(engine._lower(text))
    watched.log = low.log = log
    bits = hits(watched, low)
    monkeypatch.undo()
    return bits, log, searched


PAD = " plain words and more words" * 30  # past LONG, holding no gate of the tables below


def test_a_text_below_the_threshold_never_searches_the_groups_and_a_long_one_does(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    hits = redact_gates.gate_lookup(engine._RULE_GATES, use="re")
    short = "my sig=abc and a token"
    bits, log, searched = traced(monkeypatch, hits, short)
    assert bits and searched == [] and "sig=" in log and "token" in log
    for text in (short + " " * (redact_gates.LONG - len(short)), short + PAD):
        assert len(text) >= redact_gates.LONG
        bits_long, log, searched = traced(monkeypatch, hits, text)
        # `sig=` and `token` are found through their groups, and not looked for again
        assert bits_long == bits and searched and "sig=" not in log and "token" not in log


def test_a_gate_whose_rules_all_run_already_is_not_looked_for(monkeypatch: pytest.MonkeyPatch) -> None:
    # Rule 0 runs once `~x` is found (a rare parent, looked up first): its other gates, under
    # `=` and under the word `key`, need no look, through a group or with `in`.
    rule_gates = [(("~x", "sig=", "keypass"), True), (("key",), True)]
    hits = redact_gates.gate_lookup(rule_gates, long=100, use="re")
    text = "~x sig= keypass" + PAD
    bits, log, searched = traced(monkeypatch, hits, text)
    assert bits == 0b11
    assert "sig=" not in log and "keypass" not in log
    assert searched == [0]  # the group of `key` (`k`), not that of `sig=` (`=`)
    # Without `~x`, `sig=` is looked for (and found: `keypass` is not); without either, `keypass`.
    bits, log, searched = traced(monkeypatch, hits, text.replace("~x", "~y"))
    assert bits == 0b11 and "keypass" not in log and sorted(searched) == [0, 3]
    bits, log, searched = traced(monkeypatch, hits, text.replace("~x", "~y").replace("sig=", "si="))
    assert bits == 0b11 and "keypass" in log and sorted(searched) == [0, 3]


def test_a_gate_tried_after_another_is_not_looked_for_once_its_rules_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `://` is tried after `//` (looked up directly, `_COMMON`); rule 0 already runs through `~x`.
    rule_gates = [(("~x", "://"), True), (("//",), True)]
    hits = redact_gates.gate_lookup(rule_gates, long=100, use="re")
    bits, log, searched = traced(monkeypatch, hits, "~x see http://host" + PAD)
    assert bits == 0b11 and "//" in log and "://" not in log and searched == []
    bits, log, searched = traced(monkeypatch, hits, "~y see http://host" + PAD)
    assert bits == 0b11 and searched == [redact_gates.ANCHORS.index("/")]


def test_a_word_tried_after_a_word_is_not_looked_for_once_its_rules_run(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `password` is tried after `passw`, which is tried after `pass`.
    rule_gates = [(("~x", "password"), True), (("pass",), True), (("passw",), True)]
    hits = redact_gates.gate_lookup(rule_gates, long=100, use="re")
    bits, log, _ = traced(monkeypatch, hits, "~x the password" + PAD)
    assert bits == 0b111 and "passw" in log and "password" not in log
    bits, log, _ = traced(monkeypatch, hits, "~y the password" + PAD)
    assert bits == 0b111 and "password" in log


def test_each_group_is_searched_at_most_once_a_text(monkeypatch: pytest.MonkeyPatch) -> None:
    hits = redact_gates.gate_lookup(engine._RULE_GATES, use="re")
    literals = sorted({g for gates, _ in engine._RULE_GATES for g in gates})
    for text in (" ".join(literals) + PAD, PAD + " ".join(literals), PAD, "x" * 700):
        _, _, searched = traced(monkeypatch, hits, text)
        assert len(searched) == len(set(searched)), text[:60]
        assert all(0 <= g < len(redact_gates.ANCHORS) for g in searched)


def test_gates_with_a_rare_parent_or_common_are_looked_up_directly(monkeypatch: pytest.MonkeyPatch) -> None:
    # `~k=` holds the anchor `k`, but gates under `~` are looked up with `in`, never through a group;
    # so is `//` (found early in most long texts).
    rule_gates = [(("~k=",), False), (("//",), True)]
    hits = redact_gates.gate_lookup(rule_gates, long=100, use="re")
    bits, log, searched = traced(monkeypatch, hits, "a ~k= b // c" + PAD)
    assert bits == 0b11 and "~k=" in log and "//" in log and searched == []


def test_a_one_letter_word_gets_no_group(monkeypatch: pytest.MonkeyPatch) -> None:
    # In the `k` group a lone `k` would stand for every literal holding it (`key=` found as "`k`
    # occurs", then looked for with `in`): it is looked up directly, and `key=` through the group.
    rule_gates = [(("k",), True), (("key=",), True)]
    hits = redact_gates.gate_lookup(rule_gates, long=100, use="re")
    bits, log, searched = traced(monkeypatch, hits, "a kite, x=1" + PAD)
    assert bits == 0b01 and "k" in log and "key=" not in log and searched == [0]


def test_a_literals_anchor_is_the_rarest_before_its_last_character() -> None:
    def anchor(literal: str) -> tuple[int, dict[str, int]]:
        literals: list[dict[str, int]] = [{} for _ in redact_gates.ANCHORS]
        group = redact_gates._anchor(literal, literals)
        return group, next((d for d in literals if d), {})

    k, b, eq, p, slash = (redact_gates.ANCHORS.index(c) for c in "kb=p/")
    assert anchor("k") == (-1, {}) and anchor("xyz") == (-1, {})
    assert anchor("xyk") == (k, {"xyk": 2})  # only at the end: that one
    assert anchor("pkx") == (k, {"pkx": 1})  # rarer, though later
    assert anchor("kbx") == (k, {"kbx": 0})
    assert anchor("pxk") == (p, {"pxk": 0})  # before the end beats rarer at the end
    assert anchor("x=b") == (eq, {"x=b": 1})
    assert anchor("x/=") == (slash, {"x/=": 1})
    assert anchor("ab") == (b, {"ab": 1})  # `b` ends it: its group


def test_hyperscan_reports_each_gate_once_a_scan(monkeypatch: pytest.MonkeyPatch) -> None:
    # A gate found a thousand times opens its rules once: Hyperscan is told to stop at the first
    # match of each (`HS_FLAG_SINGLEMATCH`), caseless gates too, rather than call back for each.
    hyperscan = pytest.importorskip("hyperscan")
    calls: list[int] = []

    class Counted(hyperscan.Database):  # type: ignore[misc,name-defined]
        def scan(self, data: bytes, match_event_handler: Any, **kwargs: Any) -> Any:
            def counted(gate: int, *rest: Any) -> Any:
                calls.append(gate)
                return match_event_handler(gate, *rest)

            return super().scan(data, match_event_handler=counted, **kwargs)

    monkeypatch.setattr(hyperscan, "Database", Counted)
    hits = redact_gates.gate_lookup(
        [(("token",), True), (("Sig=",), False), (("~x",), False)], use="hyperscan"
    )
    text = "a Token, Sig=1 and ~x " * 1000
    assert hits(text, text.lower()) == 0b111
    assert sorted(calls) == [0, 1, 2]


def test_a_gate_listed_twice_opens_its_rule_once() -> None:
    # The same literal twice in a rule, or read the same way from two (a caseless one is read in
    # the lowercased text either way): its rules are or-ed together, never added.
    rule_gates = [(("ab=", "ab=", "1/"), False), (("ab=", "1/"), True), (("1/",), False)]
    engines = ["re"] + (["hyperscan"] if redact_gates.engine() == "hyperscan" else [])
    for use in engines:
        for long in (0, 10**9):
            hits = redact_gates.gate_lookup(rule_gates, long=long, use=use)
            assert hits("x ab= y", "x ab= y") == 0b011, (use, long)
            assert hits("x AB= y", "x ab= y") == 0b010, (use, long)
            assert hits("x 1/ y", "x 1/ y") == 0b111, (use, long)


def test_a_gate_with_a_question_mark_reads_the_text_itself() -> None:
    # Without letters a gate reads the same in the lowercased text, where a character outside
    # ASCII is `?`: so `=?` is looked for in the text as it is.
    rule_gates = [(("=?",), False), (("?=",), False)]
    for long in (0, 10**9):
        hits = redact_gates.gate_lookup(rule_gates, long=long, use="re")
        for text, want in (("a =é b", 0b00), ("a =? b", 0b01), ("a é= b", 0b00), ("a ?= b", 0b10)):
            assert hits(text, engine._lower(text)) == want, (long, text)


@pytest.mark.parametrize("parent", ["K", "?"])
def test_a_parent_character_must_have_no_case_and_survive_lowercasing(
    monkeypatch: pytest.MonkeyPatch, parent: str
) -> None:
    monkeypatch.setattr(redact_gates, "_PARENTS", redact_gates._PARENTS + parent)
    with pytest.raises(ValueError, match="no case and survive lowercasing"):
        redact_gates.gate_lookup([((f"x{parent}y",), False)], use="re")


def test_a_groups_regex_tells_its_literals_apart_after_the_anchor() -> None:
    groups = redact_gates.GateGroups(((("key", 0), ("kbd", 0), ("xk1", 1)),))
    # lone: a plain literal (joins `re`'s literal prefix); several: an empty group after each
    # one's next character, the bits in the same order; a look-behind where the anchor is inside
    assert groups._compile(0, 0b001)[0].pattern == "key"
    assert groups._compile(0, 0b100) == (re.compile("k1(?<=xk1)"), (4, 4))
    rx, bits = groups._compile(0, 0b111)
    assert rx.pattern == "k(?:e()y|b()d|1()(?<=xk1))" and bits == (1, 1, 2, 4)
    assert groups.found(0, "a kbd, xk1 key") == 0b111 and groups.found(0, "kb xk k1") == 0
    # Two literals at the same anchor (`-p` and `pass` at one `p`): both found.
    p = redact_gates.ANCHORS.index("p")
    overlapping = redact_gates.GateGroups(((),) * p + ((("-p", 1), ("pass", 0)),))
    assert overlapping.found(p, "a -pass") == 0b11 and overlapping.found(p, "a -p pas") == 0b01


def test_gates_given_as_a_str_subclass_open_their_rules() -> None:
    # YAML loaders may give their own `str` type: a gate equal to its parent character is that
    # character's own gate whatever object holds it.
    class Scalar(str):
        pass

    rule_gates = [
        ((Scalar("="), Scalar("key=")), False),
        ((Scalar("pass"),), True),
        ((Scalar("passw"),), True),
    ]
    for long in (0, 10**9):
        hits = redact_gates.gate_lookup(rule_gates, long=long, use="re")
        assert hits("a = b", "a = b") == 0b001 and hits("a passw", "a passw") == 0b110, long


def test_without_the_hyperscan_wheel_the_engine_is_re(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("HIPPO_REDACT_ENGINE", raising=False)
    monkeypatch.setitem(sys.modules, "hyperscan", None)  # `import hyperscan` raises ImportError
    assert redact_gates.engine() == "re"
    hits = redact_gates.gate_lookup([(("key=",), True)])
    assert redact_gates.reads_low(hits) and hits("a KEY=1", "a key=1") == 1


def test_only_the_re_lookup_reads_the_lowercased_text() -> None:
    rule_gates = [(("key=",), True)]
    assert redact_gates.reads_low(redact_gates.gate_lookup(rule_gates, use="re"))
    if redact_gates.engine() == "hyperscan":
        for hits in (
            redact_gates.gate_lookup(rule_gates),
            redact_gates.gate_lookup(rule_gates, use="hyperscan"),
        ):
            assert not redact_gates.reads_low(hits)
            assert hits("a KEY=1", "") == 1  # read caselessly in the text itself


def test_a_word_gate_is_looked_for_only_where_a_shorter_word_inside_it_occurs(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `passw` sits under `pass`, and `htpasswd` too (the first word inside it), wherever `pass`
    # stands in them: text without `pass` looks for neither.
    rule_gates = [(("pass",), True), (("passw",), True), (("htpasswd",), True), (("token",), True)]
    hits = redact_gates.gate_lookup(rule_gates, use="re")
    bits, log, _ = traced(monkeypatch, hits, "a token here")
    assert bits == 0b1000 and "passw" not in log and "htpasswd" not in log
    bits, log, _ = traced(monkeypatch, hits, "run htpasswd here")
    assert bits == 0b0111 and "passw" in log and "htpasswd" in log


def test_a_gate_its_group_finds_exactly_is_not_looked_for_again(monkeypatch: pytest.MonkeyPatch) -> None:
    # `key=` (under `=`) and `k//` (tried after `//`) are found by the `k` group's regex alone.
    rule_gates = [(("key=",), True), (("//",), True), (("k//",), True)]
    hits = redact_gates.gate_lookup(rule_gates, long=100, use="re")
    bits, log, searched = traced(monkeypatch, hits, "a key=1 and k// b" + PAD)
    assert bits == 0b111 and "key=" not in log and "k//" not in log and searched == [0]
    bits, log, searched = traced(monkeypatch, hits, "a kez=1 and k/ // b" + PAD)
    assert bits == 0b010 and "key=" not in log and "k//" not in log and searched == [0]
