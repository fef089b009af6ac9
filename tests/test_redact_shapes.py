"""Issue 12: a secret in every shape a config, a command or a protocol carries one, a token of
every vendor family, loose high-entropy values and key bodies, echoes within a session; and the
false-positive rate on ordinary code (the standard library, planted as tool output).

The cases live in `tests/data/secrets/shapes.txt` and `tests/secret_cases.py` (shared with
`bench/redact.py`); every fake is assembled at run time or marked, never a real key.
"""

from __future__ import annotations

import json
import sysconfig
from pathlib import Path

import pytest

from hippo_git.index.scrub import Scrubber
from hippo_git.transcripts.redact import Redactor, redact, scan
from hippo_git.transcripts.redact_loose import high_entropy
from tests.secret_cases import Case, shape_cases, vendor_cases

SHAPES = shape_cases()
VENDORS = vendor_cases()


def _check(case: Case) -> None:
    out, counts = redact(case.text)
    for secret in case.secrets:
        assert secret not in out, (case.name, out)
    assert counts, case.name
    assert out.replace("[redacted:", "").strip(), case.name


def test_the_case_files_cover_the_shapes_the_issue_lists() -> None:
    names = " ".join(c.name for c in SHAPES)
    for shape in (
        "ini", "continuation", "yaml", "binary", "secure", "json", "xml", "properties", "env", "toml",
        "hcl", "php", "id pwd", "sql", "jdbc", "odbc", "ado.net", "mongodb", "redis", "amqp", "smtp",
        "ldap", "mysql", "password flag", "curl", "curlopt", "sshpass", "htpasswd", "basic",
        "bearer", "digest", "token", "cookie", "high entropy", "jwk", "pem", "pgp", "putty", "openssh",
    ):  # fmt: skip
        assert shape in names, shape
    families = " ".join(c.name for c in VENDORS)
    for family in (
        "sendgrid", "square", "vercel", "netlify", "posthog", "salesforce", "cloudflare", "planetscale",
        "deepseek", "mailchimp", "azure storage", "nats", "github app", "1password", "terraform",
        "stripe publishable", "stripe restricted",
    ):  # fmt: skip
        assert family in families, family
    assert all(case.secrets for case in SHAPES + VENDORS)
    blocks = " ".join(c.name for c in SHAPES if "block scalar" in c.name)
    for form in ("folded strip", "keep", "leading blank", "trailing blank", "blank line inside", "digit"):
        assert form in blocks, form
    assert {"asana v1", "asana v2", "asana legacy"} <= {c.name for c in VENDORS}


def test_a_yaml_block_scalar_with_crlf_line_ends_is_redacted() -> None:
    secret = "Mx7Ar4Pe1Wu8Li5Cn2Ty"
    for text in (f"password: |\r\n  {secret}\r\nhost: x\r\n", f"token: >-\r\n\r\n  {secret}\r\n"):
        for form in (text, json.dumps(text)):
            out, _ = redact(form)
            assert secret not in out and out.startswith(form[:8]), out
    assert "host: x" in redact(f"password: |\r\n  {secret}\r\nhost: x\r\n")[0]


def test_a_yaml_block_scalar_inside_json_keeps_the_json_escapes_around_it() -> None:
    text = "db:\n  password: >-\n    Vy4Hb7Nk0Qe3Sw6Zr9Lt\n\n    Qs1Hc4Zl7Ft0Jv3Od6Kw\n  host: x\n"
    out, _ = redact(json.dumps(text))
    back = json.loads(out)  # no escape cut in half by the marker
    assert back == "db:\n  password: >-\n[redacted:secret]\n  host: x\n"


@pytest.mark.parametrize(
    "text",
    [
        "description: |\n  Deploys the service; see the key rotation notes.\n",
        "run: >-\n  pytest -q tests/test_token.py\n",
        "keyboard: |\n  Cmd-K opens the palette\n",
        "progress 1/2 of 3/4, ticket 1/1203843298034579 done",
        "GET https://example.com/v1/0/68a9e79b868c6789e79a124c30b0dd1e",
        "ratio 2/1203843298034579/1205869872834098 only",
    ],
)
def test_block_scalars_of_other_names_and_asana_look_alikes_are_left_alone(text: str) -> None:
    assert redact(text) == (text, {})


@pytest.mark.parametrize("case", SHAPES, ids=[c.name for c in SHAPES])
def test_each_shape_is_redacted(case: Case) -> None:
    _check(case)


@pytest.mark.parametrize("case", VENDORS, ids=[c.name for c in VENDORS])
def test_each_vendor_family_is_redacted(case: Case) -> None:
    _check(case)


@pytest.mark.parametrize("case", SHAPES + VENDORS, ids=[c.name for c in SHAPES + VENDORS])
def test_each_case_is_redacted_inside_json_and_in_long_text(case: Case) -> None:
    rendered = json.dumps({"type": "tool_result", "content": case.text})
    out, _ = redact(rendered)
    for secret in case.secrets:
        assert json.dumps(secret)[1:-1] not in out, (case.name, out)
    filler = "def handler(request):\n    return render(request, 'index.html')\n" * 20
    out, _ = redact(filler + case.text + "\n" + filler)
    for secret in case.secrets:
        assert secret not in out, case.name


