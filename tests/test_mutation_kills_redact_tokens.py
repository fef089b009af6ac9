"""The token scan (`redact_tokens`) against its definition, over generated texts (issue 21).

Its speed comes from shortcuts: runs of 20+ token characters found with one `translate`, a dict
on a run's first two characters, shapes keyed by run length, the look back over a dotted prefix
or an escape, and the resume point after a token. Two differential tests reach all of them:

- every vendor token rule (`redact_rules.TOKENS`, `SHAPES`) finds examples generated from its own
  regex when they stand alone, as its kind, over the whole example;
- a token, a shape after its context word, a loose secret after `key: ` and a key's body lines are
  found the same wherever they stand (at the start or the end of the text, after every separator,
  after multi-byte characters, after a JSON escape, JSON-escaped themselves, two side by side):
  the spans are those of the example alone, moved by what comes before it.
"""

from __future__ import annotations

import base64
import json
import random
import re
import re._constants as sre_constants  # type: ignore[import-not-found]
import re._parser as sre_parser  # type: ignore[import-not-found]
from typing import Any

import pytest

from hippo_git.transcripts import redact_loose, redact_rules, redact_tokens
from hippo_git.transcripts.redact import scan

_TOKEN_CHARS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"


def example(pattern: str, rng: random.Random) -> str:
    """A string the regex matches, drawn at random: classes give a letter or digit where they
    hold one (the run a token lives in), repeats 20 or their least, up to 12 more; drawn again
    until the look-aheads (a digit, a capital) hold too."""
    while True:
        text = _draw(pattern, rng)
        if re.fullmatch(pattern, text):
            return text


def _draw(pattern: str, rng: random.Random) -> str:
    out: list[str] = []

    def walk(items: Any) -> None:
        for op, av in items:
            if op is sre_constants.LITERAL:
                out.append(chr(av))
            elif op is sre_constants.IN:
                chars: list[str] = []
                for kind, value in av:
                    if kind is sre_constants.LITERAL:
                        chars.append(chr(value))
                    elif kind is sre_constants.RANGE:
                        chars += [chr(c) for c in range(value[0], value[1] + 1)]
                    elif kind is sre_constants.CATEGORY:
                        chars += "0123456789"
                    else:
                        raise AssertionError((kind, value))
                out.append(rng.choice([c for c in chars if c in _TOKEN_CHARS] or chars))
            elif op in (sre_constants.MAX_REPEAT, sre_constants.MIN_REPEAT):
                least, most, sub = av
                if most > 1:  # at least 20 where it may (a run of 20 is what the scan looks at)
                    least = min(most, max(least, 20))
                for _ in range(rng.randint(least, min(most, least + 12))):
                    walk(sub)
            elif op is sre_constants.SUBPATTERN:
                walk(av[-1])
            elif op is sre_constants.BRANCH:
                walk(rng.choice(av[1]))
            elif op is sre_constants.CATEGORY:
                out.append(rng.choice("0123456789"))
            elif op not in (sre_constants.ASSERT_NOT, sre_constants.ASSERT, sre_constants.AT):
                raise AssertionError((op, av))

    walk(sre_parser.parse(pattern))
    return "".join(out)


def b64_pem(rng: random.Random, size: int) -> str:
    body = "".join(rng.choice(_TOKEN_CHARS) for _ in range(size))
    pem = f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n"
    return base64.b64encode(pem.encode()).decode()


def token_examples(rng: random.Random) -> list[tuple[str, str]]:
    """(example, kind) for every vendor token and shape rule, three apiece (a Telegram token is
    its bot id, a colon and what the rule matches; a base64 PEM has a random body)."""
    found = []
    for kind, pattern in redact_rules.TOKENS:
        for _ in range(3):
            text = example(pattern, rng)
            if kind == "telegram_bot_token":
                text = "4839574813:" + text
            if kind == "private_key":
                text = b64_pem(rng, rng.randrange(8, 200))
            found.append((text, kind))
    for kind, _, pattern, context in redact_rules.SHAPES:
        for _ in range(3):
            word = example(context, rng) + " " if context else ""
            found.append((word + example(pattern, rng), kind))
    return found


