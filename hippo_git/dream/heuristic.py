"""The built-in offline model (`git hippo model heuristic`): same stdin/stdout protocol, no network.

Deterministic rules, no judgement:
- propose: finds decisions, rules, corrections and error→fix pairs in the evidence turns and turns
  each into an `append` that quotes the turn verbatim (in double quotes) and cites it;
- review: confirms only when every quote of the change is verbatim in the evidence and the note
  does not already say it; a memory change, only when `memories.review_checks` passes;
- lesson: a correction's own words become the rule, quoted.
Receipts label its reviews as heuristic (`Reviewer.heuristic`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from typing import Any

from hippo_git.dream.heuristic_packs import review_pack
from hippo_git.dream.prompt import Block, PromptError, Request, parse_request
from hippo_git.dream.quotes import quotes_in

MAX_QUOTE = 240
DEFAULT_TEMPLATE = "- {label}: {text} ({evidence})"

_CORRECTION = re.compile(
    r"^(no|nope|wrong|stop)\b|^(actually|not quite|that'?s (not|wrong|incorrect)|that is (not|wrong)|"
    r"i told you|you (should|shouldn'?t|need to)|don'?t do that|please don'?t)\b",
    re.I,
)
_RULE = re.compile(
    r"^((also|and|so|please|ok|okay),?\s+)*(always|never|don'?t|do not|make sure|remember to|be sure to)\b|"
    r"\b(must|must not|mustn'?t|should always|should never|is required)\b",
    re.I,
)
_DECISION = re.compile(
    r"\b(we|i) (have |'ve )?(decided|agreed|chose|settled on)\b|\bdecision\b|\bdecided to\b|"
    r"\blet'?s (go with|use|stick with|keep|switch to)\b|"
    r"\bwe('ll| will| are going to) (use|go with|keep|switch to|stick with|move to)\b|\bgoing with\b",
    re.I,
)
_ERROR_LINE = re.compile(
    r"\b\w+(Error|Exception)\b:?|\berror\b:|\bFAILED\b|command not found|No such file or directory|"
    r"exit (code|status) [1-9]|Permission denied|fatal:",
    re.I,
)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z`\[(])")
_WORD = re.compile(r"[a-z0-9_]{4,}")
LABELS = {"correction": "Correction", "rule": "Rule", "decision": "Decision", "error_fix": "Fix"}


def _clean(quote: str, shortest: int = 12) -> str | None:
    quote = quote.strip()
    if '"' in quote or len(quote) < shortest:
        return None
    return quote if len(quote) <= MAX_QUOTE else None


def _lines_outside_code(text: str) -> Iterator[str]:
    fenced = False
    for line in text.splitlines():
        if line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            continue
        if not fenced:
            yield line


def sentences(text: str) -> Iterator[str]:
    """Sentences of prose, each a verbatim substring of `text` (list markers and headings dropped)."""
    for line in _lines_outside_code(text):
        body = re.sub(r"^\s*(?:[-*+>]|\d+[.)]|#+)\s+", "", line).strip()
        if body:
            yield from (s.strip() for s in _SENTENCE_END.split(body) if s.strip())


def classify(sentence: str, kind: str, first: bool) -> str | None:
    """The one label a sentence gets (correction > rule > decision), or None."""
    if kind == "prompt" and first and _CORRECTION.search(sentence):
        return "correction"
    if kind == "prompt" and _RULE.search(sentence):
        return "rule"
    if kind in ("prompt", "answer") and _DECISION.search(sentence):
        return "decision"
    return None


def _first_line_value(text: str) -> str:
    for line in text.splitlines():
        if line.startswith("command: "):
            return line[len("command: ") :].strip()
    return text.strip().splitlines()[0].strip() if text.strip() else ""


def _error_line(text: str) -> str | None:
    lines = [ln.strip() for ln in text.splitlines() if _ERROR_LINE.search(ln)]
    exception = [ln for ln in lines if re.search(r"\w+(Error|Exception)\b:", ln)]
    first = [ln.strip() for ln in text.splitlines() if ln.strip()][:1]
    line = (exception or lines or first or [""])[-1 if exception else 0]
    line = re.sub(r"^E\s+", "", line)  # pytest's failure-line marker
    return line.split('"', 1)[0].strip()[:160] or None


def _is_error(block: Block) -> bool:
    return bool(block.meta.get("error")) or (
        block.meta.get("kind") in ("tool_output", "error") and _ERROR_LINE.search(block.text) is not None
    )


def find_items(turns: list[Block], wanted: set[str]) -> list[tuple[str, str, list[str]]]:
    """(label, text with quotes, evidence ids) for each decision/rule/correction/error→fix found."""
    items: list[tuple[str, str, list[str]]] = []
    seen: set[str] = set()
    for block in turns:
        kind = str(block.meta.get("kind", ""))
        found = list(sentences(block.text))
        for n, sentence in enumerate(found):
            label = classify(sentence, kind, n == 0)
            if label == "correction" and n + 1 < len(found):
                # "No, not pip." alone says little; the sentence after a correction usually says what is right
                pair = f"{sentence} {found[n + 1]}"
                sentence = pair if pair in block.text and _clean(pair) else sentence
            quote = _clean(sentence)
            if label in wanted and quote and quote not in seen:
                seen.add(quote)
                items.append((label, f'"{quote}"', [str(block.meta["id"])]))
    if "error_fix" in wanted:
        items += _error_fixes(turns, seen)
    return items


def _tokens(call: Block) -> set[str]:
    return set(_first_line_value(call.text).split())


def _error_fixes(turns: list[Block], seen: set[str]) -> list[tuple[str, str, list[str]]]:
    """An error, then the same check passing later: the last other command run in between (or the
    changed command itself) is the fix. Without a passing rerun nothing shows that a fix worked."""
    out = []
    by_session: dict[str, list[Block]] = {}
    for block in turns:
        by_session.setdefault(str(block.meta.get("session")), []).append(block)
    for blocks in by_session.values():
        for i, block in enumerate(blocks):
            failed = next((b for b in reversed(blocks[:i]) if b.meta.get("kind") == "tool_call"), None)
            if failed is None or not _is_error(block) or not _tokens(failed):
                continue
            fix = _fix_after(blocks, i, failed)
            error = _error_line(block.text)
            quote = _clean(_first_line_value(fix.text), shortest=4) if fix is not None else None
            if fix is not None and quote and error and len(error) >= 8 and error not in seen:
                seen.add(error)
                text = f'"{error}" was fixed by "{quote}"'
                out.append(("error_fix", text, [str(block.meta["id"]), str(fix.meta["id"])]))
    return out


def _fix_after(blocks: list[Block], i: int, failed: Block) -> Block | None:
    between: list[Block] = []
    for j in range(i + 1, len(blocks)):
        call = blocks[j]
        if call.meta.get("kind") != "tool_call":
            continue
        result = blocks[j + 1] if j + 1 < len(blocks) else None
        passed = result is not None and result.meta.get("kind") == "tool_output" and not _is_error(result)
        if _tokens(failed) <= _tokens(call):
            if not passed:
                return None  # the same check failed again: what came before it was no fix
            if between:
                return between[-1]
            return call if call.text != failed.text else None
        if passed:
            between.append(call)
    return None


def _words(text: str) -> set[str]:
    return set(_WORD.findall(text.lower()))


def _stem(note: Block) -> str:
    return str(note.meta.get("path", "")).rsplit("/", 1)[-1].removesuffix(".md")


def _pick_note(notes: list[Block], session: str, text: str) -> Block | None:
    related = [n for n in notes if session in (n.meta.get("sessions") or [])] or notes
    words = _words(text)
    # a new note is for one topic: only what names that topic goes in it
    related = [n for n in related if not n.meta.get("new") or _stem(n) in words]
    if not related:
        return None

    def score(note: Block) -> int:
        return len(words & _words(note.text)) + 3 * len(words & _words(_stem(note).replace("-", " ")))

    return max(related, key=lambda n: (score(n), -related.index(n)))


def propose(req: Request) -> dict[str, Any]:
    header = req.header
    if "append" not in (header.get("ops") or ["append"]):
        return {"proposals": []}
    wanted = set(header.get("heuristic") or [])
    template = str(header.get("template") or "").strip() or DEFAULT_TEMPLATE
    limit = int(header.get("max_proposals") or 20)
    notes = req.of_type("note")
    pending: dict[str, str] = {}
    proposals: list[dict[str, Any]] = []
    for label, text, evidence in find_items(req.of_type("turn"), wanted):
        if len(proposals) >= limit:
            break
        note = _pick_note(notes, evidence[0].rsplit("#", 1)[0], text)
        if note is None:
            continue
        path = str(note.meta["path"])
        current = note.text + pending.get(path, "")
        if max(quotes_in(text), key=len, default=text) in current:
            continue  # the note already says it (its main quote; a short command may recur)
        entry = (
            template.replace("{label}", LABELS[label])
            .replace("{text}", text)
            .replace("{evidence}", ", ".join(evidence))
        )
        new = ("" if current.endswith("\n") or not current else "\n") + entry.rstrip("\n") + "\n"
        if note.meta.get("new"):
            if _grow_new_note(proposals, path, new, evidence, note):
                pending[path] = pending.get(path, "") + new
            continue
        if len(new.encode("utf-8")) > int(note.meta.get("max_change_bytes") or 600):
            continue
        pending[path] = pending.get(path, "") + new
        proposals.append(
            {
                "op": "append",
                "path": path,
                "new": new,
                "evidence": evidence,
                "rationale": f"heuristic: a {label.replace('_', '→')} found verbatim in {', '.join(evidence)}",
            }
        )
    return {"proposals": proposals}


def _grow_new_note(
    proposals: list[dict[str, Any]], path: str, entry: str, evidence: list[str], note: Block
) -> bool:
    """A new note is written by one proposal: its title, then each finding about its topic that fits."""
    found = next((p for p in proposals if p["path"] == path), None)
    title = f"# {_stem(note).replace('-', ' ').capitalize()}\n\n"
    grown = (found["new"] if found else title) + entry
    if len(grown.encode("utf-8")) > int(note.meta.get("max_change_bytes") or 600):
        return False
    if found is None:
        found = {"op": "append", "path": path, "evidence": []}
        found["rationale"] = (
            f"heuristic: findings about {_stem(note)!r}, a topic recurring in sessions no note covers"
        )
        proposals.append(found)
    found["new"] = grown
    found["evidence"] = found["evidence"] + [e for e in evidence if e not in found["evidence"]]
    return True


def review_memory_change(req: Request) -> dict[str, str]:
    """A memory change (the core pack's `memories` pass) by the fixed checks of
    `memories.review_checks`: the kept and rejected values it compares with come as turns."""
    from hippo_git.memories.review_checks import KEPT_KIND, REJECTED_KIND, review_memory

    notes = req.of_type("note")
    new = [b.text for b in req.of_type("change") if b.meta.get("part") == "new"]
    old = [b.text for b in req.of_type("change") if b.meta.get("part") == "old"]
    if len(notes) != 1 or len(new) != 1:
        return {
            "verdict": "reject",
            "reason": "heuristic: the request does not hold one memory and one change",
        }
    turns = req.of_type("turn")
    kept = [(str(t.meta.get("session")), t.text) for t in turns if t.meta.get("kind") == KEPT_KIND]
    rejected = [t.text for t in turns if t.meta.get("kind") == REJECTED_KIND]
    op = str(req.header.get("op") or "append")
    path = str(req.header.get("path") or notes[0].meta.get("path") or "")
    verdict, reason = review_memory(op, notes[0].text, old[0] if old else None, new[0], path, kept, rejected)
    return {"verdict": verdict, "reason": f"heuristic: {reason}"}


def review(req: Request) -> dict[str, str]:
    from hippo_git.memories.pending import MEMORY_PASS

    if req.header.get("pass") == MEMORY_PASS:
        return review_memory_change(req)
    notes = req.of_type("note")
    new = [b.text for b in req.of_type("change") if b.meta.get("part") == "new"]
    old = [b.text for b in req.of_type("change") if b.meta.get("part") == "old"]
    evidence = [b.text for b in req.of_type("turn")]
    if len(notes) != 1 or len(new) != 1:
        return {"verdict": "reject", "reason": "heuristic: the request does not hold one note and one change"}
    note = notes[0].text
    quotes = quotes_in(new[0])
    if not quotes:
        return {"verdict": "reject", "reason": "heuristic: the change quotes no evidence"}
    missing = [q for q in quotes if not any(q in t for t in evidence)]
    if missing:
        return {
            "verdict": "reject",
            "reason": f"heuristic: not verbatim in the evidence: {missing[0][:60]!r}",
        }
    if max(quotes, key=len) in note or new[0].strip() in note:
        return {"verdict": "reject", "reason": "heuristic: the note already says this"}
    if old and note.count(old[0]) != 1:
        return {"verdict": "reject", "reason": "heuristic: the replaced text is not in the note exactly once"}
    return {
        "verdict": "confirm",
        "reason": "heuristic: every quote is verbatim in the evidence and new to the note",
    }


def _correction_quote(text: str) -> str | None:
    """A correction's own words: its first sentence, with the next one when that still fits."""
    found = list(sentences(text))
    if not found:
        return None
    pair = f"{found[0]} {found[1]}" if len(found) > 1 else found[0]
    return _clean(pair) if pair in text and _clean(pair) else _clean(found[0])


def lesson(req: Request) -> dict[str, Any]:
    """One rule: a person's correction, in their own words (quoted). A repeated failure needs judgement
    to turn into a rule, so the offline model drafts none for it."""
    turns = req.of_type("turn")
    named = [str(i) for i in req.header.get("corrections") or []]
    for block in [t for t in turns if str(t.meta.get("id")) in named]:
        quote = _correction_quote(block.text)
        if quote:
            rationale = "heuristic: a correction a person gave, quoted"
            return {
                "lessons": [
                    {"rule": f'"{quote}"', "evidence": [str(block.meta["id"])], "rationale": rationale}
                ]
            }
    for label, text, evidence in find_items(turns, {"correction", "rule"}):
        return {
            "lessons": [
                {
                    "rule": text,
                    "evidence": evidence,
                    "rationale": f"heuristic: a {label} a person gave, quoted",
                }
            ]
        }
    return {"lessons": []}


TASKS = {"propose": propose, "review": review, "lesson": lesson, "pack_review": review_pack}


def answer(stdin_text: str) -> tuple[int, str]:
    """(exit status, stdout) for one request."""
    try:
        req = parse_request(stdin_text)
    except PromptError as exc:
        return 2, json.dumps({"error": str(exc)})
    handler = TASKS.get(req.task)
    if handler is None:
        return 2, json.dumps({"error": f"the heuristic model does not know the task {req.task!r}"})
    return 0, json.dumps(handler(req), ensure_ascii=False)
