"""More of the formats `redact_rules.py` holds (issue 12), kept apart to keep each file short:
vendor token families from the gitleaks and Nosey Parker lists, and the shapes configs and
commands give passwords (SQL, XML, HCL, JDBC/sqlplus, client flags, htpasswd, cookies, YAML block
scalars...). Same formats and conventions as there; `redact_rules` puts these last in its
tables (a `TOKENS` key keeps its order; `ANCHORED` rules are tried in order, earlier spans win).
"""

from __future__ import annotations

_UUID = r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"
# A body with a digit, a capital and a small letter in its first 60 characters (a word is none).
_MIXED = r"(?=[A-Za-z0-9_-]{0,60}[0-9])(?=[A-Za-z0-9_-]{0,60}[A-Z])(?=[A-Za-z0-9_-]{0,60}[a-z])"

TOKENS: tuple[tuple[str, str], ...] = (
    ("api_token", r"5Aep86[A-Za-z0-9._]{80,}"),  # Salesforce refresh token
    ("api_token", r"ph[xc]_[A-Za-z0-9]{40,}"),  # PostHog personal / project key
    ("api_token", r"pscale_(?:tkn|oauth|pw)_[A-Za-z0-9_.=-]{30,}"),  # PlanetScale
    ("api_token", r"md-" + _MIXED + r"[A-Za-z0-9_-]{22}(?![A-Za-z0-9_-])"),  # Mailchimp transactional
    *(
        ("api_token", f"S{c}[A-Z2-7]{{56}}(?![A-Za-z0-9])")  # NATS nkey seeds
        for c in "AUONCPX"
    ),
    (
        "api_token",
        r"A3-[A-Z0-9]{6}-[A-Z0-9]{5,6}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}-[A-Z0-9]{5}",
    ),  # 1Password
    ("api_token", r"ops_eyJ[A-Za-z0-9+/_=-]{100,}"),  # 1Password service account
    ("api_token", r"vcp_[A-Za-z0-9]{24,}"),  # Vercel
    ("api_token", r"vc[ikar]_[A-Za-z0-9]{24,}"),
    ("api_token", r"nf[pcobu]_[A-Za-z0-9]{36,}"),  # Netlify
    ("api_token", r"v1\.0-[a-f0-9]{24}-[a-f0-9]{146}"),  # Cloudflare origin CA key
    ("api_token", r"fm[12][ar]?_[A-Za-z0-9_+/=-]{40,}"),  # Fly.io macaroon
    ("api_token", r"fo1_[A-Za-z0-9_-]{39,}"),  # Fly.io
    ("api_token", r"sbp_[a-f0-9]{40}"),  # Supabase
    ("api_token", r"sb_secret_[A-Za-z0-9_-]{28,}"),
    ("api_token", r"rnd_[A-Za-z0-9]{32,}"),  # Render
    ("api_token", r"pul-[a-f0-9]{40}"),  # Pulumi
    ("api_token", r"AC[a-f0-9]{32}(?![A-Za-z0-9])"),  # Twilio account SID
    ("api_token", r"sntry[us]_[A-Za-z0-9+/=_]{40,}"),  # Sentry user / org token
    ("api_token", r"CFPAT-[A-Za-z0-9_-]{43}"),  # Contentful
    ("api_token", r"pat[A-Za-z0-9]{14}\.[a-f0-9]{64}"),  # Airtable
    ("api_token", r"pat\.[A-Za-z0-9_-]{22}\.[a-f0-9]{24}\.[A-Za-z0-9]{20}"),  # Harness
    ("api_token", r"shippo_(?:live|test)_[a-f0-9]{40}"),
    ("api_token", r"EZ[AT]K[A-Za-z0-9]{54}"),  # EasyPost
    ("api_token", r"pnu_[A-Za-z0-9]{36}"),  # Prefect
    ("api_token", r"rdme_[A-Za-z0-9]{70}"),  # ReadMe
    ("api_token", r"tk-us-[A-Za-z0-9_-]{48}"),  # Scalingo
    ("api_token", r"tfp_[A-Za-z0-9_.=-]{40,}"),  # Typeform
    ("api_token", r"api_org_[A-Za-z0-9]{34}"),  # Hugging Face organisation
    ("api_token", r"LTAI[A-Za-z0-9]{12,20}(?![A-Za-z0-9])"),  # Alibaba Cloud
    ("api_token", r"AKID[A-Za-z0-9]{32}(?![A-Za-z0-9])"),  # Tencent Cloud
    ("api_token", r"p8e-[A-Za-z0-9]{32}(?![A-Za-z0-9])"),  # Adobe
    ("api_token", r"bkua_[a-f0-9]{40}"),  # Buildkite
    ("api_token", r"CLOJARS_[a-f0-9]{60}"),
    ("api_token", r"CCIPAT_[A-Za-z0-9]{22}_[a-f0-9]{40}"),  # CircleCI
    ("api_token", r"duffel_(?:live|test)_[A-Za-z0-9_-]{43}"),
    ("api_token", r"fio-u-[A-Za-z0-9_=-]{64}"),  # Frame.io
    ("api_token", r"live_" + _MIXED + r"[A-Za-z0-9_=-]{40}(?![A-Za-z0-9_-])"),  # GoCardless
    ("api_token", r"api-" + _UUID),  # LaunchDarkly
    ("api_token", r"API-[A-Z0-9]{26,32}(?![A-Za-z0-9])"),  # Octopus Deploy
    ("api_token", r"xkeysib-[a-f0-9]{64}-[A-Za-z0-9]{16}"),  # Brevo (Sendinblue)
    ("api_token", r"KEY[0-9A-F]{32}_[A-Za-z0-9]{22}"),  # Telnyx
    ("api_token", r"KEY[A-Z0-9]{32}_[A-Za-z0-9]{22}"),
    ("api_token", r"AQVN[A-Za-z0-9_-]{35,38}"),  # Yandex
)

