"""The redaction engine's bookkeeping that mutation testing found unguarded (issue 21): claiming
spans, what counts as random, echoes of a secret, counts, and the line numbers find_secrets gives."""

from __future__ import annotations

from hippo_git.transcripts.redact import (
    Redactor,
    _echo_worthy,
    find_secrets,
    redact,
    scan,
)
from hippo_git.transcripts.redact_spans import claim as _claim
from hippo_git.transcripts.redact_spans import randomish as _randomish

KEY = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"  # a GitHub token's shape (36 after ghp_)


def test_a_claim_never_overlaps_an_earlier_one() -> None:
    spans: list[tuple[int, int, str]] = []
    _claim(spans, 10, 20, "a")
    _claim(spans, 15, 25, "b")  # overlaps the end
    _claim(spans, 5, 11, "c")  # overlaps the start
    _claim(spans, 12, 14, "d")  # inside
    _claim(spans, 20, 22, "e")  # touches the end: no overlap
    _claim(spans, 8, 10, "f")  # touches the start: no overlap
    _claim(spans, 0, 2, "g")
    assert spans == [(0, 2, "g"), (8, 10, "f"), (10, 20, "a"), (20, 22, "e")]


def test_randomish_is_a_digit_an_inner_capital_or_base64_punctuation() -> None:
    assert _randomish("abc1") and _randomish("aBc") and _randomish("ab+c") and _randomish("ab/c")
    assert _randomish("ab=")
    assert not _randomish("Abc") and not _randomish("abc") and not _randomish("")


def test_echo_worthiness_by_length_and_randomness() -> None:
    assert not _echo_worthy("abcde", 0, 5)  # shorter than 6
    assert _echo_worthy("abcde1", 0, 6) and not _echo_worthy("abcdef", 0, 6)  # 6: random only
    assert _echo_worthy("abcdefghijkl", 0, 12) and not _echo_worthy("abcdefghijk", 0, 11)
    assert not _echo_worthy("abcdef\nghijkl", 0, 13)
    assert _echo_worthy("x" * 4096, 0, 4096) and not _echo_worthy("x" * 4097, 0, 4097)


def test_echoes_are_redacted_only_after_start_echoes_and_counted() -> None:
    first = f"export GITHUB_TOKEN={KEY}"
    later = f"now I use {KEY} again, and {KEY}."
    plain = Redactor()
    plain.redact(first)
    assert plain.echoes is None  # nothing remembered without start_echoes
    r = Redactor()
    r.start_echoes()
    assert KEY not in r.redact(first)
    out = r.redact(later)
    assert KEY not in out and out.count("[redacted:") == 2
    assert sum(r.counts.values()) == 3
    r.start_echoes()
    assert r.echoes == {}


def test_an_echo_of_a_word_that_is_not_random_is_not_remembered() -> None:
    r = Redactor()
    r.start_echoes()
    r.redact("password = hunter22\n")
    assert r.redact("the hunter22 said") == "the [redacted:password] said"
    r2 = Redactor()
    r2.start_echoes()
    r2.redact("password: abcd\n")  # too short to echo
    assert r2.redact("abcd abcd") == "abcd abcd"


def test_redact_counts_each_kind_and_keeps_the_text_between() -> None:
    text, counts = redact(f"a {KEY} b {KEY} c")
    assert text.startswith("a [redacted:") and text.endswith("] c") and " b [redacted:" in text
    assert sum(counts.values()) == 2 and len(counts) == 1
    assert redact("nothing here") == ("nothing here", {})
    assert scan("short") == []


def test_find_secrets_gives_lines_never_values_and_skips_personal_data() -> None:
    text = f"one\ntwo {KEY}\nthree\nmail me: ana.lopez@corp-mail.de\n\nsix {KEY}\n"
    found = find_secrets(text)
    assert [line for line, _ in found] == [2, 6]
    assert all(KEY not in kind for _, kind in found)
    with_pii = find_secrets(text, ignore=())
    assert [line for line, _ in with_pii] == [2, 4, 6] and with_pii[1][1] == "email"


