"""Whether a text could hold a secret that `redact.find_secrets` names, told without loading the
redactor: the pre-commit hook checks most notes with this alone.

`redact.scan` finds secrets in two places only: in a run of `MIN_RUN`+ token characters (vendor
tokens, key bodies, loose values: `redact_tokens`) and by a rule whose literal gate occurs in
the text (`redact_gates`); emails, the third kind, are personal data that `find_secrets` skips.
A text with neither cannot hold one. The gates are listed here lowercased and cut to a part each
gate holds (`key` stands for `key=`), so finding none in the lowercased text means no gate
occurs; tests hold this list and `MIN_RUN` to the redactor's own tables.
"""

from __future__ import annotations

import re

MIN_RUN = 20  # `redact_tokens.MIN_RUN`
# Every rule gate of `redact_tables.rules()` lowercased holds one of these.
GATES = (
    "$", "-p", "-u", "-w", "//", "0/", "1/", "2/", "</", ">\n", "q~", "|\n", "+\\n", "-\\n",
    ":\t>", ":\t|", ": >", ": |", ":{s", ">+\n", ">-\n", ">\\n", "key", "pwd", "|+\n", "|-\n",
    "|\\n", "_pat", "auth", "pass", "salt", "sig=", "name=", "token", "bearer", "cookie", "entry(",
    "secret", "secure", "unseal", "oracle:", "sqlplus", "/webhook", "redis-cli", "response=",
    "-----begin", "credential", "identified", ".slack.com/", "private-mac",
)  # fmt: skip
# A run as `redact_tokens` finds it (in a copy whose JSON escapes are blanked: never a longer run).
_RUN = re.compile(f"[A-Za-z0-9_-]{{{MIN_RUN}}}")


def may_hold_secret(text: str) -> bool:
    """False only when `redact.find_secrets(text)` is sure to find nothing."""
    if len(text) < 6:  # `redact.scan` looks at nothing shorter
        return False
    low = text.lower()
    return any(gate in low for gate in GATES) or _RUN.search(text) is not None
