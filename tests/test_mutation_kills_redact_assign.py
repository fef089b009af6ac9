"""`redact_assign` (the context rules and assignments) under mutation testing (issue 21): each
branch of the assignment vetting pinned by an exact case, and two differential tests that reach
whole classes of mutants at once: a secret is found the same wherever it stands in a text
(offsets), and the rules run with their speed shortcuts give what they give without them."""

from __future__ import annotations

import random

import pytest

from hippo_git.transcripts import redact_assign
from hippo_git.transcripts.redact import redact, scan
from hippo_git.transcripts.redact_assign import lower, run_rules
from hippo_git.transcripts.redact_escapes import blank_escapes
from tests.secret_cases import shape_cases

P, S = "[redacted:password]", "[redacted:secret]"
AWS40 = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"  # AWS's documented example secret's shape

# (text, what redaction makes of it): each a branch of `_assignment` or `run_rules`.
CASES: dict[str, str] = {
    # what stands before `pass` / `pwd` decides whether it is the name's own word
    "dbPass = s3cretValue99": f"dbPass = {P}",  # camelCase
    "mypass = s3cretValue99": "mypass = s3cretValue99",  # a word ending in pass
    "bpass = s3cretValue99": "bpass = s3cretValue99",  # one letter before it, an escape's letter
    "fpwd: s3cretValue99": "fpwd: s3cretValue99",
    "MYPASS=s3cretValue99": f"MYPASS={P}",  # an upper-case name
    ">pass=s3cretValue99": f">pass={P}",
    "$pass = 's3cretValue99'": f"$pass = '{P}'",
    "pwd: s3cretValue99": f"pwd: {P}",
    '"pass": "Xk9mQ2pL7"': f'"pass": "{P}"',
    "pass= Xk9mQ2pL7": f"pass= {P}",
    "PASS: Xk9mQ2pL7": "PASS: Xk9mQ2pL7",  # a test runner's line
    "pass = Xk9mQ2pL": f"pass = {P}",
    "pass = abcdefghij": "pass = abcdefghij",  # `pass` alone needs a random value
    # no operator: a flag, or a quoted password after a blank (Gradle, netrc)
    'password "Xk9mQ2pL"': f'password "{P}"',
    "password 'Xk9mQ2pL'": f"password '{P}'",
    "password `Xk9mQ2pL`": "password `Xk9mQ2pL`",
    '"password" "Xk9mQ2pL"': '"password" "Xk9mQ2pL"',
    "passphrase 'Xk9mQ2pL'": "passphrase 'Xk9mQ2pL'",
    "token Xk9mQ2pL7abc": "token Xk9mQ2pL7abc",
    "--token Xk9mQ2pL7abc": f"--token {S}",
    "-token Xk9mQ2pL7abc": f"-token {S}",
    "--token\tXk9mQ2pL7abc": f"--token\t{S}",
    # comparisons and values on the next line must be quoted
    "token == abcdefgh12": "token == abcdefgh12",
    "token != abcdefgh12": "token != abcdefgh12",
    "token === abcdefgh12": "token === abcdefgh12",
    "token !== abcdefgh12": "token !== abcdefgh12",
    'token == "abcdefgh12"': f'token == "{S}"',
    "token := abcdefgh12": f"token := {S}",
    "token => abcdefgh12": f"token => {S}",
    "token:\n  abcd1234efgh": "token:\n  abcd1234efgh",
    'token:\n  "Xk9mQ2pL7abc"': f'token:\n  "{S}"',
    # a default value: quoted, after a quoted name, on the same line, with a digit
    'getenv("API_KEY",\n "Xk9mQ2pL7")': 'getenv("API_KEY",\n "Xk9mQ2pL7")',
    'getenv("API_KEY", "Xk9mQ2pL7")': f'getenv("API_KEY", "{S}")',
    '"api_key", "timeout1": 5': '"api_key", "timeout1": 5',
    '("token", "secret1")': '("token", "secret1")',
    # YAML tags: the value follows the tag
    "token: !!str": "token: !!str",
    "token: !secret Xk9mQ2pL7abc": f"token: !secret {S}",
    "token: !vault |": "token: !vault |",
    # a bare word is code unless it ends a config line
    "token = abcdefgh": f"token = {S}",
    "token = abcdefgh # note": f"token = {S} # note",
    "token = abcdefgh; x": f"token = {S}; x",
    "token = abcdefgh // x": f"token = {S} // x",
    "token = abcdefgh\r\nx = 1": f"token = {S}\r\nx = 1",
    "token = abcdefgh more": "token = abcdefgh more",
    "self.token = nextchar1": f"self.token = {S}",
    "self.token = abcdefgh": "self.token = abcdefgh",
    "self.token=abcdefgh": f"self.token={S}",
    "$this->token = abcdefgh": "$this->token = abcdefgh",
    "token = tokenvalue": "token = tokenvalue",
    "token = mysecret": "token = mysecret",
    "token=tokenvalue": f"token={S}",
    # values that name a secret rather than hold one
    "password = ${DB_PASS}": "password = ${DB_PASS}",
    "password = xxxxxxxx": "password = xxxxxxxx",
    "password = /etc/passwd": "password = /etc/passwd",
    "password = abc": "password = abc",
    "password = abcd": f"password = {P}",
    "token = abcdefg": "token = abcdefg",
    "token = get_token()": "token = get_token()",
    "token = a.b": "token = a.b",
    "token = config.value": "token = config.value",
    "token = none": "token = none",
    "token = NONE": "token = NONE",
    'token = "Xk9mQ2pL7abc"': f'token = "{S}"',
    'token = "xk9m qpl7abc"': 'token = "xk9m qpl7abc"',
    # names too common to trust without a long random value
    'auth = "Xk9mQ2pL7"': f'auth = "{S}"',
    'auth = "abcdefghij"': 'auth = "abcdefghij"',
    'credentials = "Xk9m"': 'credentials = "Xk9m"',
    'credentials = "Xk9mQ2pL"': f'credentials = "{P}"',
    'credentials = "Xk9mQ2p"': 'credentials = "Xk9mQ2p"',
    'credentials = "abcdefghij"': 'credentials = "abcdefghij"',
    'salt = "abcdefghijk"': 'salt = "abcdefghijk"',
    'salt = "abcdefghij1"': f'salt = "{S}"',
    'password = "abcdefghij"': f'password = "{P}"',
    # a 40-character base64 value is an AWS secret key only under an AWS or access name
    f"access_token = {AWS40}": "access_token = [redacted:aws_secret_key]",
    f"AWS_SECRET = {AWS40}": "AWS_SECRET = [redacted:aws_secret_key]",
    f"secret = {AWS40}": f"secret = {S}",
    f"access_token = {AWS40}x": f"access_token = {S}",
    # INI continuation lines belong to a bare value after `=`
    "password = abc123xyz\n  morepart\nnext = 1": f"password = {P}\nnext = 1",
    "password: abc123xyz\n  morepart": f"password: {P}\n  morepart",
    'password = "abc123xyz"\n  morepart': f'password = "{P}"\n  morepart',
    # a quoted password may hold a blank anywhere but at its ends
    'password = "a bcdefg"': f'password = "{P}"',
    'password = "abcdef g"': f'password = "{P}"',
    'password = "ab\tcdefg"': f'password = "{P}"',
    'password: \t"ab cd ef"': f'password: \t"{P}"',
    # the character before `pass`: a separator, or a lower-case letter before a capital
    "XPass = s3cretValue99": "XPass = s3cretValue99",
    "xPass = s3cretValue99": f"xPass = {P}",
    "_pwd=s3cretValue99": f"_pwd={P}",
    "-pwd=s3cretValue99": f"-pwd={P}",
    ".pass=s3cretValue99": f".pass={P}",
    "x pass=s3cretValue99": f"x pass={P}",
    'pass: "Xk9mQ2pL7"': 'pass: "Xk9mQ2pL7"',
    "\\npass=Xk9mQ2pL7abc": f"\\npass={P}",
    "\\tpass=Xk9mQ2pL7abc": f"\\tpass={P}",
    "\\\\pass=Xk9mQ2pL7abc": f"\\\\pass={P}",
    "a\\\\tpass=Xk9mQ2pL7abc": f"a\\\\tpass={P}",
    # no blank after the name: neither a flag's value nor a Gradle password
    '--token"Xk9mQ2pL7abc"': '--token"Xk9mQ2pL7abc"',
    'password"Xk9mQ2pL"': 'password"Xk9mQ2pL"',
    "token =abcdefgh": f"token ={S}",
    "token= abcdefgh": f"token= {S}",
    "token = abcdefg1 more": f"token = {S} more",
    "password:\n  s3cretValue99": "password:\n  s3cretValue99",
    "token: !!binary": "token: !!binary",
    "token = !abc": "token = !abc",
    # a tag is read only in a bare value: a quoted value starting with `!` is the value itself
    'password = "!Xk9mQ2pL"': f'password = "{P}"',
    'token: "!vault Xk9mQ2pL7abc"': 'token: "!vault Xk9mQ2pL7abc"',
    # a bare value in JSON-rendered text ends at an escaped line break or tab (not at `\\\\n`)
    "token = abcdefgh12\\nnext = 1": f"token = {S}\\nnext = 1",
    "token = abcdefgh12\\\\nnext": f"token = {S}",
    '{"cmd": "export TOKEN=abcd1234efgh\\nls"}': f'{{"cmd": "export TOKEN={S}\\nls"}}',
    '{"cmd": "export TOKEN=abcd1234efgh\\tls"}': f'{{"cmd": "export TOKEN={S}\\tls"}}',
    '{"cmd": "export TOKEN=abcd1234efgh\\rls"}': f'{{"cmd": "export TOKEN={S}\\rls"}}',
    '{"token": "Xk9mQ2pL7abc\\nmore"}': f'{{"token": "{S}"}}',
    "TOKEN=abcd\\u00e91234efgh": f"TOKEN={S}",
    # anchored rules: vetted values, markers left alone, netrc passwords after a login
    "Authorization: Bearer abcdefghij": "Authorization: Bearer abcdefghij",
    "Authorization: Bearer abcDEF123ghi": "Authorization: Bearer [redacted:auth_header]",
    "authorization = base64.decodebytes": "authorization = base64.decodebytes",
    "Authorization: Basic [redacted:secret]": "Authorization: Basic [redacted:secret]",
    # a marker a rule matches first does not stop its later matches
    "the password is '[redacted:password]'\nthe password is 'hunter22'": (
        f"the password is '{P}'\nthe password is '{P}'"
    ),
    "machine h login bob password s3cretValue99": f"machine h login bob password {P}",
    "machine h user bob password s3cretValue99": f"machine h user bob password {P}",
    "machine h password s3cretValue99": "machine h password s3cretValue99",
    "login bob password s3cretValue99": f"login bob password {P}",  # the login at the text's start
    "user bob\npassword s3cretValue99": f"user bob\npassword {P}",
    "the password is 'hunter22'": f"the password is '{P}'",
    "the password is 'xxxxxxxx'": "the password is 'xxxxxxxx'",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAx1y2z3abcdefghijklmnop \t\n": "[redacted:private_key] \t\n",
}