def test_a_secret_value_needs_eight_characters_a_password_four() -> None:
    assert redact('api_key = "Ab3dEf7h"')[0] == 'api_key = "[redacted:secret]"'
    assert redact('api_key = "Ab3dEf7"')[0] == 'api_key = "Ab3dEf7"'
    assert redact('password = "abcd"')[0] == 'password = "[redacted:password]"'
    assert redact('password = "abc"')[0] == 'password = "abc"'


def test_every_email_is_found_however_far_apart() -> None:
    text = "We wrote to several people about the outage report yesterday: ana.lopez@corp-mail.de and bob.smith@corp-mail.de"
    assert redact(text) == (
        "We wrote to several people about the outage report yesterday: [redacted:email] and [redacted:email]",
        {"email": 2},
    )


def test_an_emails_local_part_is_read_back_64_characters_at_most() -> None:
    local = "a" * 70
    assert scan(f"to {local}@corp-mail.de now") == [(3 + 6, 3 + 70 + len("@corp-mail.de"), "email")]
    assert scan(f"{'b' * 64}@corp-mail.de") == [(0, 64 + 13, "email")]
    assert scan("x@corp-mail.de") == [(0, 14, "email")]  # one character, at the very start
    assert scan("@corp-mail.de and @@corp-mail.de") == []  # no local part


def test_what_an_at_sign_joins_that_is_no_ones_address() -> None:
    for text in (
        "git@github.com:acme/api.git",  # scp-style remote: a path after `:`
        ".ana@corp-mail.de",  # a local part that starts with a dot
        "ana.@corp-mail.de",  # or ends with one
        "NoReply@corp-mail.de",  # a robot, in any case
        "ana@mail.example.com",  # a reserved domain
        "logo@2x.PNG",  # a file name
    ):
        assert scan(text) == [], text
    assert scan("ana@corp-mail.de://x") == [(0, 16, "email")]  # `://` is a URL, not scp's `:`
    assert scan("ana@corp-mail.de:") == []


def test_the_shortest_texts_that_can_hold_each_kind_are_scanned() -> None:
    assert scan("a@b.co") == [(0, 6, "email")]  # six characters: the shortest address
    assert scan("AKIAZ2QXW7RTY3UIO5PA") == [(0, 20, "aws_access_key_id")]  # twenty: the shortest token


def test_find_secrets_counts_lines_from_the_last_secret_found() -> None:
    key = "AKIAZ2QXW7RTY3UIO5P"
    text = f"x\n\n{key}A and {key}B\n{key}C"
    assert find_secrets(text) == [
        (3, "aws_access_key_id"),
        (3, "aws_access_key_id"),
        (4, "aws_access_key_id"),
    ]


RANDOM = "Ab3dE6gH9jK2mN5pQ8sT1vW4yZ7bC0dF3gH6jK9mN2pQ5sT8vW1yZ4bC7dF0gH3jK6mN9pQ2sT5vW8"


def test_tokens_with_a_prefix_before_their_run_at_the_start_of_the_text() -> None:
    # Terraform Cloud: <14>.atlasv1.<60+>, from its first character, and not one short of 60
    terraform = RANDOM[:14] + ".atlasv1." + RANDOM[:60]
    assert scan(terraform) == [(0, 83, "api_token")]
    assert scan(f"tok {terraform}") == [(4, 87, "api_token")]  # claimed from its first character
    assert scan(f"tok {terraform[:-1]}") == []
    salesforce = "00DAb3dE6gH9jK2!" + (RANDOM * 2)[:96]  # 00<org id>!<session>
    assert scan(salesforce) == [(0, 112, "api_token")]
    assert scan("SG." + RANDOM[:22] + "." + RANDOM[:43]) == [(0, 69, "sendgrid_key")]