def test_each_token_rule_finds_examples_drawn_from_its_own_regex() -> None:
    rng = random.Random("m4-tokens")
    examples = token_examples(rng)
    kinds = {kind for kind, _ in redact_rules.TOKENS} | {kind for kind, *_ in redact_rules.SHAPES}
    assert {kind for _, kind in examples} == kinds and len(examples) > 400
    for text, kind in examples:
        start = text.rfind(" ") + 1  # a shape's span is its value, after its context word
        assert scan(text) == [(start, len(text), kind)], text


def test_a_base64_pem_is_read_from_its_first_120_characters() -> None:
    # Decoding 120 characters (a multiple of 4) reads its header; no context word here, so only
    # the decoded header makes it a key.
    rng = random.Random("m4-pem")
    for size in (40, 60, 100, 400):
        pem = b64_pem(rng, size)
        assert len(pem) > 121
        assert scan(f"see {pem} here") == [(4, 4 + len(pem), "private_key")]
    cert = base64.b64encode(b"-----BEGIN CERTIFICATE-----\n" + b"A" * 200).decode()
    assert scan(f"see {cert} here") == []


# What may stand before and after an example: nothing, separators, multi-byte characters, JSON
# escapes (a run then starts at the escape's letter), quotes and brackets, long words.
BEFORE = ("", " ", "\n", "x ", "é ", "日本語 ", "\t", "(", "[", "{", '"', "'", "<", "`", "a, ", "→ ")
BEFORE += ("\\n", "\\t", '\\"', "\\\\n", "\\u00e9", "x" * 100 + " ", "ghp_short ", "sk- ", "AKIA ")
AFTER = ("", " ", "\n", ")", "]", "}", '"', "'", ">", ",", ";", "`", " é", "\\n", '\\"')
AFTER += (" and more words", "\n" + "y" * 100, "! Next", " /path")


def loose_examples(rng: random.Random) -> list[str]:
    """A random key after `key: `, and a key block's body lines (base64, with + and /)."""
    b64 = _TOKEN_CHARS + "+/"
    found = []
    for _ in range(12):
        value = "".join(rng.choice(_TOKEN_CHARS) for _ in range(rng.randrange(24, 60)))
        value = value[:3] + "Aa1" + value[3:]  # both cases and a digit
        found.append(f"key: {value}")
        lines = ["".join(rng.choice(b64) for _ in range(64)) for _ in range(rng.randrange(2, 5))]
        found.append("\n".join(lines))
    return found


def assert_found_as_alone(texts: list[str], before: tuple[str, ...], after: tuple[str, ...]) -> None:
    for text in texts:
        alone = scan(text)
        assert alone, text
        for b in before:
            for a in after:
                want = [(s + len(b), e + len(b), k) for s, e, k in alone]
                assert scan(b + text + a) == want, (b, text, a)


def test_a_token_is_found_the_same_wherever_it_stands() -> None:
    rng = random.Random("m4-where")
    examples = [text for text, _ in token_examples(rng)]
    assert_found_as_alone(examples, BEFORE, AFTER)


def test_a_loose_secret_and_a_key_body_are_found_the_same_wherever_they_stand() -> None:
    rng = random.Random("m4-loose")
    examples = loose_examples(rng)
    # a key body's first line may follow text only past a blank or a quote, and the body ends
    # its line (`_KEY_LINE`)
    assert_found_as_alone(examples, ("", "\n", "x\n", "é\n", "日本語\n"), ("", "\n", "\nmore words"))
    keys = [text for text in examples if text.startswith("key: ")]
    assert_found_as_alone(keys, BEFORE, AFTER)


def test_a_json_escaped_token_is_found_the_same_wherever_it_stands() -> None:
    rng = random.Random("m4-json")
    examples = [json.dumps(text)[1:-1] for text, _ in token_examples(rng)]
    examples += [json.dumps(text)[1:-1] for text in loose_examples(rng) if text.startswith("key: ")]
    assert_found_as_alone(examples, ('{"k": "', '\\"', "\\n", "é "), ('"}', '\\"', "\\n", ""))


