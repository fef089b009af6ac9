"""The rollup's claims: what an answer says it did, beside the last run of its check after the last
change that could alter it. `FORMAT_VERSION` in `rollup.py` must be bumped whenever a rule here
changes what it finds."""

from __future__ import annotations

from collections.abc import Sequence

from hippo_git.signals import rules_vocab as v
from hippo_git.signals.rollup_commands import norm_command
from hippo_git.signals.rollup_facts import Claim, Command, Edit, Turn, epoch, excerpt
from hippo_git.signals.rules_text import folds, holds, prose_lines, sentences
from hippo_git.transcripts.model import ANSWER


def _mentions_claim(text: str) -> bool:
    return holds(text.lower(), v.CLAIM_WORDS)


def find_claims(text: str) -> list[tuple[str, str]]:
    """(kind, sentence) for each thing an answer says it did; one per kind."""
    found: dict[str, str] = {}
    if not _mentions_claim(text):
        return []
    for line in prose_lines(text):
        # A sentence is a piece of its line without `**`: a line without a claim word has none.
        if not _mentions_claim(line.replace("**", "")):
            continue
        for sentence in sentences(line):
            low = sentence.lower()
            if not holds(low, v.CLAIM_WORDS) or v.INTENT.search(sentence):
                continue
            every = folds(sentence)
            for kind, pattern in v.CLAIM_PATTERNS.items():
                if kind in found or not (every or v.CLAIM_KIND_WORDS[kind].search(low)):
                    continue
                m = pattern.search(sentence)
                if m is not None and not v.NEGATED.search(sentence[: m.end()]):
                    found[kind] = sentence
    return list(found.items())


def claims(
    turns: Sequence[Turn], cmds: Sequence[Command], eds: Sequence[Edit], delegated: Sequence[Command] = ()
) -> list[Claim]:
    """Each claim beside the last run of its check after the last change that could alter it:
    in this session (by turn order) or in a delegated session (by time)."""
    out: list[Claim] = []
    edit_seqs = sorted({e.seq for e in eds})
    commit_seqs = sorted(c.seq for c in cmds if "commit" in c.categories)
    for turn in turns:
        if turn.kind != ANSWER:
            continue
        for kind, sentence in find_claims(turn.text):
            marks = commit_seqs if kind == "pushed" else [] if kind == "merged" else edit_seqs
            since = max((s for s in marks if s < turn.seq), default=-1)
            since_ts = next((e.ts for e in reversed(eds) if e.seq == since), None)
            wanted = v.EVIDENCE[kind]
            runs = [c for c in cmds if since < c.seq < turn.seq and wanted & set(c.categories)]
            runs += [c for c in delegated if wanted & set(c.categories) and _between(c.ts, since_ts, turn.ts)]
            if kind == "fixed":
                runs += _reruns(cmds, since, turn.seq)
            done = [c for c in runs if c.exit is not None]
            if not done:
                out.append(Claim(turn.seq, turn.ts, kind, excerpt(sentence), "unchecked"))
                continue
            own = [c for c in done if c in cmds]
            last = own[-1] if own else max(done, key=lambda c: epoch(c.ts) or 0.0)
            status = "contradicted" if last.failed else "checked"
            out.append(Claim(turn.seq, turn.ts, kind, excerpt(sentence), status, last))
    return out


def _between(ts: str | None, lo: str | None, hi: str | None) -> bool:
    t, a, b = epoch(ts), epoch(lo), epoch(hi)
    return t is not None and b is not None and t <= b and (a is None or t > a)


def _reruns(cmds: Sequence[Command], since: int, until: int) -> list[Command]:
    """Commands that failed earlier and ran again after the last edit: the check the fix was for."""
    failed = {norm_command(c.command) for c in cmds if c.failed and c.seq < until}
    return [c for c in cmds if since < c.seq < until and norm_command(c.command) in failed]