def test_a_telegram_bot_id_is_six_to_twelve_digits() -> None:
    def bot(digits: int) -> list[tuple[int, int, str]]:
        return scan("bot" + "1" * digits + ":AA" + RANDOM[:33])

    assert bot(6) == [(3, 45, "telegram_bot_token")] and bot(12) == [(3, 51, "telegram_bot_token")]
    assert all(kind != "telegram_bot_token" for n in (5, 13) for _, _, kind in bot(n))


def test_an_aws_secret_key_is_found_within_120_characters_of_its_key_id() -> None:
    key_id, secret = "AKIAZ2QXW7RTY3UIO5PA", "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
    assert scan(key_id + " " * 80 + secret) == [(0, 20, "aws_access_key_id"), (100, 140, "aws_secret_key")]
    assert scan(key_id + " " * 81 + secret) == [(0, 20, "aws_access_key_id")]


def test_a_quoted_password_may_hold_three_spaces_and_never_its_own_name() -> None:
    assert redact('password = "ab cd ef gh"')[0] == 'password = "[redacted:password]"'
    for kept in (
        'password = "ab cd ef gh ij"',  # four spaces: a sentence
        'password = "a password here"',
        'api_key = "ab cd ef gh"',  # only a password may hold a space
        'password = " abcdefg"',
        'password = "abcdefg "',
    ):
        assert redact(kept) == (kept, {}), kept


def test_assignments_that_are_code_or_prose_are_left_alone() -> None:
    for kept in (
        "PASS: test_login_works",
        'bypass = "Xk9mQ2pL"',
        "token == abcdefgh12",
        "token = get_token()",
        'getenv("API_KEY", "defaults")',
    ):
        assert redact(kept) == (kept, {}), kept


def test_assignment_values_by_their_shape_and_where_they_stand() -> None:
    cases = {
        'getenv("API_KEY", "default1")': 'getenv("API_KEY", "[redacted:secret]")',
        "aws_secret = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY": "aws_secret = [redacted:aws_secret_key]",
        "secret: !!binary Xk9mQ2pL7abc": "secret: !!binary [redacted:secret]",
        "--token Xk9mQ2pL7abc": "--token [redacted:secret]",
        "--token=Xk9mQ2pL7abc": "--token=[redacted:secret]",
        'pass = "Xk9mQ2pL"': 'pass = "[redacted:password]"',
    }
    for text, want in cases.items():
        assert redact(text)[0] == want, text


def test_a_name_after_an_escaped_escape_in_json_inside_json_starts_after_its_letter() -> None:
    # `\\npass=` (JSON inside JSON): the `n` belongs to the escape, so the name is `pass`, which
    # follows a word boundary: the value is a password
    text = '{"cmd": "echo hi\\\\npass=Xk9mQ2pL7abc"}'
    assert redact(text)[0] == '{"cmd": "echo hi\\\\npass=[redacted:password]"}'


def test_a_default_value_is_a_secret_only_quoted_after_a_quoted_name() -> None:
    assert redact('getenv("API_KEY", "Xk9mQ2pL7")')[0] == 'getenv("API_KEY", "[redacted:secret]")'
    for kept in ('getenv("API_KEY", Xk9mQ2pL7)', 'getenv(API_KEY, "Xk9mQ2pL7")', 'password, "hunter22"'):
        assert redact(kept) == (kept, {}), kept


def test_a_claim_after_hundreds_of_others_goes_at_the_end() -> None:
    spans: list[tuple[int, int, str]] = []
    for n in range(300):  # past the small integers Python keeps one object each of
        _claim(spans, 10 * n, 10 * n + 5, "a")
    _claim(spans, 3000, 3004, "b")
    _claim(spans, 3002, 3010, "c")  # overlaps the last
    assert len(spans) == 301 and spans[-1] == (3000, 3004, "b")