def test_the_marker_covers_the_value_not_the_tag_or_sub_key() -> None:
    assert (
        redact("password: !!binary " + "aHVudGVyMnNlY3JldHBhc3M=")[0]
        == "password: !!binary [redacted:password]"
    )
    out = redact("env:\n  password:\n    secure: " + "Jk3mQ9xPzR7vW2nL5tYb8cHd4fGs6aE1")[0]
    assert out == "env:\n  password:\n    secure: [redacted:secret]"
    out = redact(
        'Authorization: Digest username="ada", response="' + "6629fae49393a05397450978507c4ef1" + '"'
    )[0]
    assert 'username="ada"' in out and out.endswith('response="[redacted:auth_header]"')
    assert redact("<password>" + "xml-Secret-55</password>")[0] == "<password>[redacted:password]</password>"


@pytest.mark.parametrize(
    "text",
    [
        '"sessionId": "062a8bdd-4322-4ffa-bc38-3e8b8bfb5a56", "uuid": "1f0c6d2e-9b7a-4c55-8e21-0d9f3a6b7c41"',
        '{"id": "msg_01XyZ7kLmN3pQrStUvWx9AbC", "tool_use_id": "toolu_01LPqLHLmQ12mxCCa2DWfmNP"}',
        '"gitBranch": "claude/setup-dns-mise-xqm7Kp2Lw9"',
        'expected_checksum = "98d602e1f69d5c5bb8a5910c40bbba4c"\ncommit = "3b335d612137949d2f21fcc6c8c8164db7603227"',
        'Part_Number="Rocket_Launcher_0001"',
        "https://encrypted-tbn0.gstatic.com/images?q=tbn:ANd9GcQiyDMnkQOmMQNKQfQDD2z3x",
        '"data": "iVBORw0KGgoAAAANSUhEUgAAADAAAAAwCAYAAABXAvmHAAAABHNCSVQICAgIfAhkiAAA"',
        "class HTTPConnectionPool2Manager(Base):\n    pass",
        "Signed-off-by: Ada <ada@example.com>\nReviewed-on: https://review.example.org/c/12345",
    ],
)
def test_ids_hashes_names_and_data_are_left_alone(text: str) -> None:
    assert redact(text) == (text, {})


def test_high_entropy_thresholds() -> None:
    assert high_entropy("Xq7Lm2Pz9Rt4Kw8Nv3Bc6Hy1Fd5Gs0J")
    assert high_entropy("4f9a2c7e1b8d3f6a0c5e9b2d7f1a4c8e")
    assert not high_entropy("AbstractSingletonProxyFactoryBean")
    assert not high_entropy("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaa1A")
    assert not high_entropy("4f9a2c7e1b8d3f6a")  # too short


def test_echoes_of_a_redacted_secret_are_redacted_later_in_the_session() -> None:
    key = "kP9sw2Lq7Rt4Vz8xNm3Bc6Hj"
    scrub = Scrubber()
    scrub.start_session()
    assert scrub.text("DEPLOY_PASSWORD=" + key) == "DEPLOY_PASSWORD=[redacted:password]"
    assert scrub.text("I will export " + key + " now") == "I will export [redacted:password] now"
    assert scrub.small("deployed with " + key) == "deployed with [redacted:password]"
    assert scrub.counts["password"] == 3
    # a new session forgets it: the bare value alone is no secret anywhere else
    scrub.start_session()
    assert scrub.text("I will export " + key + " now") == "I will export " + key + " now"
    # a short common word redacted once (a password of 4 letters) is not chased through the text
    scrub.start_session()
    scrub.text("password=pass")
    assert scrub.text("the tests pass") == "the tests pass"


def test_a_redactor_without_echoes_stays_stateless() -> None:
    redactor = Redactor()
    redactor.redact("DEPLOY_PASSWORD=kP9sw2Lq7Rt4Vz8xNm3Bc6Hj")
    assert redactor.redact("echo kP9sw2Lq7Rt4Vz8xNm3Bc6Hj") == "echo kP9sw2Lq7Rt4Vz8xNm3Bc6Hj"


def _stdlib_files(step: int) -> list[Path]:
    root = Path(sysconfig.get_paths()["stdlib"])
    files = sorted(p for p in root.rglob("*.py") if "site-packages" not in p.parts)
    return files[::step]


def test_ordinary_code_holds_at_most_one_marker_per_thousand_lines() -> None:
    """Every tenth module of the standard library, each read whole as a tool's output would be."""
    lines = markers = 0
    for path in _stdlib_files(10):
        text = path.read_text(encoding="utf-8", errors="replace")
        lines += text.count("\n") + 1
        markers += sum(kind != "email" for _, _, kind in scan(text))
    assert lines > 20_000
    rate = markers * 1000 / lines
    print(f"\nstandard library: {markers} markers in {lines} lines = {rate:.2f} per 1,000")
    assert rate <= 1.0