@pytest.mark.parametrize("text", list(CASES))
def test_each_assignment_branch(text: str) -> None:
    assert redact(text)[0] == CASES[text]


def test_a_netrc_login_counts_within_200_characters_before_the_password() -> None:
    # `login` starts 200 characters before `password`, then 201
    near = "machine h login bob" + " " * 191 + "password s3cretValue99"
    assert redact(near)[0].endswith(P)
    far = "machine h login bob" + " " * 192 + "password s3cretValue99"
    assert redact(far)[0] == far


def test_a_name_is_read_back_to_the_start_of_the_text() -> None:
    name = "x" * 59 + "_pass"
    assert redact(f"{name}=s3cretValue99")[0] == f"{name}={P}"
    assert redact(f"-{name}=s3cretValue99")[0] == f"-{name}={P}"


def test_a_flags_dash_counts_64_characters_before_its_head_and_no_further() -> None:
    # `-` then 63 characters then `token`: the dash is the 64th character read back, a flag
    flag = "run -" + "a" * 62 + "_token s3cretValue99"
    assert redact(flag)[0] == flag.replace("s3cretValue99", S)
    far = "run -" + "a" * 63 + "_token s3cretValue99"  # the 65th: not read, no flag, no value
    assert redact(far)[0] == far


# --- offsets: a secret is found the same wherever it stands ----------------------------------------