def test_a_prefixed_pass_or_pwd_name_is_a_password_even_before_a_colon() -> None:
    """`db_pass: value` is a password: only a bare `PASS:` (a test runner's line) is skipped, and
    the character before the word is the one that decides (`my_pass`, not `bypass`)."""
    for line in (
        "my_pass: s3cretValue99",
        "db_pass: s3cretValue99",
        "a.pass= s3cretValue99",
        "ab-pwd=s3cretValue99",
    ):
        assert redact(line)[0].endswith("[redacted:password]"), line
    assert redact("PASS: test_one_two_three")[0] == "PASS: test_one_two_three"
    assert redact("bypass: s3cretValue99")[0] == "bypass: s3cretValue99"


def test_the_aws_secret_near_a_key_id_is_looked_for_after_the_id() -> None:
    # The id then `/` and 19 key characters make a 40-character run from the id's start: the
    # look for its secret begins after the id, so it is not spent on that run.
    secret = "Q3MX9VR2TL7PK4WZa1b2c3d4e5f6g7h8i9j0KLMN"
    out, _ = redact(f"id AKIAQ3MX9VR2TL7PK4WZ/abcdefghij123456789 then {secret}")
    assert out == "id [redacted:aws_access_key_id]/abcdefghij123456789 then [redacted:aws_secret_key]"


def test_a_name_is_read_back_at_most_64_characters_for_its_flag_dash() -> None:
    # `-<70 letters>_token value` is not a flag: the name is read back 64 characters at most.
    line = "run -" + "a" * 70 + "_token s3cretValue99"
    assert redact(line)[0] == line
    assert redact("run --api_token s3cretValue99")[0] == "run --api_token [redacted:secret]"


def test_offsets_hold_when_a_character_lowercases_to_two_in_escaped_text() -> None:
    # `İ` lowercases to two characters; with an escape in the text the anchored rules read a
    # lowercased copy of the view, which must keep the text's offsets.
    assert redact('İ\\n"Authorization: Bearer abcDEF123ghiJKL456"')[0] == (
        'İ\\n"Authorization: Bearer [redacted:auth_header]"'
    )
    assert (
        redact("İ\\t<password>s3cretValue99</password>")[0] == "İ\\t<password>[redacted:password]</password>"
    )


def test_a_netrc_password_after_a_userless_one_is_still_redacted() -> None:
    # The first `password word` has no login before it (prose); the netrc line after it does.
    text = "enter password abcdefgh1\nmachine h login bob password s3cretValue99"
    assert redact(text)[0] == "enter password abcdefgh1\nmachine h login bob password [redacted:password]"


def test_a_bare_word_of_eight_with_a_digit_is_a_value_mid_line() -> None:
    # Mid-line a bare word is taken for a variable unless it has 8+ characters and a digit.
    assert redact("api_token = abcd1234 more")[0] == "api_token = [redacted:secret] more"
    assert redact("api_token = abcdefgh more")[0] == "api_token = abcdefgh more"
    assert redact("api_token = abc1234 more")[0] == "api_token = abc1234 more"


def test_a_base64_pem_is_a_private_key_only_when_it_decodes_to_one() -> None:
    import base64

    def b64(pem: str) -> str:
        return base64.b64encode(pem.encode()).decode()

    body = "MIIEowIBAAKCAQEAx1y2z3abcdefghijklmnop"
    key = b64(f"-----BEGIN RSA PRIVATE KEY-----\n{body}\n-----END RSA PRIVATE KEY-----\n")
    cert = b64(f"-----BEGIN CERTIFICATE-----\n{body}\n-----END CERTIFICATE-----\n")
    assert redact(f"key: {key} end")[0] == "key: [redacted:private_key] end"
    assert redact(f"cert: {cert} end")[0] == "cert: [redacted:secret] end"


def test_only_an_aws_key_id_makes_a_nearby_40_character_run_its_secret() -> None:
    run40 = "Q3MX9VR2TL7PK4WZa1b2c3d4e5f6g7h8i9j0KLMN"
    assert redact(f"tok {KEY} then {run40}")[0] == f"tok [redacted:github_token] then {run40}"
