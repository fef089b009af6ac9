"""Invariant 2: redaction is the only way text reaches the index.

Planted fakes of every kind in the places transcripts carry them (shell commands, JSON, env files,
URLs, log lines); ordinary code and prose left alone; the noseyparker rule corpus (examples must
be redacted, negative examples mostly left intact).

Every fake is assembled at run time from pieces, so no literal secret sits in the repository (and
no scanner, ours included, trips over this file).
"""

from __future__ import annotations

import base64
import json
import re
from dataclasses import dataclass

import pytest
import yaml

from hippo_git.transcripts import redact_rules
from hippo_git.transcripts.redact import KINDS, Redactor, find_secrets, redact, scan
from tests.conftest import corpus

A36 = "Zq8Xw3Rt7Yu2Io9Pa4Sd6Fg1Hj5Kl0MnBv2C"  # 36 mixed letters and digits
HEX = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"  # 64 hex digits
B40 = "wJalrXUtnF3MI/K7MDENG+bPxRfiCY9k2Lq8Zr4T"  # 40 base64 characters


def j(*parts: str) -> str:
    return "".join(parts)


# kind -> (text as a transcript would carry it, the secret inside it)
FAKE_SECRETS: dict[str, tuple[str, str]] = {
    "private_key": (
        j("$ cat deploy_key\n-----BEGIN OPENSSH ", "PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmUAAAAE\n",
          A36, "\n-----END OPENSSH PRIVATE KEY-----\n"),
        A36,
    ),
    "password_hash": (j("root:$6$", "saltsalt$", A36 * 2, "ab:19000:0:99999:7:::"), A36 * 2),
    "aws_access_key_id": (j("export AWS_ACCESS_KEY_ID=", "AKIA", "Q3MX9VR2TL7PK4WZ"), j("AKIA", "Q3MX9VR2TL7PK4WZ")),
    "aws_secret_key": (j("[default]\naws_secret_access_key = ", B40, "\n"), B40),
    "gcp_api_key": (
        j("GET https://maps.googleapis.com/maps/api/geocode/json?key=", "AIza", "SyB4sU8lU15bR_87qNb7eUVQN72_vv8mpbU"),
        j("AIza", "SyB4sU8lU15bR_87qNb7eUVQN72_vv8mpbU"),
    ),
    "google_oauth": (j('{"access_token": "', "ya29.", A36, '", "expires_in": 3599}'), j("ya29.", A36)),
    "azure_key": (
        j("AZURE_STORAGE_CONNECTION_STRING=DefaultEndpointsProtocol=https;AccountName=acme;Account", "Key=", B40,
          "==;EndpointSuffix=core.windows.net"),
        B40,
    ),
    "github_token": (j("git clone https://x-access-token:", "ghp_", A36, "@github.com/acme/api.git"), j("ghp_", A36)),
    "gitlab_token": (j("curl --header 'PRIVATE-TOKEN: ", "glpat-", "tFrjFXD7soVU2fqxuDMh", "' https://gitlab.example.com/api/v4/projects"),
                     j("glpat-", "tFrjFXD7soVU2fqxuDMh")),
    "openai_key": (j('client = OpenAI(api_key="', "sk-proj-", A36, A36, '")'), j("sk-proj-", A36, A36)),
    "anthropic_key": (j("ANTHROPIC_API_KEY=", "sk-ant-api03-", A36, A36, "-AAAA"), j("sk-ant-api03-", A36)),
    "huggingface_token": (j("$ huggingface-cli login --token ", "hf_", "jYCNNYmxuBtgRinmPTvAmeHMXzbXxYAdwF"),
                          j("hf_", "jYCNNYmxuBtgRinmPTvAmeHMXzbXxYAdwF")),
    "groq_key": (j('{"groq": {"apiKey": "', "gsk_", A36, "WGdyb3FY", A36[:8], '"}}'), j("gsk_", A36)),
    "model_api_key": (j("PERPLEXITY_API_KEY=", "pplx-", A36, HEX[:12]), j("pplx-", A36)),
    "slack_token": (j("2026-02-23T12:54:34Z INFO posting with token=", "xoxb-", "893582989554-899326518131-", "JRHeVv1o9Cf99fwDpuortR2D"),
                    j("xoxb-", "893582989554")),
    "slack_webhook": (j("SLACK_WEBHOOK_URL=https://hooks.slack.com/services/", "TKV3YQVGA/BLR8BRS0Z/", "nzk0zace5iLKP35eWcfKE7JA"),
                      "nzk0zace5iLKP35eWcfKE7JA"),
    "stripe_key": (j('stripe.api_key = "', "sk_live_", "dhhfUUyfrAace5dBAZ10JrAD", '"'), j("sk_live_", "dhhfUUyfrAace5dBAZ10JrAD")),
    "npm_token": (j("//registry.npmjs.org/:_authToken=", "npm_", A36), j("npm_", A36)),
    "pypi_token": (j("[pypi]\nusername = __token__\npassword = ", "pypi-AgEIcHlwaS5vcmc", A36, A36), j("pypi-AgEIcHlwaS5vcmc", A36)),
    "twilio_key": (j("TWILIO_API_KEY_SID=", "SK", HEX[:32]), j("SK", HEX[:32])),
    "sendgrid_key": (j("sg = SendGridAPIClient('", "SG.", "slEPQhoGSdSjiy1sXXl94Q.", "xzKsq_jte-ajHFJgBltwdaZCf99H2fjBQ41eNHLt79g", "')"),
                     "xzKsq_jte-ajHFJgBltwdaZCf99H2fjBQ41eNHLt79g"),
    "mailgun_key": (j("MAILGUN_KEY ", "key-", HEX[:32]), j("key-", HEX[:32])),
    "digitalocean_token": (j("doctl auth init -t ", "dop_v1_", HEX), j("dop_v1_", HEX)),
    "heroku_key": (j("heroku authorizations:create => ", "HRKU-", A36, "AA"), j("HRKU-", A36)),
    "shopify_token": (j("X-Shopify-Access-Token: ", "shpat_", HEX[:32]), j("shpat_", HEX[:32])),
    "discord_token": (j("client.run('", "MTIzNDU2Nzg5MDEyMzQ1Njc4", ".GhIjKl.", A36, "')"), j("MTIzNDU2Nzg5MDEyMzQ1Njc4", ".GhIjKl.", A36)),
    "telegram_bot_token": (j("curl https://api.telegram.org/bot", "4839574813:", "AAFD39kkdpWt3ywyRZergyOLMaJhac61qc", "/getMe"),
                           j("4839574813:", "AAFD39kkdpWt3ywyRZergyOLMaJhac61qc")),
    "databricks_token": (j("DATABRICKS_TOKEN: '", "dapi", HEX[:32], "'"), j("dapi", HEX[:32])),
    "webhook_url": (j("POST https://discord.com/api/webhooks/112233445566778899/", A36, "-x_", A36), j(A36, "-x_", A36)),
    "api_token": (j("$ docker login -u ada -p ", "dckr_pat_", "hc8VxYclixyTr2rDFsa2rqzkP3Y"), j("dckr_pat_", "hc8VxYclixyTr2rDFsa2rqzkP3Y")),
    "jwt": (j("Set-Cookie: session=", "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.", "eyJzdWIiOiIxMjM0NTY3ODkwIn0.", A36, "; HttpOnly"),
            j("eyJzdWIiOiIxMjM0NTY3ODkwIn0.", A36)),
    "url_password": (j("DATABASE_URL=postgres://app:", "S3cr3t-Pa55word", "@db.internal:5432/app"), "S3cr3t-Pa55word"),
    "auth_header": (j('curl -H "Authorization: Bearer ', "mF_9.B5f-4.1JqM", A36, '" https://api.acme.dev/v1/me'), j("mF_9.B5f-4.1JqM", A36)),
    "password": (j("DB_USER=app\nDB_PASSWORD=", "hunter2-horse-battery", "\nDB_HOST=db\n"), "hunter2-horse-battery"),
    "secret": (j('{"client_id": "acme-web", "client_secret": "', "p8e-ibndcvsmAp9ZgPBZ606FSlYIZVlsZ", '"}'), "p8e-ibndcvsmAp9ZgPBZ606FSlYIZVlsZ"),
    "email": (j("Author: Ada Lovelace <", "ada.lovelace", "@lovelace.dev>"), j("ada.lovelace", "@lovelace.dev")),
}  # fmt: skip


