"""The secret formats `redact.py` looks for, written for this project from the token formats.

Four families, each found by the cheapest means that fits (see `redact.py` for the engine):

* `TOKENS` — vendor tokens that start with a literal prefix (`ghp_`, `sk-ant-`, `AKIA`...). They
  are only tried where the text has a run of 20+ token characters, keyed by its first two chars.
* `SHAPES` — prefix-less vendor tokens recognised by the exact length and shape of such a run.
* `ANCHORED` — secrets found by their context (key blocks, URLs, headers, hashes...): each rule
  runs only when one of its literal gates occurs in the text (or in its lowercased copy).
* `ASSIGN_HEADS` + `ASSIGN_TAIL` — a value given to a secret's name (`password=`, `"api_key":`,
  `--token x`), vetted by `redact.py` with the `VALUE_*` patterns so code is left alone.

A pattern marks the secret as group `s` (or `t`, `u`) when only part of the match is secret, so
the words around it (`password=`, the user and host of a URL) stay readable in the index.
"""

from __future__ import annotations

import re

from hippo_git.transcripts import redact_families as families

KINDS: tuple[str, ...] = (
    "private_key",
    "password_hash",
    "aws_access_key_id",
    "aws_secret_key",
    "gcp_api_key",
    "google_oauth",
    "azure_key",
    "github_token",
    "gitlab_token",
    "openai_key",
    "anthropic_key",
    "huggingface_token",
    "groq_key",
    "model_api_key",
    "slack_token",
    "slack_webhook",
    "stripe_key",
    "npm_token",
    "pypi_token",
    "twilio_key",
    "sendgrid_key",
    "mailgun_key",
    "digitalocean_token",
    "heroku_key",
    "shopify_token",
    "discord_token",
    "telegram_bot_token",
    "databricks_token",
    "webhook_url",
    "api_token",
    "jwt",
    "url_password",
    "auth_header",
    "password",
    "secret",
    "email",
)

# Kinds that are personal data rather than credentials: redacted from the index, but not a
# reason to block a commit (a note may name its author).
PII_KINDS: frozenset[str] = frozenset({"email"})

_B64 = "A-Za-z0-9+/="
_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
_AWS_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "AIPA", "ANPA", "ANVA", "APKA")

