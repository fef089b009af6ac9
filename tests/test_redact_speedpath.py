"""The fast paths of redaction find what the plain ones find.

Long texts look their gates up through groups of gates (`redact_gates.gate_lookup`), short ones
one `in` at a time: both must give the bits the gates' definition gives, and a secret planted in
a long text must be redacted exactly as on its own. Also: the one-pass choice of JSON escapes to
blank, the ASCII check for special characters, a rule skipped when what its matches start with
is absent, the bare-value pattern, and the Scrubber's memo (cleared when full) and cursor state.
"""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
import yaml

from hippo_git.index import scrub as scrub_module
from hippo_git.index.scrub import Scrubber
from hippo_git.transcripts import redact as engine
from hippo_git.transcripts import redact_gates, redact_rules, redact_tables
from hippo_git.transcripts.redact import redact, scan
from hippo_git.transcripts.redact_escapes import blank_escapes
from tests.conftest import corpus
from tests.test_redact import FAKE_SECRETS, RULES_DIR

DIRECT = redact_gates.gate_lookup(engine._RULE_GATES, long=10**9, use="re")
GROUPED = redact_gates.gate_lookup(engine._RULE_GATES, long=0, use="re")
try:  # the one-pass engine, where its wheel is installed (the pure-`re` lookups above always run)
    import hyperscan  # noqa: F401

    HYPERSCAN = redact_gates.gate_lookup(engine._RULE_GATES, use="hyperscan")
except ImportError:
    HYPERSCAN = None
LOOKUPS = [DIRECT, GROUPED] + ([HYPERSCAN] if HYPERSCAN else [])
needs_hyperscan = pytest.mark.skipif(HYPERSCAN is None, reason="no hyperscan wheel here")

# Long text full of the gates' characters and near-misses of their words, holding no secret.
FILLER = (
    "// Package auth keeps the session keys; see docs/keys.md and https://example.com/docs.\n"
    "func (s *Store) Lookup(key string) (Token, error) {\n"
    "\ttok, ok := s.tokens[key] // a cache of parsed tokens, keyed by id\n"
    '\tif !ok { return Token{}, fmt.Errorf("no token for %q", key) }\n'
    "\treturn tok, nil\n}\n"
    "- the test passes when the bypass flag is set; compass-like names, a -user flag alone\n"
    "- cpu_pattern = compute(bytes), sig = sign(body), entry := list[0], credentials(later)\n"
    "Bearer tokens are read by the middleware, the secretary unsealed the envelope.\n"
    "$ ls -la ~/projects && echo done ; p4ssw0rd is not a word; keystore keyboard ticket\n"
) * 2
FILLER_UNICODE = FILLER.replace("// Package", "// Paquet → café, naïve; Package").replace(
    "keys;", "clés; keys;"
)
LITERALS = sorted({g for gates, _ in engine._RULE_GATES for g in gates})


def reference(text: str) -> int:
    """The gates' definition: rule i runs when one of its gates occurs (in the lowercased text
    for rules that read it)."""
    low = engine._lower(text)
    return sum(
        1 << i
        for i, (gates, on_low) in enumerate(engine._RULE_GATES)
        if any(g in (low if on_low else text) for g in gates)
    )


def gate_texts() -> list[str]:
    """Every gate literal, in three cases, at the start, middle and end of both fillers, alone and
    next to every other literal (the same group found twice, one after another, overlapping)."""
    texts = []
    for filler in (FILLER, FILLER_UNICODE, "x" * 700, "é" * 700):
        mid = len(filler) // 2
        for lit in LITERALS:
            for form in (lit, lit.upper(), lit.title()):
                texts += [form + filler, filler[:mid] + form + filler[mid:], filler + form]
        for a in LITERALS:
            for b in LITERALS:
                texts += [a + filler + b, filler[:mid] + a + b + filler[mid:], filler + a[:-1] + b]
    return texts


def test_the_filler_holds_no_secret() -> None:
    assert len(FILLER) >= redact_gates.LONG
    assert scan(FILLER) == [] and scan(FILLER_UNICODE) == []