def test_every_kind_has_a_planted_fake_and_the_rules_use_only_known_kinds() -> None:
    assert set(FAKE_SECRETS) == set(KINDS)
    assert len(KINDS) == len(set(KINDS))
    used = {k for k, _ in redact_rules.TOKENS} | {k for k, *_ in redact_rules.SHAPES}
    used |= {k for k, *_ in redact_rules.ANCHORED} | {"aws_secret_key", "password", "secret", "email"}
    assert used <= set(KINDS)


@pytest.mark.parametrize("kind", sorted(FAKE_SECRETS))
def test_each_planted_secret_is_redacted_as_its_kind(kind: str) -> None:
    text, secret = FAKE_SECRETS[kind]
    out, counts = redact(text)
    assert secret not in out
    assert f"[redacted:{kind}]" in out, out
    assert counts.get(kind, 0) >= 1
    assert re.sub(r"\[redacted:[a-z_]+\]", "", out).strip()  # the words around it stay


@pytest.mark.parametrize("kind", sorted(FAKE_SECRETS))
def test_find_secrets_names_the_line_and_kind_but_never_the_secret(kind: str) -> None:
    text, secret = FAKE_SECRETS[kind]
    body = "# Notes\n\nsome words\n" + text + "\n"
    line = 4 + text[: text.index(secret)].count("\n")
    found = find_secrets(body, ignore=())
    # (a key block is named by its first line, which may come before the secret's)
    assert any(k == kind and 4 <= n <= line for n, k in found), found
    assert all(secret not in str(item) for item in found)


