"""Planted-secret cases shared by the redaction tests and `bench/redact.py`.

`shape_cases()` reads `tests/data/secrets/shapes.txt` (a secret in every shape a config, a command
or a protocol carries one); `vendor_cases()` builds one fake token per vendor family at run time
from a prefix and a seeded random body, so that no literal token sits in the repository.
"""

from __future__ import annotations

import random
import re
import string
from dataclasses import dataclass
from pathlib import Path

SHAPES_FILE = Path(__file__).parent / "data" / "secrets" / "shapes.txt"
_MARKED = re.compile(r"⟦([^⟧]*)⟧")


@dataclass(frozen=True)
class Case:
    name: str
    text: str  # as a transcript would carry it
    secrets: tuple[str, ...]  # each must be gone after redaction


def shape_cases() -> list[Case]:
    cases: list[Case] = []
    name, lines = "", []

    def close() -> None:
        if name:
            body = "\n".join(lines).strip("\n")
            cases.append(Case(name, _MARKED.sub(r"\1", body), tuple(_MARKED.findall(body))))

    for line in SHAPES_FILE.read_text(encoding="utf-8").splitlines():
        if line.startswith("--- "):
            close()
            name, lines = line[4:].strip(), []
        elif name:
            lines.append(line)
    close()
    return cases


_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_B64URL = _ALNUM + "_-"
_B64 = _ALNUM + "+/"
_UPPER_DIGITS = string.ascii_uppercase + string.digits
_LOWER_DIGITS = string.ascii_lowercase + string.digits
_B32 = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567"


def _body(rng: random.Random, alphabet: str, n: int) -> str:
    classes = [f for f in (str.isdigit, str.isupper, str.islower) if any(f(c) for c in alphabet)]
    while True:  # every class of character the alphabet has, as a real token would
        out = "".join(rng.choice(alphabet) for _ in range(n))
        if all(any(f(c) for c in out) for f in classes):
            return out