def test_tokens_side_by_side_are_each_found_as_alone() -> None:
    rng = random.Random("m4-pairs")
    examples = [text for text, _ in token_examples(rng)] + loose_examples(rng)[::2]
    # (after an AWS key id, a 40-character run is its secret: not alone)
    for first in [text for text, kind in token_examples(rng) if kind != "aws_access_key_id"]:
        second = rng.choice(examples)
        for sep in (" ", "\n", ", ", "\\n"):
            text = first + sep + second
            at = len(first) + len(sep)
            want = scan(first) + [(s + at, e + at, k) for s, e, k in scan(second)]
            assert scan(text) == want, text


TERRAFORM = "abcdefghijklmn.atlasv1." + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C" * 2  # <14>.atlasv1.<60+>


def test_a_terraform_token_is_found_from_the_start_of_the_text_on() -> None:
    assert scan(TERRAFORM) == [(0, len(TERRAFORM), "api_token")]
    assert_found_as_alone([TERRAFORM], BEFORE, AFTER)


def test_a_shapes_context_word_counts_within_80_characters_before_it() -> None:
    token = "00" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C"[:40] + "ab12"  # Okta: 00 and 40
    assert len(token) == 42
    for gap, found in ((76, True), (77, False), (200, False)):  # `okta` ends 80 characters before
        text = "okta" + " " * gap + token
        want = [(len(text) - 42, len(text), "api_token")] if found else []
        assert scan(text) == want, gap


def test_a_key_id_inside_a_token_that_ran_past_a_slash_has_no_secret_after_it() -> None:
    # The Grafana token runs on past `/`; the scan resumes after it, so the AWS key id shape in
    # its tail is not a key id, and the 40-character run after it is no AWS secret.
    token = "glsa_" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0Mn" + "/AKIA" + "Q3MX9VR2TL7PK4WZ"
    run40 = "Q3MX9VR2TL7PK4WZa1b2c3d4e5f6g7h8i9j0KLMN"
    assert scan(f"{token} {run40}") == [(0, len(token), "api_token")]