def test_redaction_is_idempotent_and_counts_accumulate() -> None:
    redactor = Redactor()
    for text, _ in FAKE_SECRETS.values():
        once = redactor.redact(text)
        assert redactor.redact(once) == once
    assert set(redactor.counts) == set(KINDS)
    assert sum(redactor.counts.values()) >= len(KINDS)


@pytest.mark.parametrize(
    ("text", "secret", "kind"),
    [
        # env files, shell, CLI flags
        (
            j("export OPENAI_API_KEY='", "sk-", A36, "T3BlbkFJ", A36[:12], "'"),
            j(A36, "T3BlbkFJ"),
            "openai_key",
        ),
        ("PGPASSWORD=pg-" + "S3cret99 psql -h db -U app", "pg-S3cret99", "password"),
        ("mysql -u root -p" + "Sup3rS3cret! -e 'show databases'", "Sup3rS3cret!", "password"),
        (
            "gitlab-runner register --registration-token " + "GR1348941" + "_iAgdMy7a3NhZaa5oNoH",
            "_iAgdMy7a3NhZaa5oNoH",
            "gitlab_token",
        ),
        (
            "vault login -method=token --token " + "hvs." + "CAESIP2jTxc9S3K7Z6CtcFWQv7",
            "CAESIP2jTxc9S3K7Z6CtcFWQv7",
            "api_token",
        ),
        ("curl -u ada:" + "0penSesame42 https://ci.acme.dev/api", "0penSesame42", "password"),
        (r"psexec \\10.0.0.5 -u ACME\admin -p " + "Tr0ub4dor&3 cmd /c dir", "Tr0ub4dor&3", "password"),
        # JSON and YAML
        ('{"username": "ada", "password": "' + 'c0rrect horse"}', "c0rrect horse", "password"),
        ("spring:\n  datasource:\n    password: " + "Pr0d-db-pass\n", "Pr0d-db-pass", "password"),
        ('"headers": {"X-Api-Key": "' + HEX[:40] + '"}', HEX[:40], "secret"),
        ("jwt:\n  secret: '" + "development#product" + "'\n", "development#product", "secret"),
        # URLs and query strings
        ("GET /v1/stats?api_key=" + A36 + "&day=1", A36, "secret"),
        (
            "mongodb+srv://svc:" + "bria@pass135!" + "@cluster0.abc.mongodb.net/test",
            "bria@pass135!",
            "url_password",
        ),
        (
            "https://acme.blob.core.windows.net/c/b.txt?sv=2021-08-06&se=2026&sp=r&sig=" + A36 + "%3D",
            A36,
            "azure_key",
        ),
        # log lines and headers
        (
            "INFO 12:00:01 auth ok Authorization: Basic " + base64.b64encode(b"ada:S3cr3t!pw").decode(),
            "YWRh",
            "auth_header",
        ),
        (j("2026-02-23 WARN retrying with key ", "AIza", "SyA", A36[:32]), j("SyA", A36[:32]), "gcp_api_key"),
        ("hooks.slack.com/services/" + "T0AAA/B0BBB/" + A36[:24], A36[:24], "slack_webhook"),
        ('"refresh_token": "' + "1//0" + A36 + A36[:10] + '"', A36, "google_oauth"),
        # prose
        ("The admin password is 'Blooberry-42' for now.", "Blooberry-42", "password"),
        # escaped inside a JSON string a tool printed
        (r'{"text": "GITHUB_TOKEN=\"' + j("ghp_", A36) + r'\"\nnext"}', j("ghp_", A36), "github_token"),
        (
            r'"-----BEGIN RSA '
            + r"PRIVATE KEY-----\nMIIEowIBAAKCAQEA"
            + A36
            + r'\n-----END RSA PRIVATE KEY-----\n"',
            A36,
            "private_key",
        ),
        # a key block cut off by a size cap still loses its body
        ("-----BEGIN EC " + "PRIVATE KEY-----\nMHcCAQEEI" + A36 + "\n" + A36, A36, "private_key"),
        # non-ASCII around the secret, including a character that lowercases to two
        ("İstanbul ekibi: şifre password=" + "Gizli-Anahtar-9 tamam", "Gizli-Anahtar-9", "password"),
    ],
)
def test_secrets_in_realistic_contexts(text: str, secret: str, kind: str) -> None:
    out, counts = redact(text)
    assert secret not in out, out
    assert f"[redacted:{kind}]" in out, out
    assert counts[kind] >= 1