# Tried before every other context rule: an `Authorization: Bearer` value would end at its `:`.
ANCHORED_FIRST: tuple[tuple[str, tuple[str, ...], bool, str], ...] = (
    (
        "api_token",
        ("0/", "1/", "2/"),
        False,
        # (the look-behind after `[012]/`: a pattern that starts with a character class is
        # searched for at C speed, one that starts with a look-behind is tried at every position)
        r"[012]/(?<![\w/.:-]./)(?:(?<=[12]/)[0-9]{10,20}(?:/[0-9]{10,20})?:[A-Za-z0-9]{32}"
        r"|(?<=0/)[0-9a-f]{32})(?![\w/])",
    ),  # Asana personal access tokens: `1/<user>:<32>`, `2/<user>/<app>:<32>`, the old `0/<32 hex>`
)

ANCHORED: tuple[tuple[str, tuple[str, ...], bool, str], ...] = (
    # A Digest header's secret is its response hash (the other fields are public).
    (
        "auth_header",
        ("response=",),
        True,
        r"digest[ \t]+[^\n]*?response[ \t]*=[ \t]*\\?\"?(?P<s>[a-f0-9]{16,})",
    ),
    (
        "password_hash",
        (":{s",),
        True,
        r"\{s?sha\}(?P<s>[a-z0-9+/]{20,}={0,2})",
    ),  # htpasswd
    (
        "password",
        ("</",),
        True,
        r"<(?P<tag>[a-z0-9_.:-]{0,40}(?:passw(?:or)?d|pwd|secret|token|api_?key|credentials?)"
        r"|(?:[a-z0-9_.:-]{0,40}[_.:-])?pass)>(?P<s>[^<>\n]{1,200})</(?P=tag)>",
    ),  # XML element
    (
        "password",
        ("name=",),
        True,
        r"name=\\?[\"'][^\"'\n]*(?:passw|pwd|secret|token|apikey|api_key)[^\"'\n]*[\"'][ \t]+value=\\?[\"'](?P<s>[^\"'\n\\]+)\\?[\"']",
    ),  # <property name="...password" value="..."/>
    (
        "password",
        ("pass", "pwd", "secret", "token", "key"),
        True,
        r"variable[ \t]+\\?\"[^\"\n]*(?:passw|pwd|secret|token|key)[^\"\n]*\"[ \t]*\{[^}]{0,300}?"
        r"default[ \t]*=[ \t]*\\?\"(?P<s>[^\"\n\\]+)\\?\"",
    ),  # HCL variable default
    (
        "password",
        ("identified",),
        True,
        r"identified(?:[ \t]+with[ \t]+[a-z0-9_]+)?[ \t]+by(?:[ \t]+password)?[ \t]+(?P<q>['\"])(?P<t>[^'\"\n]{1,128})(?P=q)",
    ),  # SQL
    (
        "password",
        ("password(",),
        True,
        r"password[ \t]*\([ \t]*(?P<q>['\"])(?P<t>[^'\"\n]{1,128})(?P=q)[ \t]*\)",
    ),  # SQL PASSWORD('...'), set_password("...")
    (
        "password",
        ("setpass", "setsecret", "settoken"),
        True,
        r"set(?:password|secret|token|apikey|credentials?)[ \t]*\([ \t]*\\?(?P<q>['\"])(?P<t>[^'\"\n\\]+)\\?(?P=q)[ \t]*\)",
    ),  # Java and C# setters
    ("password", ("oracle:",), True, r"jdbc:oracle:[a-z]+:[^/\s@:]+/(?P<s>[^@\s/]+)@"),
    ("password", ("sqlplus",), True, r"sqlplus[ \t]+(?:-[a-z]+[ \t]+)*[^/\s@]+/(?P<s>[^@\s/]+)(?=@|[ \t]|$)"),
    ("password", ("redis-cli",), True, r"redis-cli[^\n]*?[ \t]-a[ \t]+(?P<q>['\"]?)(?P<t>[^\s'\"]+)(?P=q)"),
    ("password", ("-w",), True, r"ldap[a-z]*[ \t][^\n]*?[ \t]-w[ \t]+(?P<q>['\"]?)(?P<t>[^\s'\"]+)(?P=q)"),
    *(
        ("password", ("-p",), True, client + r"[ \t][^\n|;&]*?[ \t]-p(?P<s>[^\s'\"-][^\s'\"]*)")
        for client in ("mysql[a-z]*", "mariadb[a-z-]*")
    ),  # `-pX`: with a blank, the client asks for the password instead
    (
        "password",
        ("userpwd",),
        True,
        r"userpwd[ \t]*,[ \t]*(?:(?P<q>[\"'])[^\"'\n:]*:(?P<s>[^\"'\n]+)(?P=q)"
        r"|[^\n;]*?[\"'](?P<t>[^\"'\n]{4,})[\"'][ \t]*\))",
    ),  # PHP CURLOPT_USERPWD
    ("password", ("sshpass",), True, r"sshpass[ \t]+-p[ \t]*(?P<q>['\"]?)(?P<t>[^\s'\"]+)(?P=q)"),
    (
        "password",
        ("htpasswd",),
        True,
        r"htpasswd[ \t]+-[a-z]*b[a-z]*(?:[ \t]+-[a-z]+)*[ \t]+\S+[ \t]+\S+[ \t]+(?P<q>['\"]?)(?P<t>[^\s'\"]+)(?P=q)",
    ),
    (
        "password",
        ("storepass", "keypass"),
        True,
        r"-(?:src|dest)?(?:storepass|keypass)[ \t]+(?P<q>['\"]?)(?P<t>[^\s'\"]+)(?P=q)",
    ),
    (
        "password",
        ("pass:",),
        True,
        r"-(?:passin|passout|pass|password)[ \t]+pass:(?P<s>[^\s'\"]+)",
    ),  # openssl
    ("password", ("-U",), False, r"-U[ \t]+['\"]?[^\s%'\"]+%(?P<s>[^\s'\"]+)"),  # smbclient user%password
    (
        "secret",
        ("cookie",),
        True,
        r"cookie[ \t]*:[^\n]*?(?<![a-z0-9_.-])(?:[a-z0-9_.-]*sess[a-z0-9_.-]*|[a-z0-9_.-]*sid|[a-z0-9_-]*token"
        r"|[a-z0-9_-]*auth[a-z0-9_-]*|remember[a-z0-9_-]*|jwt)=(?P<s>[^;\s\"']{8,})",
    ),  # session-like cookies
    (
        "password",
        ("password",),
        True,
        r"(?<![a-z_.-])passwords[\"']?[ \t]*:[ \t]*\n(?P<b>(?:[ \t]*-[ \t]+[^\n]+(?:\n|$))+)",
    ),  # a YAML list of passwords
    ("private_key", ("private-mac",), True, r"private-mac:[ \t]*(?P<s>[a-f0-9]{40,64})"),  # PuTTY
    (
        "secret",
        # (a header line ends in `|` or `>` and a sign, or names the key right before it)
        (
            ": |",
            ": >",
            ":\t|",
            ":\t>",
            "|\n",
            ">\n",
            "|-\n",
            ">-\n",
            "|+\n",
            ">+\n",
            "|\\n",
            ">\\n",
            "-\\n",
            "+\\n",
        ),
        True,
        # The header: `|` or `>`, a chomping sign and an indentation digit in either order, a
        # comment; then blank lines, and the block: its first line's indentation and every line
        # after with as much, blank lines between them too (escaped line breaks are read as
        # breaks: the rule reads the text with its JSON escapes blanked).
        r"(?:passw(?:or)?d|passphrase|pwd|secret|token|key|credentials?)\\?[\"']?[ \t]*:[ \t]*[|>]"
        r"(?:[1-9][-+]?|[-+][1-9]?)?[ \t\r]*(?:#[^\n]*)?\n(?>[ \t\r]*\n)*"
        r"(?P<b>(?P<i>[ \t]+)[^\s][^\n]*(?:(?>\n[ \t\r]*(?=\n))*\n(?P=i)[^\n]*)*)",
    ),  # a YAML block scalar under a secret's name: every line of it
)