def vendor_cases(seed: int = 12) -> list[Case]:
    """One token per family (prefix + random body), in a line the way a config or log has it."""
    rng = random.Random(seed)

    def b(alphabet: str, n: int) -> str:
        return _body(rng, alphabet, n)

    tokens: list[tuple[str, str, str]] = [
        # (family, line before, token)
        ("sendgrid", "SENDGRID_API_KEY=", "SG." + b(_B64URL, 22) + "." + b(_B64URL, 43)),
        ("square access", "square token: ", "EAAA" + b(_B64URL, 60)),
        ("square oauth secret", "", "sq0csp-" + b(_B64URL, 43)),
        ("square access sq0atp", "", "sq0atp-" + b(_B64URL, 22)),
        ("vercel", "VERCEL_TOKEN=", "vcp_" + b(_ALNUM, 56)),
        ("vercel legacy", "vercel deploy --token ", b(_ALNUM, 24)),
        ("netlify", "NETLIFY_AUTH_TOKEN=", "nfp_" + b(_ALNUM, 36)),
        ("posthog personal", "posthog: ", "phx_" + b(_ALNUM, 43)),
        ("posthog project", "posthog.init('", "phc_" + b(_ALNUM, 43)),
        ("salesforce access", "sf token ", "00D" + b(_ALNUM, 12) + "!" + b(_ALNUM + ".", 96)),
        ("salesforce refresh", "refresh: ", "5Aep861" + b(_ALNUM + ".", 80)),
        ("cloudflare api token", "CLOUDFLARE_API_TOKEN=", b(_B64URL, 40)),
        ("cloudflare origin ca", "origin: ", "v1.0-" + b(_HEX, 24) + "-" + b(_HEX, 146)),
        ("cloudflare global key", "CLOUDFLARE_API_KEY=", b(_HEX, 37)),
        ("planetscale password", "DATABASE_PASSWORD=", "pscale_pw_" + b(_B64URL, 43)),
        ("planetscale token", "", "pscale_tkn_" + b(_B64URL, 43)),
        ("planetscale oauth", "", "pscale_oauth_" + b(_B64URL, 43)),
        ("deepseek", "DEEPSEEK_API_KEY=", "sk-" + b(_HEX, 32)),
        ("mailchimp", "MAILCHIMP_KEY=", b(_HEX, 32) + "-us" + str(rng.randint(1, 20))),
        ("mailchimp transactional", "mandrill: ", "md-" + b(_B64URL, 22)),
        ("azure storage key", "key1: ", b(_B64, 86) + "=="),
        ("nats nkey seed", "seed: ", "SU" + b(_B32, 56)),
        ("nats user jwt creds seed", "", "SA" + b(_B32, 56)),
        ("github app installation", "GITHUB_TOKEN=", "ghs_" + b(_ALNUM, 36)),
        ("github refresh", "", "ghr_" + b(_ALNUM, 36)),
        ("github fine-grained", "", "github_pat_" + b(_ALNUM, 22) + "_" + b(_ALNUM, 59)),
        ("1password service account", "OP_SERVICE_ACCOUNT_TOKEN=", "ops_eyJ" + b(_B64URL, 250)),
        ("asana v1", "ASANA_PAT=", "1/" + b("0123456789", 16) + ":" + b(_HEX, 32)),
        ("asana v1 short id", "asana token ", "1/" + b("0123456789", 13) + ":" + b(_HEX, 32)),
        (
            "asana v2",
            "Authorization: Bearer ",
            "2/" + b("0123456789", 16) + "/" + b("0123456789", 16) + ":" + b(_HEX, 32),
        ),
        ("asana legacy", "asana: ", "0/" + b(_HEX, 32)),
        (
            "1password secret key",
            "secret key ",
            "A3-"
            + b(_UPPER_DIGITS, 6)
            + "-"
            + b(_UPPER_DIGITS, 6)
            + "-"
            + b(_UPPER_DIGITS, 5)
            + "-"
            + b(_UPPER_DIGITS, 5)
            + "-"
            + b(_UPPER_DIGITS, 5)
            + "-"
            + b(_UPPER_DIGITS, 5),
        ),
        (
            "terraform cloud",
            'credentials "app.terraform.io" { token = "',
            b(_ALNUM, 14) + ".atlasv1." + b(_ALNUM + "-_", 67),
        ),
        ("stripe publishable", "STRIPE_PUBLISHABLE_KEY=", "pk_live_" + b(_ALNUM, 24)),
        ("stripe restricted", "stripe: ", "rk_live_" + b(_ALNUM, 24)),
        ("stripe test secret", "", "sk_test_" + b(_ALNUM, 24)),
        ("stripe webhook", "", "whsec_" + b(_ALNUM, 32)),
        ("shopify shared secret", "", "shpss_" + b(_HEX, 32)),
        (
            "slack user",
            "",
            "xoxp-"
            + str(rng.randint(10**10, 10**11))
            + "-"
            + str(rng.randint(10**10, 10**11))
            + "-"
            + b(_HEX, 32),
        ),
        ("linear", "", "lin_api_" + b(_ALNUM, 40)),
        ("doppler", "", "dp.st." + b(_ALNUM, 43)),
        ("pulumi", "PULUMI_ACCESS_TOKEN=", "pul-" + b(_HEX, 40)),
        ("fly.io", "FLY_API_TOKEN=", "fo1_" + b(_B64URL, 43)),
        ("flyio macaroon", "", "FlyV1 fm2_" + b(_B64URL, 120)),
        ("supabase", "", "sbp_" + b(_HEX, 40)),
        ("supabase secret", "", "sb_secret_" + b(_B64URL, 31)),
        ("render", "", "rnd_" + b(_ALNUM, 32)),
        (
            "railway",
            "RAILWAY_TOKEN=",
            b(_HEX, 8) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 12),
        ),
        ("hashicorp tfe", "TFE_TOKEN=", b(_ALNUM, 14) + ".atlasv1." + b(_ALNUM, 60)),
        ("vault service token", "", "hvs." + b(_B64URL, 90)),
        ("age secret key", "", "AGE-SECRET-KEY-1" + b("QPZRY9X8GF2TVDW0S3JN54KHCE6MUA7L".upper(), 58)),
        ("okta", "OKTA_API_TOKEN=", "00" + b(_B64URL, 40)),
        ("twilio auth token", "TWILIO_AUTH_TOKEN=", b(_HEX, 32)),
        ("twilio account sid", "", "AC" + b(_HEX, 32)),
        ("mailgun private", "", "key-" + b(_HEX, 32)),
        ("sentry dsn", "SENTRY_DSN=https://", b(_HEX, 32) + "@o12345.ingest.sentry.io/42"),
        ("sentry user token", "", "sntryu_" + b(_HEX, 64)),
        ("new relic user key", "", "NRAK-" + b(_UPPER_DIGITS, 27)),
        ("datadog api key", "DD_API_KEY=", b(_HEX, 32)),
        ("datadog app key", "DD_APP_KEY=", b(_HEX, 40)),
        (
            "heroku legacy",
            "HEROKU_API_KEY=",
            b(_HEX, 8) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 12),
        ),
        ("contentful", "", "CFPAT-" + b(_B64URL, 43)),
        ("dropbox", "", "sl." + b(_B64URL, 130)),
        ("airtable pat", "", "pat" + b(_ALNUM, 14) + "." + b(_HEX, 64)),
        ("shippo", "", "shippo_live_" + b(_HEX, 40)),
        ("easypost", "", "EZAK" + b(_ALNUM, 54)),
        ("postman", "", "PMAK-" + b(_HEX, 24) + "-" + b(_HEX, 34)),
        ("prefect", "", "pnu_" + b(_ALNUM, 36)),
        ("readme", "", "rdme_" + b(_ALNUM, 70)),
        ("scalingo", "", "tk-us-" + b(_B64URL, 48)),
        ("sumologic access id", "SUMO_ACCESS_KEY=", b(_ALNUM, 64)),
        ("typeform", "", "tfp_" + b(_ALNUM, 44) + "_" + b(_ALNUM, 14)),
        ("huggingface org", "", "api_org_" + b(_ALNUM, 34)),
        ("openai admin", "", "sk-admin-" + b(_B64URL, 80)),
        ("openai svcacct", "", "sk-svcacct-" + b(_B64URL, 80)),
        ("anthropic admin", "", "sk-ant-admin01-" + b(_B64URL, 93) + "AA"),
        ("gitlab runner", "", "glrt-" + b(_B64URL, 20)),
        ("grafana service account", "", "glsa_" + b(_ALNUM, 32) + "_" + b(_HEX, 8)),
        ("databricks", "", "dapi" + b(_HEX, 32)),
        ("npm", "", "npm_" + b(_ALNUM, 36)),
        ("pypi", "", "pypi-AgEIcHlwaS5vcmc" + b(_B64URL, 60)),
        ("docker hub", "", "dckr_pat_" + b(_B64URL, 27)),
        (
            "discord bot",
            "DISCORD_TOKEN=",
            "MTI" + b(_B64URL, 23) + "." + b(_B64URL, 6) + "." + b(_B64URL, 38),
        ),
        ("azure ad client secret", "AZURE_CLIENT_SECRET=", b(_ALNUM, 3) + "8Q~" + b(_ALNUM + "_-.~", 34)),
        ("azure sas", "https://acct.blob.core.windows.net/c?sv=2022-11-02&sig=", b(_B64, 43) + "%3D"),
        ("alibaba access key", "", "LTAI" + b(_ALNUM, 20)),
        ("tencent secret id", "", "AKID" + b(_ALNUM, 32)),
        ("ibm cloud", "IBMCLOUD_API_KEY=", b(_B64URL, 44)),
        ("mapbox secret", "", "sk.eyJ1Ijoi" + b(_B64URL, 50) + "." + b(_B64URL, 22)),
        ("adobe client secret", "", "p8e-" + b(_ALNUM, 32)),
        ("atlassian", "", "ATATT3xFfGF0" + b(_B64URL, 180) + "=" + b(_HEX, 8)),
        ("bitbucket", "", "ATBB" + b(_ALNUM, 32)),
        ("buildkite", "", "bkua_" + b(_HEX, 40)),
        ("clojars", "", "CLOJARS_" + b(_HEX, 60)),
        ("circleci", "CIRCLE_TOKEN=", "CCIPAT_" + b(_ALNUM, 22) + "_" + b(_HEX, 40)),
        (
            "codecov",
            "CODECOV_TOKEN=",
            b(_HEX, 8) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 12),
        ),
        ("duffel", "", "duffel_live_" + b(_B64URL, 43)),
        ("dynatrace", "", "dt0c01." + b(_UPPER_DIGITS, 24) + "." + b(_UPPER_DIGITS, 64)),
        ("frame.io", "", "fio-u-" + b(_B64URL, 64)),
        ("gocardless", "", "live_" + b(_B64URL, 40)),
        ("harness", "", "pat." + b(_B64URL, 22) + "." + b(_HEX, 24) + "." + b(_ALNUM, 20)),
        ("intercom", "INTERCOM_ACCESS_TOKEN=", "dG9r" + b(_B64URL, 56) + "="),
        (
            "launchdarkly",
            "",
            "api-" + b(_HEX, 8) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 12),
        ),
        ("messagebird", "MESSAGEBIRD_KEY=", b(_ALNUM, 25)),
        ("octopus deploy", "", "API-" + b(_UPPER_DIGITS, 26)),
        ("planetscale api", "", "pscale_tkn_" + b(_B64URL, 32)),
        ("rapidapi", "X-RapidAPI-Key: ", b(_B64URL, 50)),
        ("sendinblue", "", "xkeysib-" + b(_HEX, 64) + "-" + b(_ALNUM, 16)),
        ("shopify custom", "", "shpca_" + b(_HEX, 32)),
        (
            "snyk",
            "SNYK_TOKEN=",
            b(_HEX, 8) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 4) + "-" + b(_HEX, 12),
        ),
        ("telnyx", "", "KEY" + b(_UPPER_DIGITS, 32) + "_" + b(_ALNUM, 22)),
        ("travis", "TRAVIS_TOKEN=", b(_B64URL, 22)),
        ("yandex", "", "AQVN" + b(_B64URL, 36)),
        ("zendesk", "ZENDESK_API_TOKEN=", b(_ALNUM, 40)),
    ]
    return [Case(name, before + token, (token,)) for name, before, token in tokens]