@pytest.mark.parametrize(
    "text",
    [
        # hashes and ids
        "commit 3b335d612137949d2f21fcc6c8c8164db7603227\nMerge: 3b335d6 eb9e15d",
        "session 062a8bdd-4322-4ffa-bc38-3e8b8bfb5a56 resumed; tool_use_id toolu_01LPqLHLmQ12mxCCa2DWfmNP",
        "sha256:9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08 d41d8cd98f00b204e9800998ecf8427e",
        "docker pull ghcr.io/acme/api@sha256:" + HEX,
        "2026-02-23T12:54:34.123Z",
        # paths and long identifiers
        "/Users/alex/workspace/cli/.worktrees/1/docs/architecture/sessions-and-checkpoints.md",
        r"C:\Users\bob\AppData\Local\Temp\pip-install-9x2k\setup.py",
        "test_a_secret_in_a_note_is_blocked_without_printing_it AbstractSingletonProxyFactoryBean",
        "pip install sk-learn-compatible-estimator-wrapper ghost_writer_configuration_manager",
        "keyboard_interrupt_handler passport_verification_service bypass_cache=True compass_heading=42",
        # code that names secrets without holding one
        "token = get_token()\napi_key = os.environ['OPENAI_API_KEY']\nself.password = password",
        "def login(self, user: str, password: str) -> None:\n    if password == confirm_password:",
        "headers = {'Authorization': f'Bearer {token}'}\nsecret_key = settings.SECRET_KEY",
        "response = client.create(max_tokens=4096, model=model)\ntokenizer.pad_token = tokenizer.eos_token",
        'special = {"pad_token": "<pad>", "eos_token": "</s>"}\npassword_hash = bcrypt.hashpw(pw, salt)',
        "export GITHUB_TOKEN=$(gh auth token)\nPASSWORD=${DB_PASSWORD}\ntoken: ${{ secrets.GITHUB_TOKEN }}",
        "aws ecr get-login-password | docker login --username AWS --password-stdin 1234.dkr.ecr.eu.amazonaws.com",
        'password: "<your password here>"\napi_key: "..."\ntoken = "xxxxxxxxxxxxxxxx"',
        "PWD=/home/ada/project\nOLDPWD=/home/ada",
        "#add-password { color: red; }",
        'pass = "decisions"\nself.token = nextchar\nSERVER_AUTH = "1.3.6.1.5.5.7.3.1"',
        "authorization = base64.decodebytes(data)\nuser_pass = '%s:%s' % (user, pw)",
        'KINDS = ("aws_secret_key",\n    "gcp_api_key")\nos.getenv("API_KEY", "default")',
        '{"description": "Run the tests to verify they pass", "timeout": 120000}',
        # prose and tool output
        "The token limit is 200k tokens; the key point is to pass the tests. Use Bearer authentication.",
        "Enter your password: \nBasic usage: run make.",
        "--- PASS: TestParseLogLevel/empty_defaults_to_INFO (0.00s)\nPASS\nok  \tgithub.com/acme/cli\t0.2s",
        "http://localhost:8080/api/v1/users?page=2 and https://github.com/acme/api/pull/12",
        # addresses that name no one, and things that only look like addresses
        "Co-Authored-By: Claude <noreply@anthropic.com>\ngit@github.com:acme/api.git\nada@example.com",
        "npm install @types/node@20.1.0 && open icon@2x.png",
        # images
        "data:image/png;base64," + base64.b64encode(bytes(range(256)) * 3).decode(),
        # already redacted
        "token=[redacted:github_token] password: [redacted:password]",
    ],
)
def test_ordinary_text_is_left_alone(text: str) -> None:
    assert redact(text) == (text, {})


