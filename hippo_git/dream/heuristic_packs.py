"""The built-in offline model's pack review: fixed checks, no judgement.

It reads the files whose text reaches a model in a dream (pack.toml, passes, prompts, templates,
personas) and the README; fixtures under `tests/` and `samples/` are data that `packs test` feeds to
validation (a fixture may hold a hostile reply on purpose), so they are left to a real reviewer.
It confirms a pack only when no file (the README aside, which may link to the pack's home) holds
a URL, and no file asks for what a pack must never do: send data anywhere, reveal secrets, touch
paths outside the notes, run commands, or weaken review. A sentence that forbids one of these
("never include secrets") is not held against the pack. Receipts label the verdict heuristic.
"""

from __future__ import annotations

import re
from typing import Any

from hippo_git.dream.prompt import Request

_NEGATED = re.compile(r"\b(never|don'?t|do not|not|no|nor|without|avoid|refuse|reject)\b[^.\n]{0,40}$", re.I)
# (what it is, pattern); each names a kind of request no pack may make
CHECKS: tuple[tuple[str, re.Pattern[str]], ...] = (
    (
        "sends data out",
        re.compile(r"\bexfiltrat\w*|\b(webhooks?|pastebin|ngrok|requestbin|interactsh)\b", re.I),
    ),
    (
        "sends data out",
        re.compile(
            r"\b(send|upload|post|transmit|forward|leak|e-?mail|beacon)\b[^.\n]{0,80}"
            r"\b(https?://|servers?|endpoints?|address|secrets?|credentials?|tokens?|api[ _-]?keys?|"
            r"passwords?|environment|transcripts?)\b",
            re.I,
        ),
    ),
    (
        "asks for secrets",
        re.compile(
            r"\b(reveal|print|include|output|copy|dump|list|quote|repeat)\b[^.\n]{0,60}"
            r"\b(secrets?|credentials?|api[ _-]?keys?|private keys?|passwords?|environment variables?|"
            r"env vars?|ssh keys?|\$[A-Z][A-Z0-9_]{2,})\b",
            re.I,
        ),
    ),
    (
        "targets paths outside the notes",
        re.compile(
            r"\b(write|edit|change|modify|create|delete|remove|append|add|put|save|store|read|open|cat|"
            r"touch|copy|move|overwrite|update|target|commit|push)\w*\b[^.\n]{0,50}"
            r"(?<![\w/])(\.git\b|\.hippo\b|\.github\b|\.ssh\b|\.env\b|~/|/etc/|/root/|/home/|/usr/)|\.\./",
            re.I,
        ),
    ),
    (
        "runs commands",
        re.compile(
            r"\b(run|execute|invoke)\b[^.\n]{0,40}\b(commands?|shell|scripts?|curl|wget|bash|sh)\b|"
            r"\b(curl|wget|netcat|nc -e|bash -c|rm -rf|chmod|sudo)\b",
            re.I,
        ),
    ),
    (
        "weakens review",
        re.compile(
            r"\b(always|must|should|to)\s+(confirm|approve|accept)\b|\bconfirm (everything|all|every)\b|"
            r"\bnever reject\b|\bignore (all |any |the )?(previous|prior|above|earlier|other|your) "
            r"(instructions|rules|guidelines)\b|\bdisregard\b|\byou are now\b|\bsystem prompt\b|"
            r"\bdeveloper mode\b|\bjailbreak\b|\b(dear|attention|note to) (reviewer|hippo|system)\b",
            re.I,
        ),
    ),
)
_URL = re.compile(r"\b(https?|ftp|file|ssh)://", re.I)


def _finding(path: str, text: str) -> str | None:
    if path not in ("README.md", "README") and _URL.search(text):
        return "holds a URL"
    for what, pattern in CHECKS:
        for match in pattern.finditer(text):
            before = text[max(0, match.start() - 60) : match.start()]
            if _NEGATED.search(before):
                continue
            excerpt = text[max(0, match.start() - 20) : match.end() + 20].replace("\n", " ").strip()
            return f"{what}: {excerpt[:80]!r}"
    return None


def review_pack(req: Request) -> dict[str, Any]:
    files = req.of_type("pack_file")
    if not any(b.meta.get("path") == "pack.toml" for b in files):
        return {"verdict": "reject", "reason": "heuristic: the request holds no pack.toml"}
    for block in files:
        path = str(block.meta.get("path", ""))
        if path.startswith(("tests/", "samples/")):
            continue
        found = _finding(path, block.text)
        if found:
            return {"verdict": "reject", "reason": f"heuristic: {path} {found}"}
    return {
        "verdict": "confirm",
        "reason": "heuristic: no file sends data out, asks for secrets, targets paths outside the notes, "
        "runs commands or weakens review",
    }