# Before each case: plain lines, JSON-escaped line breaks (the rules then read a copy with the
# escapes blanked), characters outside ASCII (one lowercases to two), other rules' words.
PREFIXES = (
    "x\n",
    "İ ok\n",
    "é\n",
    "note\\n",
    "İ\\t",
    '{"a": 1}\n',
    "the token, key, auth and bearer docs\n" + "-" * 100 + "\n",  # far enough not to name a loose value
    "a\\\\nb İ\n",
    "ÄÖÜ " * 30 + "\n",
)
SUFFIXES = ("", "\n", "\nend\\n", "\n\u00e9 done")


def _texts() -> list[str]:
    return list(CASES) + [case.text for case in shape_cases()]


def test_each_case_is_redacted_the_same_after_any_text() -> None:
    for text in _texts():
        alone = redact(text)[0]
        if "[redacted:" not in CASES.get(text, "[redacted:"):
            assert alone == text
        # a block or list at the very end takes the text's last line break: suffixes only where
        # the case itself keeps one
        ends = [s for s in SUFFIXES if redact(text + "\n")[0] == alone + "\n"] or [""]
        for before in PREFIXES:
            assert redact(before)[0] == before
            for after in ends:
                assert redact(before + text + after)[0] == before + alone + after, (before, text, after)