def test_real_transcripts_and_conversations_hold_nothing_but_addresses() -> None:
    """No false alarms on real agent sessions (every harness, read whole) or on long prose."""
    found: dict[str, int] = {}
    paths = [p for p in sorted(corpus("transcripts").rglob("*")) if p.suffix in (".jsonl", ".json", ".md")]
    paths.append(corpus("retrieval", "locomo-dev.json"))
    for path in paths:
        for _, _, kind in scan(path.read_text(encoding="utf-8", errors="replace")):
            found[kind] = found.get(kind, 0) + 1
    assert set(found) <= {"email"}, found


def test_find_secrets_skips_personal_data_unless_asked() -> None:
    text = j("# Deploy\nowner: ada.lovelace@", "lovelace.dev\n", "token: ", "ghp_", A36, "\n")
    assert find_secrets(text) == [(3, "github_token")]
    assert find_secrets(text, ignore=()) == [(2, "email"), (3, "github_token")]


# Escapes of a string rendered inside JSON (a tool's input, printed JSON): `\n`, `\t`, `\r`, `\"`,
# `\u0027`... Right before a secret, an escape's letters must not join the secret's word.
JSON_ESCAPES = ("\\n", "\\t", "\\r", '\\"', "\\u0027", "\\b", "\\f", "\\u00e9", "\\\\n")


@pytest.mark.parametrize("kind", sorted(FAKE_SECRETS))
def test_a_secret_right_after_a_json_escape_is_redacted(kind: str) -> None:
    from tests.test_index_redaction import SECRETS  # each kind's secret leading its text

    for text, secret in (SECRETS[kind], FAKE_SECRETS[kind]):
        for escape in JSON_ESCAPES:
            for before in ("", "x", "ok: "):
                out, counts = redact(before + escape + text)
                assert secret not in out, (escape, out)
                assert counts.get(kind, 0) >= 1, (escape, out)
        rendered = json.dumps({"command": "cd app\n" + text + "\ndone"})
        out, counts = redact(rendered)
        assert json.dumps(secret)[1:-1] not in out, out
        assert counts.get(kind, 0) >= 1, out


def test_escapes_around_a_secret_stay_readable() -> None:
    sendgrid = j("SG.", "A" * 22, ".", "B" * 43)
    assert redact("a\\n" + sendgrid) == ("a\\n[redacted:sendgrid_key]", {"sendgrid_key": 1})
    # a bare value ends at an escaped line break; the next line is kept
    out, _ = redact(json.dumps({"cmd": "PASSWORD=" + "hunter2x\nNEXT=1"}))
    assert out == '{"cmd": "PASSWORD=[redacted:password]\\nNEXT=1"}'
    # an escaped backslash before a letter is a backslash and a letter, not an escape
    windows = json.dumps({"path": "C:\\npm\\" + j("npm_", A36)})
    assert redact(windows)[0] == '{"path": "C:\\\\npm\\\\[redacted:npm_token]"}'


def test_ordinary_text_rendered_in_json_is_left_alone() -> None:
    texts = [
        'pass = "decisions"\nself.token = nextchar\nSERVER_AUTH = "1.3.6.1.5.5.7.3.1"',
        r"C:\Users\bob\AppData\Local\Temp\new_folder\table.py",
        "keyboard_interrupt_handler\n\tbypass_cache=True\n\tcompass_heading=42",
        "it's 'fine'\nnpm_install_helper_function_name_here",
    ]
    for text in texts:
        rendered = json.dumps({"text": text}).replace("'", "\\u0027")
        assert redact(rendered) == (rendered, {}), rendered


def test_spans_are_sorted_and_never_overlap() -> None:
    text = "\n".join(t for t, _ in FAKE_SECRETS.values())
    spans = scan(text)
    assert spans == sorted(spans)
    assert all(a[1] <= b[0] for a, b in zip(spans, spans[1:]))