# (kind, pattern). The first two characters of each pattern must be literal: they are the key
# the engine dispatches on. Order matters within a key (the first match wins).
TOKENS: tuple[tuple[str, str], ...] = (
    ("github_token", r"gh[pousr]_[A-Za-z0-9]{30,251}"),
    ("github_token", r"github_pat_[A-Za-z0-9_]{50,255}"),
    (
        "gitlab_token",
        r"gl(?:pat|dt|rt|ptt|cbt|soat|oas|ft|imt|agent|ffct|wt|ddt|cd)-[A-Za-z0-9_-]{20,}",
    ),
    ("gitlab_token", r"GR1348941[A-Za-z0-9_-]{20,}"),
    ("api_token", r"gl(?:c|sa)_[A-Za-z0-9_=+/-]{32,}"),  # Grafana cloud / service account
    ("anthropic_key", r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("model_api_key", r"sk-or-v1-[a-f0-9]{64}"),  # OpenRouter
    ("stripe_key", r"sk_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("stripe_key", r"rk_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("stripe_key", r"pk_(?:live|test)_[A-Za-z0-9]{16,}"),
    ("api_token", r"sk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}"),  # Mapbox secret
    ("openai_key", r"sk-(?:proj-|svcacct-|admin-|None-)?[A-Za-z0-9_-]{20,}"),
    ("stripe_key", r"whsec_[A-Za-z0-9+/=]{24,}"),
    ("huggingface_token", r"hf_[A-Za-z0-9]{30,}"),
    ("groq_key", r"gsk_[A-Za-z0-9]{40,}"),
    ("model_api_key", r"xai-[A-Za-z0-9]{50,}"),
    ("model_api_key", r"pplx-[A-Za-z0-9]{40,}"),
    ("model_api_key", r"r8_[A-Za-z0-9]{30,}"),
    ("model_api_key", r"fw_[A-Za-z0-9]{20,}"),
    ("model_api_key", r"lsv2_(?:pt|sk)_[a-f0-9]{32}_[a-f0-9]{10}"),
    ("model_api_key", r"jina_[A-Za-z0-9]{40,}"),
    ("model_api_key", r"tvly-(?:dev-|prod-)?[A-Za-z0-9]{24,}"),
    ("model_api_key", r"fc-[a-f0-9]{32}"),
    ("gcp_api_key", r"AIza[A-Za-z0-9_-]{35}"),
    ("google_oauth", r"GOCSPX-[A-Za-z0-9_-]{20,}"),
    ("google_oauth", r"ya29\.[A-Za-z0-9_-]{20,}"),
    *(("aws_access_key_id", p + r"[A-Z0-9]{16}(?![A-Za-z0-9])") for p in _AWS_PREFIXES),
    ("aws_access_key_id", r"A3T[A-Z0-9][A-Z0-9]{16}(?![A-Za-z0-9])"),
    ("api_token", r"eyJrIjoi[A-Za-z0-9+/=_-]{30,}"),  # Grafana API key (base64 JSON)
    ("jwt", r"eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{8,}"),
    ("npm_token", r"npm_[A-Za-z0-9]{36}"),
    ("pypi_token", r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    ("sendgrid_key", r"SG\.[A-Za-z0-9_-]{16,}\.[A-Za-z0-9_-]{16,}"),
    ("mailgun_key", r"key-[a-f0-9]{32}"),
    ("digitalocean_token", r"do[opr]_v1_[a-f0-9]{64}"),
    ("heroku_key", r"HRKU-[A-Za-z0-9_-]{30,}"),
    ("shopify_token", r"shp(?:at|ca|pa|ss)_[a-fA-F0-9]{32}"),
    ("slack_token", r"xox[abposer]-[A-Za-z0-9-]{10,}"),
    ("slack_token", r"xapp-[A-Za-z0-9/-]{20,}"),
    ("databricks_token", r"dapi[a-f0-9]{32}(?:-\d+)?"),
    ("twilio_key", r"SK[0-9a-f]{32}(?![A-Za-z0-9])"),
    ("telegram_bot_token", r"AA[A-Za-z0-9_-]{30,40}"),  # checked: must follow "<bot id>:"
    ("private_key", r"LS0tLS1CRUdJTi[" + _B64 + r"]{40,}"),  # base64 PEM; checked: decodes to a key
    *(
        ("discord_token", p + r"[A-Za-z0-9_-]{21,25}\.[A-Za-z0-9_-]{6}\.[A-Za-z0-9_-]{27,40}")
        for p in ("MT", "Mj", "Mz", "ND", "NT", "Nj", "Nz", "OD", "OT")
    ),
    ("api_token", r"aio_[A-Za-z0-9]{28}"),  # Adafruit IO
    ("api_token", r"AGE-SECRET-KEY-1[0-9A-Z]{58}"),
    ("api_token", r"AKCp[A-Za-z0-9]{60,}"),  # Artifactory
    ("api_token", r"ATATT3[A-Za-z0-9_=-]{100,}"),  # Atlassian
    ("api_token", r"ATBB[A-Za-z0-9]{28,}"),  # Bitbucket app password
    ("api_token", r"cio[A-Za-z0-9]{32}(?![A-Za-z0-9])"),  # crates.io
    ("api_token", r"odt_[A-Za-z0-9]{32,}"),  # Dependency-Track
    ("api_token", r"dckr_pat_[A-Za-z0-9_-]{20,}"),
    ("api_token", r"dp\.(?:ct|pt|sa|scim|audit|st(?:\.[a-z0-9_-]+)?)\.[A-Za-z0-9]{40,}"),  # Doppler
    ("api_token", r"sl\.[A-Za-z0-9_-]{100,}"),  # Dropbox
    ("api_token", r"dt0c01\.[A-Z0-9]{24}\.[A-Z0-9]{64}"),  # Dynatrace
    ("api_token", r"EAA[A-Za-z0-9]{80,}"),  # Facebook access token
    ("api_token", r"figd_[A-Za-z0-9_-]{30,}"),
    ("api_token", r"hv[sbr]\.[A-Za-z0-9_-]{24,}"),  # HashiCorp Vault
    ("api_token", r"NR(?:AK|AA|II|IQ|RA|JS)-[A-Za-z0-9_-]{20,}"),  # New Relic
    ("api_token", r"px-(?:api|dep)-[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"),
    ("api_token", r"oy2[a-z0-9]{43}"),  # NuGet
    ("api_token", r"PMAK-[a-f0-9]{24}-[a-f0-9]{34}"),  # Postman
    ("api_token", r"rubygems_[a-f0-9]{48}"),
    ("api_token", r"sgp_(?:local_|[a-f0-9]{16}_)?[A-Za-z0-9]{40,64}"),  # Sourcegraph / Segment
    ("api_token", r"sq0(?:atp|csp|atb)-[A-Za-z0-9_-]{22,60}"),  # Square
    ("api_token", r"sandbox-sq0(?:atb|csp)-[A-Za-z0-9_-]{22,60}"),
    ("api_token", r"hawk\.[A-Za-z0-9_-]{20}\.[A-Za-z0-9_-]{20}"),  # StackHawk
    ("api_token", r"live_\d{6,}_[A-Za-z0-9]{30}(?![A-Za-z0-9])"),  # Twitch stream key
    ("api_token", r"da2-[a-z0-9]{26}"),  # AWS AppSync
    ("api_token", r"amzn\.mws\.[0-9a-f-]{36}"),
    ("api_token", r"pk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}"),  # Mapbox
    ("api_token", r"tk\.eyJ[A-Za-z0-9_-]{10,}\.[A-Za-z0-9_-]{16,}"),
    ("api_token", r"ntn_[A-Za-z0-9]{40,}"),  # Notion
    ("api_token", r"lin_api_[A-Za-z0-9]{40}"),  # Linear
    ("api_token", r"sntrys_[A-Za-z0-9+/=_]{50,}"),  # Sentry
    ("api_token", r"00[A-Za-z0-9]{13}![A-Za-z0-9._]{80,}"),  # Salesforce session id (tried 16 before a run)
    *families.TOKENS,
)

# (kind, run lengths, pattern, context) matched against a whole run of token characters of one
# of those lengths, for formats with no telling prefix. A context, when given, must be found in
# the 80 characters before the run, lowercased (a bare UUID is a Postmark token only after
# "postmark").
SHAPES: tuple[tuple[str, tuple[int, ...], str, str], ...] = (
    ("azure_key", (84,), r"[A-Za-z0-9]{76}AZDO[A-Za-z0-9]{4}", ""),  # Azure DevOps PAT
    ("api_token", (40,), r"(?:[0-9a-f]{36}|eu01xx[0-9a-f]{30})NRAL", ""),  # New Relic license key
    ("api_token", (36, 37), r"[0-9a-f]{32}-us\d{1,2}", ""),  # Mailchimp
    ("mailgun_key", (50,), r"[0-9a-f]{32}-[0-9a-f]{8}-[0-9a-f]{8}", ""),
    ("api_token", (42,), r"00[A-Za-z0-9_-]{40}", "okta"),
    ("api_token", (40,), r"[0-9a-f]{40}", r"sonar[._]?login"),  # SonarQube login token
    ("api_token", (36,), _UUID, "postmark"),
    ("api_token", (32,), r"[0-9a-f]{32}", "crumb"),  # Jenkins crumb
    ("api_token", (64,), r"[0-9a-f]{64}", "reporter"),  # Code Climate test reporter id
)

# After an AWS key id, a 40-character base64 word close behind it is its secret key.
AWS_SECRET_NEAR = r"(?<![A-Za-z0-9/+])(?=[A-Za-z0-9/+]{0,39}[0-9])(?=[A-Za-z0-9/+]{0,39}[A-Za-z])[A-Za-z0-9/+]{40}(?![A-Za-z0-9+=])"

_ARG = r"[\"'](?:[^\"'\n]+)[\"']"  # one quoted call argument

_PW_HASH = (
    r"\$(?:(?:1|apr1)\$[./A-Za-z0-9]{1,8}\$[./A-Za-z0-9]{22}"
    r"|2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}"
    r"|[56]\$(?:rounds=\d+\$)?[./A-Za-z0-9]{1,16}\$[./A-Za-z0-9]{43,86}"
    r"|[89]\$[./A-Za-z0-9]{14}\$[./A-Za-z0-9]{43}"
    r"|y\$[./A-Za-z0-9]+\$[./A-Za-z0-9]{1,86}\$[./A-Za-z0-9]{43}"
    r"|argon2(?:id|i|d)\$v=\d+\$m=\d+,t=\d+,p=\d+\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+"
    r"|krb5(?:asrep|tgs|pa)\$\d+\$(?:[^$\s:]+:)?[0-9a-f]{32}\$[0-9a-f]{64,})"
)


# (kind, gates, on_lowercase, pattern). A rule runs only when one of its gates occurs in the text
# (or, for `on_lowercase` rules, in its lowercased copy, which the pattern then matches: same
# length, so spans carry over). Patterns start with a literal where they can: `re` then scans
# for it at C speed. Group `s` (or `t`, `u`) is the secret; `n` is a netrc password, kept only
# after a `login`/`user` word.
ANCHORED: tuple[tuple[str, tuple[str, ...], bool, str], ...] = (
    *families.ANCHORED_FIRST,
    (
        "private_key",
        ("-----BEGIN",),
        False,
        r"-----BEGIN[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"(?s:.{0,20000}?-----END[A-Z0-9 ]{0,40}PRIVATE KEY(?: BLOCK)?-----"
        r"|(?:[\s\"'+,]*(?:\\[rn])*[A-Za-z0-9+/=]{16,})*)",  # cut off before its end: the base64 lines
    ),
    ("password_hash", ("$",), False, _PW_HASH),
    (
        "azure_key",
        ("Q~",),
        False,
        r"[A-Za-z0-9_.-]{3}\dQ~[A-Za-z0-9_~.-]{31,34}",
    ),  # Entra ID secret (rare gate)
    ("google_oauth", ("1//0",), False, r"1//0[A-Za-z0-9_-]{40,}"),  # refresh token
    (
        "slack_webhook",
        (".slack.com/",),
        True,
        r"hooks\.slack\.com/(?:services|workflows|triggers)/(?P<s>[a-z0-9_/-]{20,})",
    ),
    (
        "webhook_url",
        ("/webhook",),
        True,
        r"webhook/" + _UUID + "@" + _UUID + r"/incomingwebhook/[0-9a-f]{32}/" + _UUID,
    ),  # Microsoft Teams (legacy)
    ("webhook_url", ("/webhook",), True, r"\.webhook\.office\.com/webhookb2/[a-z0-9@/_-]{60,}"),
    ("webhook_url", ("/webhook",), True, r"discord(?:app)?\.com/api/webhooks/\d+/[a-z0-9_-]{30,}"),
    (
        "api_token",
        ("//",),
        False,
        r"/api/v1/(?P<s>[A-Za-z0-9]{20})/(?:telemetry|attributes|rpc|claim|firmware)",
    ),  # ThingsBoard device token
    (
        "api_token",
        ("key",),
        True,
        r"login_with_api_key\"[^\[\]]{0,40}\[\s*\"(?P<s>\d+-[a-z0-9]{64})\"",
    ),  # TrueNAS
    (
        "url_password",
        ("://",),
        False,
        r"://[^\s:@/?#'\"<>]{0,128}:(?P<s>[^\s/?#'\"<>]{1,256})@(?=[A-Za-z0-9_-])",
    ),
    *(
        ("azure_key", (gate,), True, re.escape(name) + r"(?P<s>[a-z0-9+/=%]{20,})")
        for gate, name in (
            ("key=", "accountkey="),
            ("key=", "sharedaccesskey="),
            ("secret", "sharedsecretvalue="),
            ("secret", ";secret="),
        )
    ),
    ("azure_key", ("sig=",), True, r"sig=(?<=[?&]sig=)(?P<s>[a-z0-9+/=%]{20,})"),  # SAS signature
    (
        "auth_header",
        ("authorization",),
        True,
        r"authorization[\"']?[ \t]*[:=][ \t]*[\"']?"
        r"(?:(?:bearer|basic|token|ssws|apikey|api-key|bot|key)[ \t]+)?(?P<s>[a-z0-9._~+/=-]{8,})",
    ),
    ("auth_header", ("bearer",), True, r"bearer[ \t]*:?[ \t]+(?P<s>[a-z0-9._~+/=-]{8,})"),
    (
        "password",
        ("-u",),
        False,
        r"-u(?<!\S-u)[ \t]*[^\s-]\S*[ \t]+-p[ \t]*(?P<s>[^\s'\"]+)",
    ),  # psexec, mysql
    (
        "password",
        ("-u", "--user"),
        False,
        r"-(?:-user|u)(?<!\S-u)(?<!\S--user)[ \t]+\\?['\"]?[^\s:'\"@\\]+:(?P<s>[^\s'\"@\\]+)\\?['\"]?(?=\s|$)",
    ),  # curl -u user:pw
    *(
        ("password", (gate,), True, head + r"\s*" + _ARG + r"\s*,\s*" + _ARG.replace("?:", "?P<s>", 1))
        for gate, head in (
            ("credential(", r"credential\("),  # .NET NetworkCredential(user, pw)
            ("auth(", r"auth\((?:(?<=basicauth\()|(?<=digestauth\())"),  # requests HTTPBasicAuth(...)
            ("auth", r"auth[ \t]*=[ \t]*\("),  # requests auth=(user, pw)
            ("entry(", r"directoryentry\(\s*" + _ARG + r"\s*,"),  # (path, user, password)
        )
    ),
    (
        "password",
        ("key=",),
        True,
        r"key=[\"'][^\"'\n]*(?:passw|pwd|secret|token|apikey|api_key)[^\"'\n]*[\"'][ \t]+value=[\"'](?P<s>[^\"'\n]+)[\"']",
    ),  # .NET <add key="...Password" value="..."/>
    (
        "password",
        ("password",),
        True,
        r"password(?:[ \t]+(?P<n>[^\s'\"=:\\]+)(?=\\?[\"']?[}\]]*[ \t]*(?:\n|$))"  # netrc
        r"|\b[^\n]{0,60}?\bis[ \t]+(?P<q>[\"'])(?P<t>[^\"'\n]{2,64})(?P=q)"  # "the password is 'x'"
        r"|[^\n]{0,80}:[ \t]*\n(?:[ \t]*\n){0,2}[ \t]*(?P<u>[a-z0-9]{16,})[ \t]*(?:\n|$))",  # printed alone
    ),
    ("secret", ("unseal",), True, r"unseal(?: key \d+:)?[ \t]*(?P<s>[a-z0-9+/=]{40,})"),  # Vault unseal key
    *families.ANCHORED,
)

# `key` counts as a secret's name only after one of these words (`api_key`, `x-api-key`...).
KEY_QUALIFIERS = (
    "api", "access", "secret", "private", "auth", "client", "app", "consumer", "license", "licence",
    "master", "signing", "encryption", "encrypt", "preshared", "shared", "session", "subscription",
    "service", "admin", "deploy", "webhook", "account", "storage", "device", "developer", "bot",
    "install", "integration", "sas", "hmac", "jwt", "cookie", "facebook", "ingest", "insert", "query",
)  # fmt: skip


def _key_head() -> str:
    """`key` preceded by a qualifier: one fixed-width look-behind per length (`re` needs that)."""
    by_width: dict[int, list[str]] = {}
    for q in KEY_QUALIFIERS:
        for sep in ("", "_", "-", ".", " "):
            by_width.setdefault(len(q + sep), []).append(re.escape(q + sep + "key"))
    checks = "|".join(f"(?<={'|'.join(words)})" for _, words in sorted(by_width.items()))
    return f"key(?![a-z0-9_-])(?:{checks})"


# Assignment keys: (family, gates, head). A head must end the key (`tokens`, `token_type` and
# `password_hash` are not secrets' names); `redact.py` checks what precedes `pass` and `pwd`.
ASSIGN_HEADS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("password", ("passw",), r"passw(?:or)?d"),  # (not `pass`: test runs print "passed" a lot)
    ("password", ("passphrase",), r"passphrase"),
    ("password", ("pass",), r"pass"),
    ("password", ("pwd",), r"pwd"),
    ("secret", ("secret",), r"secret"),
    ("secret", ("token",), r"token"),
    ("secret", ("key",), _key_head()),
    ("secret", ("_pat", "-pat"), r"pat(?<=[_-]pat)"),
    # `auth` alone: a word of its own (after `_`, a quote, a blank, a dot, a line's start), never
    # the end of `oauth` or the start of `author` (the name must end where the operator follows);
    # `\\n` is a line's start in JSON-rendered text
    ("secret", ("auth",), r"auth(?:(?<=[_\"' .\t\n\r]auth)|(?<=\\[nrt]auth)|(?<=\Aauth))"),
    ("secret", ("salt",), r"salt"),
    ("password", ("credential",), r"credentials?"),
    ("secret", ("secure",), r"secure"),  # Travis CI `secure:` (encrypted, but the key's own)
)

# What may follow an assignment key: a closing quote or bracket, an operator (or, for flags and
# quoted passwords, just blanks), then a quoted value or a bare word.
ASSIGN_TAIL = (
    r"(?![a-z0-9_-])(?P<kq>\\?[\"'`]?\]?)(?P<sp1>[ \t]*)"
    r"(?:(?P<op>:=|=>|===|!==|==|!=|=|:|,)(?P<sp2>[ \t]*(?:\n[ \t]*)?))?"
    r"(?:\\?\"(?P<v1>(?:[^\"\\\n]|\\[^\"\n])*)\\?\""
    r"|\\?'(?P<v2>(?:[^'\\\n]|\\[^'\n])*)\\?'"
    r"|`(?P<v3>[^`\n]*)`"
    r"|(?P<uv>[^\s\"'`;,&<>(){}\[\]|](?:[^\s\"'`;,&(){}\[\]]+|\([^\s)]*\)|\[[^\s\]]*\]|\{[^\s}]*\})*))"
)  # a bare value ends the pattern: nothing after it can fail, so `+` inside `*` never backtracks

# --- vetting: what a secret's name may be assigned without it being a secret ---------------------

# Names of secrets rather than secrets: variables, templates, placeholders (matched at the start).
VALUE_REF = r"""['"]?(?:\\?\$[{(A-Za-z_]|%[A-Za-z_]\w*%|%[sdr]|\{\d*\}|\{\{|<[^<>]*>|\#\{|\[redacted:|&lt;
    |(?:process\.env|os\.environ|env|ENV)[.\[(])"""
VALUE_PLACEHOLDER = r"([xX*.?•_-])\1{2,}\Z|.*(?:\.\.\.|…)|(?i:your)[-_ ]"
VALUE_NOT_A_SECRET = (
    r"(?:/|\./|~/|[A-Za-z]:\\|[a-z][a-z0-9+.-]*://|arn:)"  # paths, URLs, ARNs
    r"|[#.][a-z][a-z0-9]*(?:[-_][a-z0-9]+)+\Z"  # CSS selectors
    r"|\d+(?:\.\d+)+\Z"  # versions, OIDs, addresses
    r"|[a-z0-9_.#:@-]+(?:/[a-z0-9_.#:@-]*)+\Z"  # routes and relative paths
    r"|[,;)\]}+.]"  # the code between two string literals: `"..." + x + "..."`
    r"|\\[nrt\"'\\]"  # an escape sequence: the text of an escaped string, not a value
)
# Calls, subscripts and dotted names: code, not a value.
VALUE_CODE = r"[A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*(?:[(\[]|\.\Z)|[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+\Z"

# Bare words that are types, literals or placeholders, never a secret.
NOT_VALUES = frozenset(
    {"str", "string", "int", "integer", "number", "bool", "boolean", "any", "none", "null", "nil",
     "undefined", "true", "false", "optional", "required", "object", "bytes", "secretstr", "text",
     "char", "void", "self", "this", "env", "os", "process", "input", "prompt", "redacted", "hidden",
     "masked", "changeme", "example", "placeholder", "dummy"}
)  # fmt: skip

# --- email addresses -------------------------------------------------------------------------------

EMAIL_DOMAIN = r"(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+(?P<tld>[A-Za-z]{2,24})(?![A-Za-z0-9-])"
# Addresses that name no one: reserved example domains (RFC 2606) and robots.
EMAIL_RESERVED_DOMAIN = r"(?:^|\.)(?:example\.(?:com|org|net)|example|test|invalid|localhost)\Z"
EMAIL_NOT_PERSONAL = frozenset({"git", "noreply", "no-reply", "donotreply", "do-not-reply"})
# `icon@2x.png` and `pkg@1.2.3` are file names and versions, not addresses.
EMAIL_FILE_TLDS = frozenset(
    {"png", "jpg", "jpeg", "gif", "svg", "webp", "ico", "bmp", "css", "scss", "js", "mjs", "cjs", "ts",
     "tsx", "jsx", "json", "lock", "map", "py", "pyc", "txt", "html", "htm", "yml", "yaml", "toml", "ini",
     "cfg", "log", "md", "rst", "csv", "xml", "zip", "gz"}
)  # fmt: skip