def test_spans_move_with_the_text_before_them() -> None:
    rng = random.Random(4242)
    words = ["x", "İ", "é", "\\n", "\\t", "\\\\", "ok", " ", "\n", "ÄÖ", "\\u00e9"]
    for text in _texts():
        spans = scan(text)
        for _ in range(3):
            before = "".join(rng.choice(words) for _ in range(rng.randrange(1, 12))) + "\n"
            if scan(before):
                continue
            shifted = [(a + len(before), b + len(before), k) for a, b, k in spans]
            assert scan(before + text) == shifted, (before, text)


# --- shortcuts: the rules give what they give without them -----------------------------------------

ALL_RULES = (1 << len(redact_assign.RULES)) - 1


def _run(text: str, hits: int) -> list[tuple[int, int, str]]:
    view = blank_escapes(text) if "\\" in text else text
    spans: list[tuple[int, int, str]] = []
    run_rules(text, lower(text), view, hits, spans)
    return spans


def test_the_lead_shortcut_skips_no_match(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every rule run on every case, with each rule's leads (the `in` that spares a search) and
    without: the same spans."""
    texts = [t for text in _texts() for t in (text, "İ\\n" + text, "\\\\n" + text)]
    with_leads = [_run(t, ALL_RULES) for t in texts]
    bare = [(kind, rx, low, groups, assign, ()) for kind, rx, low, groups, assign, _ in redact_assign.RULES]
    monkeypatch.setattr(redact_assign, "RULES", bare)
    assert [_run(t, ALL_RULES) for t in texts] == with_leads


def test_the_view_is_lowercased_once_and_only_when_it_is_not_the_text(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The anchored rules that read lowercase reuse the scan's lowercased text when the view is
    the text itself, and lowercase an escaped view once for all of them (speed: issue 12)."""
    calls: list[str] = []

    def counted(text: str) -> str:
        calls.append(text)
        return lower(text)

    monkeypatch.setattr(redact_assign, "lower", counted)
    # two rules that read lowercase (`authorization`, `bearer`), a view that is the text
    plain = "Authorization: Bearer abcDEF123ghi"
    assert redact(plain)[0] == "Authorization: Bearer [redacted:auth_header]" and calls == []
    escaped = 'x\\n"Authorization: Bearer abcDEF123ghi"'
    assert redact(escaped)[0] == 'x\\n"Authorization: Bearer [redacted:auth_header]"'
    assert len(calls) == 1