@pytest.mark.parametrize(
    "text", ["", "x", "\x00" * 50, "\ud800 password=abc123x", "é" * 10_000, "a" * 200_000]
)
def test_odd_input_never_raises(text: str) -> None:
    out, _ = redact(text)
    assert isinstance(out, str)


# --- the noseyparker corpus ---------------------------------------------------------------------

RULES_DIR = ("secrets", "noseyparker", "crates", "noseyparker", "data", "default", "builtin", "rules")
EXAMPLE_RATE_MIN = 0.985  # reached: 386 of 391 (the 5 misses are variable names such as `-p $Password`)
NEGATIVE_INTACT_MIN = (
    0.75  # reached: 96 of 122 look-alikes (most of the rest are real-shaped secrets of another kind)
)


@dataclass(frozen=True)
class NpRule:
    id: str
    pattern: str
    categories: tuple[str, ...]
    examples: tuple[str, ...]
    negatives: tuple[str, ...]

    @property
    def public_identifier(self) -> bool:
        """Rules for public names (bucket names, ARNs, client ids), not secrets: not required."""
        return "identifier" in self.categories and "secret" not in self.categories


def _np_rules() -> list[NpRule]:
    loaded = []
    for path in sorted(corpus(*RULES_DIR).glob("*.yml")):
        for rule in yaml.safe_load(path.read_text())["rules"]:
            loaded.append(
                NpRule(
                    id=str(rule["id"]),
                    pattern=str(rule["pattern"]),
                    categories=tuple(rule.get("categories") or ()),
                    examples=tuple(str(e) for e in rule.get("examples") or ()),
                    negatives=tuple(str(e) for e in rule.get("negative_examples") or ()),
                )
            )
    return loaded


def _secret_gone(rule: NpRule, example: str, spans: list[tuple[int, int, str]]) -> bool:
    """Whether the part of `example` that noseyparker captures as the secret was redacted.

    The rule's own pattern is used here only to locate that part inside its example (an oracle);
    the project's patterns are its own (redact_rules.py). A capture counts as redacted when half
    of it is, or when it is a compound value (a connection string) one of whose parts is.
    """
    try:
        oracle = re.compile(rule.pattern)
    except re.error:  # two patterns use syntax Python's `re` lacks: the marker check stands alone
        return True
    for m in oracle.finditer(example):
        captures = [m.span(i) for i in range(1, oracle.groups + 1) if m.group(i)] or [m.span()]
        for a, b in captures:
            covered = sum(max(0, min(b, e) - max(a, s)) for s, e, _ in spans)
            inside = any(a <= s and e <= b for s, e, _ in spans)
            if 2 * covered >= b - a or (inside and re.search(r"[;\s]", example[a:b])):
                break
        else:
            return False
    return True


def test_noseyparker_examples_are_redacted() -> None:
    rules = _np_rules()
    required = [(rule, e) for rule in rules if not rule.public_identifier for e in rule.examples]
    missed = []
    for rule, example in required:
        out, _ = redact(example)
        if "[redacted:" not in out or not _secret_gone(rule, example, scan(example)):
            missed.append(f"{rule.id}: {example[:80]!r}")
    identifiers = [e for rule in rules if rule.public_identifier for e in rule.examples]
    hit = sum("[redacted:" in redact(e)[0] for e in identifiers)
    rate = 1 - len(missed) / len(required)
    print(
        f"\nnoseyparker examples redacted: {len(required) - len(missed)}/{len(required)} = {rate:.1%}"
        f" (public identifiers, not required: {hit}/{len(identifiers)})"
    )
    assert rate >= EXAMPLE_RATE_MIN, "missed:\n" + "\n".join(missed)


def test_noseyparker_negative_examples_are_mostly_left_intact() -> None:
    rules = _np_rules()
    positives = {e for rule in rules for e in rule.examples}
    negatives = [e for rule in rules for e in rule.negatives]
    # Some look-alikes of one rule are another rule's examples (a real secret of another shape).
    look_alikes = [e for e in negatives if e not in positives]
    intact = sum(redact(e)[0] == e for e in negatives)
    intact_look_alikes = sum(redact(e)[0] == e for e in look_alikes)
    rate = intact_look_alikes / len(look_alikes)
    print(
        f"\nnoseyparker negative examples intact: {intact}/{len(negatives)} = {intact / len(negatives):.1%};"
        f" excluding other rules' examples: {intact_look_alikes}/{len(look_alikes)} = {rate:.1%}"
    )
    assert rate >= NEGATIVE_INTACT_MIN