def test_long_and_short_gate_lookups_give_the_gates_definition() -> None:
    for text in gate_texts():
        low = engine._lower(text)
        want = reference(text)
        for lookup in LOOKUPS:
            assert lookup(text, low) == want, text[:80]


def test_letters_outside_ascii_open_no_gate() -> None:
    # The Kelvin sign lowercases to "k": as in the plain lookup, it opens no gate.
    for text in ("to\u212aen = abcdefgh12345", "\u212aey: abcdefgh12345678", "pa\u017f\u017f = abcdefgh1234"):
        padded = FILLER + text
        for lookup in LOOKUPS:
            assert lookup(padded, engine._lower(padded)) == reference(padded)


def reference_for(rule_gates: list[tuple[tuple[str, ...], bool]], text: str) -> int:
    low = engine._lower(text)
    return sum(
        1 << i
        for i, (gates, on_low) in enumerate(rule_gates)
        if any(g in (low if on_low else text) for g in gates)
    )


def test_gate_lookups_on_random_gates_and_texts() -> None:
    """Gates made of the anchors, the parent characters and a few letters, in random sets, found
    in random texts by both lookups as by their definition (the structure, not today's rules)."""
    rng = random.Random(20260101)
    alphabet = "kbpuc(=/-_~$xyKBé "
    for _ in range(40):
        rule_gates = []
        for _ in range(rng.randrange(1, 12)):
            literals = tuple(
                "".join(rng.choice(alphabet[:-2]) for _ in range(rng.randrange(2, 6))) for _ in range(3)
            )
            parented = all(any(c in lit for c in "~!($@=/:_-") for lit in literals)
            rule_gates.append((literals, rng.random() < 0.5 or not parented))
        rule_gates = [(tuple(g.lower() if low else g for g in gates), low) for gates, low in rule_gates]
        lookups = [redact_gates.gate_lookup(rule_gates, long=n, use="re") for n in (10**9, 0)]
        if HYPERSCAN is not None:
            lookups.append(redact_gates.gate_lookup(rule_gates, use="hyperscan"))
        for _ in range(30):
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 1500)))
            low, want = engine._lower(text), reference_for(rule_gates, text)
            assert all(lookup(text, low) == want for lookup in lookups), (rule_gates, text)


def test_a_gate_found_first_does_not_hide_the_gates_tried_after_another() -> None:
    # Rule 0 runs through `~x` before `//` is looked at; `://`, tried only after `//`, is still found.
    rule_gates = [(("~x", "//"), False), (("://",), False)]
    text = "~x and http://host " * 40
    for long in (0, 10**9):
        assert redact_gates.gate_lookup(rule_gates, long=long, use="re")(text, text.lower()) == 0b11


def test_a_word_gate_inside_a_word_gate_inside_a_word_gate_is_found() -> None:
    # `htpasswd` nests under `passw`, which nests under `pass`: the third level is looked up too.
    rule_gates = [(("pass",), True), (("passw",), True), (("htpasswd",), True), (("pwd",), True)]
    for text in ("run htpasswd -b", "HTPASSWD file", "x" * 700 + " htpasswd", "passed " * 120, "pwd"):
        want = reference_for(rule_gates, text)
        for long in (0, 10**9):
            assert redact_gates.gate_lookup(rule_gates, long=long, use="re")(text, text.lower()) == want, text
        if HYPERSCAN is not None:
            assert redact_gates.gate_lookup(rule_gates, use="hyperscan")(text, text.lower()) == want


