"""The words and shapes the rollup rules (`rules*.py`) look for: claims an agent makes, what checks
each claim, how a person corrects an agent, how a blocked step reads, what destroys data. Data
only; changing any of it changes what the rules find (bump `rollup.FORMAT_VERSION`)."""

from __future__ import annotations

import re

PR_URL = re.compile(r"https://[\w.-]+/[\w.-]+/[\w.-]+/(?:pull|merge_requests)/\d+")


# Words every claim pattern needs: most answers lack all of them and are skipped at once.
CLAIM_WORDS = ("pass", "green", "succe", "compile", "builds", "lint", "pushed", "merged", "deployed", "fix")
CLAIM_PATTERNS: dict[str, re.Pattern[str]] = {
    kind: re.compile("|".join(f"(?:{p})" for p in patterns), re.I)
    for kind, patterns in {
        "tests": (
            r"\btests?\s+(?:(?:are|is|now|all|still|have|has)\s+)*(?:pass(?:es|ed|ing)?|green|succeed(?:s|ed)?)\b",
            r"\btest suite\s+(?:(?:is|now)\s+)*(?:pass(?:es|ed|ing)?|green)\b",
            r"\b(?:all|\d+)\s+(?:\w+\s+){0,2}(?:passed|passing)\b",
        ),
        "build": (
            r"\bbuild\s+(?:(?:is|now|still)\s+)*(?:succeeded|succeeds|passes|passed|passing|green|clean|successful)\b",
            r"\b(?:compiles|builds)\s+(?:cleanly|successfully|fine|without errors)\b",
            r"\b(?:ci|checks|pipeline)\s+(?:(?:is|are|all|now)\s+)*(?:green|passing|passed)\b",
        ),
        "lint": (
            r"\bno lint(?:er|ing)? (?:issues|errors|warnings|problems)\b",
            r"\blint(?:er|ing)?\s+(?:(?:is|now)\s+)*(?:passes|passed|clean|green)\b",
        ),
        "pushed": (
            r"\b(?:i(?:'ve| have)?|we(?:'ve| have)?|changes (?:are|were|have been)|branch (?:is|was|has been)|"
            r"commits? (?:are|were|has been|have been)|successfully)\s+pushed\b",
            r"^pushed\b",
        ),
        "merged": (
            r"\b(?:pr|pull request|branch|it)(?:\s+#?\d+)?\s+(?:is|was|has been|got)\s+merged\b",
            r"\bi(?:'ve| have)?\s+merged\b",
            r"^merged\b",
        ),
        "deployed": (
            r"\b(?:i(?:'ve| have)?|we(?:'ve| have)?|has been|have been|successfully|is now)\s+deployed\b",
            r"^deployed\b",
        ),
        "fixed": (
            r"\b(?:is|are|has been|have been|was|were|now)\s+fixed\b",
            r"\bthe fix is (?:complete|in place|done)\b",
            r"\bi(?:'ve| have)\s+fixed\b",
            r"^fixed\b",
        ),
    }.items()
}
# For each kind, words (lower case) one of which every match of its patterns holds: a sentence
# holding none of them skips the patterns.
CLAIM_KIND_WORDS: dict[str, re.Pattern[str]] = {
    kind: re.compile("|".join(words))
    for kind, words in {
        "tests": ("pass", "green", "succeed"),
        "build": ("pass", "green", "succe", "clean", "compiles", "builds"),
        "lint": ("lint",),
        "pushed": ("pushed",),
        "merged": ("merged",),
        "deployed": ("deployed",),
        "fixed": ("fix",),
    }.items()
}
# A sentence about what will, might or should happen claims nothing yet.
INTENT = re.compile(
    r"\b(?:let me|let's|i'll|i will|we'll|we will|will|going to|to (?:make sure|ensure|confirm|verify|check|see)|"
    r"should|would|could|might|may|if|once|until|unless|whether|hopefully|expect|need to|needs to|want|"
    r"make sure|ensure|before|when)\b|\?$",
    re.I,
)
NEGATED = re.compile(r"\b(?:not|never|no longer|cannot)\b|n't\b", re.I)
EVIDENCE = {
    "tests": {"test", "ci"},
    "build": {"build", "test", "ci"},
    "lint": {"lint"},
    "pushed": {"push"},
    "merged": {"merge"},
    "deployed": {"deploy"},
    "fixed": {"test", "build", "lint", "ci"},
}