def test_a_run_claimed_as_a_token_is_not_looked_at_again_as_a_loose_secret(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looks: list[int] = []
    key_body = redact_loose.key_body

    def counted(text: str, start: int, end: int) -> tuple[int, int] | None:
        looks.append(start)
        return key_body(text, start, end)

    monkeypatch.setattr(redact_loose, "key_body", counted)
    token = "ghp_" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C"
    assert scan(f"key: {token} and x9Yq2Lm4Np6Rs8Tu0Vw3Xy5Za7Bc1De") == [(5, 45, "github_token")]
    assert looks == [50]  # the next run only, which is no secret (no word or operator before it)


def test_an_openai_key_needs_a_digit_and_a_letter_after_sk_dash() -> None:
    letters = "abcdefghijklmnopqrstuvwxyzABCD"
    assert scan("sk-" + letters) == []
    assert scan("sk-" + "1234567890" * 3) == []
    assert scan("sk-1" + letters) == [(0, 34, "openai_key")]  # the digit first after `sk-`
    assert scan("sk-" + letters + "9") == [(0, 34, "openai_key")]


def test_a_terraform_token_needs_60_characters_after_atlasv1() -> None:
    head = "abcdefghijklmn.atlasv1."
    assert scan(head + "Zq8Xw3Rt7Y" * 6) == [(0, 83, "api_token")]
    assert scan("x " + head + "Zq8Xw3Rt7Y" * 6) == [(2, 85, "api_token")]
    assert all(kind != "api_token" for *_, kind in scan(head + "Zq8Xw3Rt7Y" * 5 + "Zq8Xw3Rt7"))


def test_a_shape_after_a_json_escape_is_found_from_the_escapes_end() -> None:
    okta = "00" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C" + "ab12"
    for escape in ("\\n", "\\t", '\\"', "\\u0022"):
        text = "okta" + escape + okta
        assert scan(text) == [(len(text) - 42, len(text), "api_token")], escape


class Looks:
    """The runs the token scan looked at: passed to `_match_run`, looked up by their first two
    characters (`DISPATCH`) and by length among the shapes, and looked at as a loose key."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.matched: list[int] = []
        self.loose: list[int] = []
        match_run, key_body = redact_tokens._match_run, redact_loose.key_body

        def matched(text: str, raw: bytes, start: int, end: int, spans: list[Any]) -> int:
            self.matched.append(start)
            return match_run(text, raw, start, end, spans)

        def loose(text: str, start: int, end: int) -> tuple[int, int] | None:
            self.loose.append(start)
            return key_body(text, start, end)

        monkeypatch.setattr(redact_tokens, "_match_run", matched)
        monkeypatch.setattr(redact_loose, "key_body", loose)
        self.shapes: list[int] = []
        outer = self

        class Shapes(dict[int, Any]):
            def get(self, length: int, default: Any = None) -> Any:
                outer.shapes.append(length)
                return super().get(length, default)

        monkeypatch.setattr(redact_tokens, "_SHAPES", Shapes(redact_tokens._SHAPES))
        self.dispatched: list[bytes] = []

        class Dispatch(dict[bytes, Any]):
            def get(self, key: bytes, default: Any = None) -> Any:
                outer.dispatched.append(key)
                return super().get(key, default)

        monkeypatch.setattr(redact_tokens, "DISPATCH", Dispatch(redact_tokens.DISPATCH))

    def scan(self, text: str) -> list[tuple[int, int, str]]:
        self.matched.clear()
        self.loose.clear()
        self.shapes.clear()
        self.dispatched.clear()
        return scan(text)


def test_only_runs_that_may_hold_a_token_are_matched(monkeypatch: pytest.MonkeyPatch) -> None:
    looks = Looks(monkeypatch)
    # A run of 19 is not looked at; 25 plain letters (no token's start, no shape's length, no
    # `.`, `\` or `!` before) are not matched, nor looked at as a key (no digit).
    assert looks.scan("LTAI" + "abcdefghijk1234") == [] and looks.matched == [] and looks.loose == []
    assert looks.scan("x abcdefghijklmnopqrstuvwxy z") == [] and looks.matched == [] and looks.loose == []
    # each of those opens the match
    for text in ("x ghp_abcdefghijklmnopqrstuvwxy", "x " + "a" * 42, "x .abcdefghijklmnopqrstuvwxy"):
        looks.scan(text)
        assert looks.matched == [2 + text[2:].startswith(".")], text
    looks.scan("x \\\\nabcdefghijklmnopqrstuvwxy")  # an escape kept (JSON in JSON): `\\n`
    assert looks.matched == [4]


def test_only_runs_with_a_digit_and_both_cases_or_hex_are_looked_at_as_keys(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    looks = Looks(monkeypatch)
    for value in ("abcdefghijklmnopqrstuvwxy", "ABCDEFGHIJKLMNOPQRSTUVWX1", "abcdefghijklmnopqrstuvwx1"):
        assert looks.scan(f"key: {value}") == [] and looks.loose == [], value
    for value in ("abcdefghijklmnopqrstuvwX1", "0123456789abcdef0123456789abcdef"):
        looks.scan(f"key: {value}")
        assert looks.loose == [5], value


def test_a_key_bodys_lines_are_looked_at_once(monkeypatch: pytest.MonkeyPatch) -> None:
    looks = Looks(monkeypatch)
    rng = random.Random("m4-body")
    b64 = _TOKEN_CHARS + "+/"
    body = "\n".join("".join(rng.choice(b64) for _ in range(64)) for _ in range(4))
    assert looks.scan(body) == [(0, len(body), "private_key")]
    assert len(looks.loose) == 1


def test_a_runs_shapes_are_looked_up_once_and_again_after_an_escape(monkeypatch: pytest.MonkeyPatch) -> None:
    looks = Looks(monkeypatch)
    okta = "00" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C" + "ab12"
    assert looks.scan("okta " + okta) == [(5, 47, "api_token")] and looks.shapes == [42]
    assert looks.scan("okta " + okta[:-1]) == [] and looks.shapes == [41]
    # an escape kept (JSON in JSON): the run starts at its letter; the shape is after it
    assert looks.scan("okta \\\\n" + okta) == [(8, 50, "api_token")] and looks.shapes == [43, 42]


def test_a_token_of_exactly_20_then_another_are_both_found() -> None:
    ltai = "LTAI" + "Zq8Xw3Rt7Yu2Io9P"  # Alibaba: LTAI and 12 to 20, a run of 20 here
    ghp = "ghp_" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C"
    assert scan(f"{ltai} {ghp}") == [(0, 20, "api_token"), (21, 61, "github_token")]
    assert scan(f"{ltai}\n{ltai}") == [(0, 20, "api_token"), (21, 41, "api_token")]


def test_a_dotted_prefix_is_walked_back_26_characters_past_an_escape() -> None:
    # SendGrid: `SG.`, 16+, `.`, 16+. With a middle part under 20 the run is the last part, and
    # the prefix is walked back to `SG.`, over a kept escape's letters (`\\u0022`: 26 back).
    middle, last = "Zq8Xw3Rt7Yu2Io9Pa", "xzKsq_jte-ajHFJgBltwdaZCf99H2fjBQ41eNHLt79g"
    for escape in (" ", "\\\\n", "\\\\u0022"):
        for size in (16, 17):
            key = f"SG.{middle[:size]}.{last}"
            text = f"x {escape}{key} y"
            at = 2 + len(escape)
            assert scan(text) == [(at, at + len(key), "sendgrid_key")], (escape, size)


def test_a_base64_pem_shape_that_does_not_decode_is_no_key() -> None:
    head = "LS0tLS1CRUdJTi"  # `-----BEGIN` in base64
    for tail in ("abcdefghij" * 4 + "k", "abcdefghij" * 4 + "k=x"):  # bad padding, `=` inside
        assert scan(f"see {head}{tail} here") == [], tail


def test_a_run_after_an_escape_that_drops_nothing_is_looked_up_once(monkeypatch: pytest.MonkeyPatch) -> None:
    # `\\q` (kept, JSON in JSON) is no escape `after_escape` knows: the run is looked up from its
    # start only, far into a text as near its start (offsets past 256 are distinct int objects).
    looks = Looks(monkeypatch)
    for pad in ("", "word " * 80):
        text = pad + "x \\\\qabcdefghijklmnopqrstuvwxy z"
        assert looks.scan(text) == [] and looks.dispatched == [b"qa"], len(pad)
        looks.scan(pad + "x \\\\nghp_" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C")
        assert looks.dispatched == [b"ng", b"gh"], len(pad)


def test_a_loose_secret_after_hundreds_of_tokens_is_still_found() -> None:
    ghp = "ghp_" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C"
    value = "x9Yq2Lm4Np6Rs8Tu0Vw3Xy5Za7Bc1De"
    text = f"{ghp} " * 300 + "key: " + value
    spans = scan(text)
    assert len(spans) == 301 and spans[-1] == (len(text) - len(value), len(text), "secret")


def test_spans_never_start_before_the_text() -> None:
    # A Terraform-like token whose head is shorter than 14 at the start of the text.
    for head in ("abcdefghijklm", "abcdefghijkl", "a", ""):
        text = head + ".atlasv1." + "Zq8Xw3Rt7Y" * 7
        assert all(0 <= s < e <= len(text) for s, e, _ in scan(text)), head


def test_a_key_body_at_the_start_of_the_text_with_a_short_last_line() -> None:
    # Only the first line is a run of 20+: it is looked at though nothing came before it.
    rng = random.Random("m4-short")
    first = "".join(rng.choice(_TOKEN_CHARS) for _ in range(64))
    last = "".join(rng.choice(_TOKEN_CHARS) for _ in range(16)) + "=="
    body = f"{first}\n{last}"
    assert scan(body) == [(0, len(body), "private_key")]
    assert scan(f"x\n{body}") == [(2, 2 + len(body), "private_key")]


def test_a_salesforce_session_is_read_whole_though_it_starts_like_another_token() -> None:
    # `00<org id>!` is tried 16 before the run, before the run itself (`ghp_…` here).
    session = "ghp_" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C" + "a" * 50
    for before in ("", "x "):
        text = f"{before}00D000000000062!{session}"
        assert scan(text) == [(len(before), len(text), "api_token")], before