def test_the_engine_is_hyperscan_where_installed_unless_told_re(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HIPPO_REDACT_ENGINE", "re")
    assert redact_gates.engine() == "re"
    monkeypatch.delenv("HIPPO_REDACT_ENGINE")
    assert redact_gates.engine() == ("re" if HYPERSCAN is None else "hyperscan")


@needs_hyperscan
def test_a_hyperscan_library_that_refuses_the_cpu_falls_back_to_re(monkeypatch: pytest.MonkeyPatch) -> None:
    """Hyperscan needs SSSE3: where its wheel loads but its compiler refuses the CPU, the gates
    are looked up by `re` (and the same bits come out), unless Hyperscan was asked for by name."""
    import hyperscan

    def refuse(rule_gates: object) -> object:
        raise hyperscan.error("this CPU lacks SSSE3")

    monkeypatch.setattr(redact_gates, "_hyperscan_lookup", refuse)
    fallback = redact_gates.gate_lookup(engine._RULE_GATES)
    for text in gate_texts()[:300]:
        assert fallback(text, engine._lower(text)) == reference(text)
    with pytest.raises(hyperscan.error):
        redact_gates.gate_lookup(engine._RULE_GATES, use="hyperscan")


@needs_hyperscan
def test_hyperscan_gates_are_found_in_every_thread() -> None:
    """Each thread scans with its own scratch space (one shared would be used by two scans)."""
    import threading

    texts = gate_texts()[:400]
    want = [reference(t) for t in texts]
    errors: list[str] = []

    def check() -> None:
        for text, bits in zip(texts, want, strict=True):
            if HYPERSCAN(text, engine._lower(text)) != bits:  # type: ignore[misc]
                errors.append(text[:40])

    threads = [threading.Thread(target=check) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []


def test_redaction_is_the_same_without_hyperscan() -> None:
    """The pure-`re` path (platforms without a wheel) redacts the Nosey Parker examples and the
    planted fakes exactly as the default engine does, in a fresh interpreter told to use it."""
    import json
    import os
    import subprocess
    import sys

    samples = [text for text, _ in FAKE_SECRETS.values()] + [FILLER, FILLER_UNICODE]
    for path in sorted(corpus(*RULES_DIR).glob("*.yml")):
        for rule in yaml.safe_load(path.read_text())["rules"]:
            for example in rule.get("examples") or ():
                samples += [str(example), FILLER + str(example) + FILLER_UNICODE]
    code = (
        "import json, sys\n"
        "from hippo_git.transcripts import redact_gates\n"
        "from hippo_git.transcripts.redact import redact\n"
        "assert redact_gates.engine() == 're'\n"
        "print(json.dumps([redact(t)[0] for t in json.load(sys.stdin)]))\n"
    )
    env = dict(os.environ, HIPPO_REDACT_ENGINE="re")
    out = subprocess.run(
        [sys.executable, "-c", code],
        input=json.dumps(samples),
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    assert len(samples) > 100
    assert json.loads(out.stdout) == [redact(t)[0] for t in samples]


def planted(example: str, filler: str) -> tuple[str, int]:
    text = filler + "\n\n" + example + "\n\n" + filler
    return text, len(filler) + 2


def assert_found_as_alone(example: str) -> None:
    alone = scan(example)
    for filler in (FILLER, FILLER_UNICODE):
        text, at = planted(example, filler)
        assert scan(text) == [(s + at, e + at, k) for s, e, k in alone], example[:80]


@pytest.mark.parametrize("kind", sorted(FAKE_SECRETS))
def test_a_secret_in_a_long_text_is_redacted_as_on_its_own(kind: str) -> None:
    example, secret = FAKE_SECRETS[kind]
    assert_found_as_alone(example)
    text, _ = planted(example, FILLER_UNICODE)
    assert secret not in redact(text)[0]


def test_noseyparker_examples_in_a_long_text_are_found_as_on_their_own() -> None:
    examples = []
    for path in sorted(corpus(*RULES_DIR).glob("*.yml")):
        for rule in yaml.safe_load(path.read_text())["rules"]:
            examples += [
                str(e) for e in [*(rule.get("examples") or ()), *(rule.get("negative_examples") or ())]
            ]
    assert len(examples) > 400
    for example in examples:
        assert_found_as_alone(example)


@pytest.mark.parametrize(
    ("text", "secret"),
    [
        ("refresh: 1//0" + "gHq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2CxZq8Xw3", "1//0gHq8Xw3"),  # gate `1//0`
        ("postgres://app:" + "S3cr3t-Pa55word@db.internal/app", "S3cr3t-Pa55word"),  # gate `://`
        ("GET https://tb.example.com/api/v1/" + "A1b2C3d4E5f6G7h8I9j0/telemetry", "A1b2C3d4E5f6G7h8I9j0"),
        ('{"method": "auth.login_with_api_key", "params": ["' + "1-" + "ab" * 32 + '"]}', "ab" * 32),
    ],
)
def test_gates_behind_double_slash_and_leads(text: str, secret: str) -> None:
    for padded in (text, FILLER + "\n" + text + "\n", FILLER_UNICODE + "\n" + text + "\n"):
        assert secret not in redact(padded)[0], padded[-120:]


def test_a_lead_never_stands_in_for_a_gate() -> None:
    # ThingsBoard runs only where `//` occurs: `/api/v1/` alone is not enough, as before.
    path = "/api/v1/" + "A1b2C3d4E5f6G7h8I9j0/telemetry"
    for filler in ("", FILLER.replace("//", "#").replace("://", ":")):
        assert scan(filler + "see " + path) == []
        assert scan(filler + "see http://tb" + path) != []


@pytest.mark.parametrize(
    ("pattern", "lead"),
    [
        (r"abc|def", ""),
        (r"a?bc", ""),
        (r"ab?c", "a"),
        (r"x+y", "x"),
        (r"[ab]c", ""),
        (r"a{2}b", ""),
        (r"hooks\.slack\.com/(?:services)", "hooks.slack.com/"),
        (r"/api/v1/(?P<s>[A-Za-z0-9]{20})/(?:a|b)", "/api/v1/"),
        (r"\$(?:1\$|2)", "$"),
        (r"\d+x", ""),
        (r"key=[\"'](?:a|b)", "key="),
        (r"a(?:b|c)|d", ""),
        (r"a[|]b", "a"),
    ],
)
def test_lead_of_a_pattern(pattern: str, lead: str) -> None:
    assert redact_tables._lead(pattern) == lead
    if lead:  # every match starts with it
        sample = re.compile(pattern)
        for text in (
            "abc",
            "xxy",
            "hooks.slack.com/services",
            "$1$",
            "key='a'",
            "ab",
            "a|b",
            "/api/v1/" + "a" * 20 + "/a",
        ):
            for m in sample.finditer(text):
                assert text.startswith(lead, m.start())


# JSON escapes: every mix of kinds, pairs and NUL, against the replacement of every kind in turn.
def blank_all(text: str) -> str:
    pairs = "\\\\" in text and "\x00" not in text
    view = text.replace("\\\\", "\x00\x00") if pairs else text
    for escape, blank in (("\\n", " \n"), ("\\r", " \r"), ("\\t", "  "), ("\\b", "  "), ("\\f", "  ")):
        view = view.replace(escape, blank)
    view = re.sub(r"\\u[0-9A-Fa-f]{4}", "      ", view)
    return view.replace("\x00\x00", "\\\\") if pairs else view


ESCAPES = (
    "\\n",
    "\\r",
    "\\t",
    "\\b",
    "\\f",
    '\\"',
    "\\\\",
    "\\u0041",
    "\\uzz12",
    "\\\\n",
    "\\\\\\t",
    "\\x",
    "\x00",
    "\\",
)


@pytest.mark.parametrize("first", ESCAPES)
def test_blanking_escapes_in_one_pass_matches_blanking_each_kind(first: str) -> None:
    for second in ESCAPES:
        for third in ESCAPES:
            text = f"a{first}b {second}c{third}"
            assert blank_escapes(text) == blank_all(text), repr(text)


def test_a_token_after_each_kind_of_escape_in_long_json_text() -> None:
    token = "gh" + "p_" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C"
    for escape in ("\\n", "\\r", "\\t", "\\b", "\\f", "\\u0027", "\\\\n"):
        text = FILLER.replace("\n", "\\n") + escape + token + '\\"'
        assert token not in redact(text)[0], escape


def test_text_outside_ascii_with_escapes_is_read_as_its_ascii_twin() -> None:
    # `low` is the text's, not the blanked view's: a value holding an escaped line break is read
    # whole in both (the non-ASCII one lowercases through its bytes).
    for body in ('db password = "S3cret\\nPa55word" ok', 'token: "abc\\tdef12345678"', "pwd=\\nhunter2x"):
        for pad in ("", FILLER):
            ascii_text, other = pad + "e " + body, pad + "é " + body
            assert scan(other) == scan(ascii_text), body


def test_the_ascii_special_check_agrees_with_the_unicode_one() -> None:
    for code in range(128):
        text = "abcdefgh" + chr(code) + "ijk"
        assert (engine._SPECIAL_ASCII.search(text) is None) == (engine._SPECIAL.search(text) is None), code


def test_a_bare_uuid_is_a_postmark_token_only_after_the_word() -> None:
    uuid = "9f86d081-884c-7d65-9a2f-eaa0c55ad015"
    assert scan(uuid) == []
    assert scan("id " + uuid) == []
    assert scan("postmark server token " + uuid) == [(22, 58, "api_token")]


# The bare value of an assignment: `+` inside the repetition matches what one character at a time did.
OLD_BARE_VALUE = (
    r"|(?P<uv>[^\s\"'`;,&<>(){}\[\]|](?:[^\s\"'`;,&(){}\[\]]|\([^\s)]*\)|\[[^\s\]]*\]|\{[^\s}]*\})*))"
)


def test_the_bare_value_pattern_matches_as_before() -> None:
    tail = redact_rules.ASSIGN_TAIL
    start = tail.index("|(?P<uv>")
    old_tail = tail[:start] + OLD_BARE_VALUE
    values = [
        "abc",
        "a(b)c",
        "a(b c",
        "x[1]y{2}",
        "a;b",
        "a<b>|c",
        "f(x)[y]{z}w",
        "q(",
        "v]w",
        "\\n",
        "$(pwd)",
        "a{b c",
        "x{y",
        "p[q r",
        "m(n)o{p}q[r]s",
    ]
    texts = [f"{head}{op}{v}{end}" for head in ("password", "token", "api_key") for op in ("=", ": ", " ", "=\n")
             for v in values for end in ("", " rest", "\n", ")")]  # fmt: skip
    for _, _, head in redact_rules.ASSIGN_HEADS:
        new, old = re.compile(head + tail), re.compile(head + old_tail)
        for text in texts:
            got = [(m.span(), m.groupdict()) for m in new.finditer(text)]
            assert got == [(m.span(), m.groupdict()) for m in old.finditer(text)], text


# The Scrubber: its memo starts again when full, counts stay exact, cursor state as before.
SECRET = "export GITHUB_TOKEN=" + "gh" + "p_" + "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C"


def test_the_memo_starts_again_when_full_and_secrets_are_counted_every_time(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(scrub_module, "_MEMO_MAX_ENTRIES", 10)
    scrub = Scrubber()
    for i in range(25):
        assert scrub.small(f"name-{i}") == f"name-{i}"
        assert scrub.small(SECRET) != SECRET
    assert scrub.counts == {"github_token": 25}
    assert "name-24" in scrub._clean and len(scrub._clean) <= 10  # still learning after it filled


def reference_state(scrub: Scrubber, value: Any) -> Any:
    if isinstance(value, str):
        return scrub.small(value) if len(value) <= 512 else scrub.text(value)
    if isinstance(value, dict):
        return {scrub.small(str(k)): reference_state(scrub, v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [reference_state(scrub, v) for v in value]
    return value


def test_cursor_state_is_redacted_as_each_string_alone() -> None:
    long_value = FILLER + SECRET
    state = {
        "v": 1,
        "sid": "6eb2f834-3935-4de3-a3f6-42688f379d2d",
        SECRET: [SECRET, ("t", SECRET), None, 2.5, True],
        "recent": ["6eb2f834-3935-4de3-a3f6-42688f379d2d 2025-07-06T23:56:47.057Z"] * 3,
        7: {"nested": {"deep": SECRET, "long": long_value}},
    }
    got, want = Scrubber(), Scrubber()
    for _ in range(2):  # the second time from the memo
        assert got.state(state) == reference_state(want, state)
        assert got.counts == want.counts
    assert got.counts == {"github_token": 2 * 5}