INJECTED = (
    "<command-",
    "<local-command",
    "[Request interrupted",
    "Caveat:",
    "<bash-",
    "<user-prompt-submit-hook",
)
TAG_BLOCK = re.compile(r"<(ide_[a-z_]+|system-reminder|environment_context|user_instructions)>.*?</\1>", re.S)
# How a person corrects an agent: at the start of the prompt, or anywhere in it. Each pattern
# that can match anywhere comes with words (lower case) one of which every match of it holds: most
# prompts hold none of them and skip those patterns.
_CORRECTION_START = (
    r"^(?:no|nope|nah|wrong|incorrect|stop|wait|undo|revert)\b(?![-'])(?!\s+(?:problem|worries|rush|thanks|need to worry))",
    r"^(?:sure|ok(?:ay)?|yes|yeah|right|fine|hmm)\s*[,.!]?\s+but\b",
    r"^let'?s\s+not\b",
    r"^(?:please\s+)?(?:don'?t|do\s+not|never)\b",
    r"^(?:actually|not\s+quite)\b",
)
_CORRECTION_ANYWHERE = (
    (
        r"\b(?:that'?s|that is|this is|it'?s|it is|you'?re|you are)\s+(?:not\s+(?:right|correct|what i)|wrong|incorrect)\b",
        ("right", "correct", "what", "wrong"),
    ),
    (
        r"\b(?:is|are|was|were)\s+not\s+(?:correct|right)\b|\b(?:isn'?t|aren'?t|wasn'?t)\s+(?:correct|right)\b",
        ("correct", "right"),
    ),
    (
        r"\bi\s+(?:already\s+)?(?:told|asked)\s+you\b|\b(?:as|like)\s+i\s+(?:already\s+)?said\b",
        ("told", "asked", "said"),
    ),
    (r"\bnot\s+what\s+i\s+(?:asked|wanted|meant|said)\b", ("what",)),
    (r"\byou\s+(?:broke|deleted|removed|forgot|missed|ignored|didn'?t\s+(?:read|follow|listen))\b", ("you",)),
    (r"\bwhy\s+did\s+you\b", ("you",)),
    (
        r"\b(?:revert|undo|roll\s*back)\s+(?:that|this|it|the|your|those|these|what)\b|\bput\s+it\s+back\b",
        ("revert", "undo", "roll", "back"),
    ),
    (r"\byou\s+(?:should\s+not|shouldn'?t|were\s+not\s+supposed\s+to)\b", ("you",)),
    (
        r"\bthe\s+(?:issue|problem|bug|error)\s+is\s+still\b|\bstill\s+(?:doesn'?t|does\s+not|isn'?t|fails|failing|broken)\b",
        ("still",),
    ),
)
CORRECTION_START = re.compile("|".join(f"(?:{p})" for p in _CORRECTION_START), re.I)
CORRECTION_ANYWHERE = re.compile("|".join(f"(?:{p})" for p, _ in _CORRECTION_ANYWHERE), re.I)
CORRECTION_WORDS = tuple(dict.fromkeys(w for _, words in _CORRECTION_ANYWHERE for w in words))
BLOCK_PATTERNS = re.compile(
    r"doesn'?t want to proceed with this tool use|tool use was rejected|\buser (?:rejected|denied|declined)\b|"
    r"permission (?:to use \S+ )?(?:was |has been )?denied|\bpermission denied\b|operation not permitted|"
    r"disabled by policy|blocked by (?:a |the )?(?:\w+ )?(?:hook|policy|sandbox)|\bsandbox\b[^\n]{0,60}\bdenied\b|"
    r"requires approval|approval (?:was )?(?:denied|rejected)|not allowed to run|\bAPI refusal\b|\brefused (?:for|by) (?:policy|the user|safety)",
    re.I,
)
# A word every BLOCK_PATTERNS match holds (lower case): most outputs lack all of them and skip it.
BLOCK_WORDS = (
    "proceed", "rejected", "denied", "declined", "permitted", "policy", "blocked", "approval", "not allowed", "refus",
)  # fmt: skip
NO_MATCH = frozenset({"grep", "rg", "ag", "egrep", "fgrep", "diff", "cmp", "test", "["})


SCRATCH = re.compile(
    r"^(?:/tmp/|/var/tmp/|/private/tmp/|/var/folders/|\$\{?TMPDIR|\$\{?tmp|/dev/shm/)|"
    r"(?:^|/)(?:node_modules|__pycache__|\.pytest_cache|\.mypy_cache|\.ruff_cache|dist|build|target|\.next|"
    r"\.turbo|coverage|htmlcov|\.cache|\.tox|\.parcel-cache|out|tmp|temp)(?:/\*?)?/?$",
    re.I,
)
SQL_CLIENTS = frozenset(
    [
        "psql",
        "mysql",
        "sqlite3",
        "duckdb",
        "clickhouse-client",
        "mongo",
        "mongosh",
        "cockroach",
        "supabase",
        "mariadb",
    ]
)  # noqa: SIM905
DESTRUCTIVE_SQL = re.compile(
    r"\bdrop\s+(?:table|database|schema|collection)\b|\btruncate\s+(?:table\s+)?[\w.\"`]+|"
    r"\bdelete\s+from\s+[\w.\"`]+\s*(?:;|$|\"|')|\.drop\(\)|dropDatabase\(",
    re.I,
)


# rule name → (incident kind, what it says when the rule has nothing more specific)
RULES = {
    "person_correction": ("correction", "a person corrected the agent"),
    "revert_edit": ("correction", "the agent's edit was reverted at a person's request"),
    "permission_denied": ("blocked", "a step was blocked or refused"),
    "tool_error": ("tool_error", "a tool call failed"),
    "harness_error": ("tool_error", "the harness or model API failed"),
    "repeated_failure": ("failing_command", "the same command failed again and again"),
    "destructive_command": ("destructive", "a destructive command"),
    "destructive_sql": ("destructive", "destructive SQL"),
    "overlapping_edits": ("overlap", "two sessions edited one file at overlapping times"),
    "redone_edit": ("redone", "made a change another session had already made"),
}
