"""Issue 12, derived fields: every text made from a transcript (session titles, the records'
task, paths, the rollup's facts, cursor state) is made from redacted text, so a secret planted
across each cut point (a title's 120 characters, the 300 of a record's task, the words a title
is read from, the cap on tool output) and its echoes later in the session leave no trace: every
byte under $HIPPO_HOME and `.hippo/` is scanned for any 12 characters of each secret."""

from __future__ import annotations

import random
import string
from pathlib import Path

from hippo_git.signals.refresh import ingest
from hippo_git.transcripts.base import TOOL_TEXT_CAP
from hippo_git.transcripts.session_acc import TITLE_READ
from tests.conftest import make_repo
from tests.index_support import claude_lines, config, hippo_home, write_jsonl

_RNG = random.Random(1912)
_ALNUM = string.ascii_letters + string.digits


def _random(n: int) -> str:
    return "".join(_RNG.choice(_ALNUM) for _ in range(n))


def _secrets() -> dict[str, str]:
    return {
        "github": "ghp_" + _random(36),
        "password": "Pw-" + _random(21),
        "aws": "AKIA" + "".join(_RNG.choice(string.ascii_uppercase + "234567") for _ in range(16)),
        "stripe": "sk_live_" + _random(28),
        "loose": _random(40),
        "anthropic": "sk-ant-api03-" + _random(60),
    }


def _across(cut: int, secret: str, filler: str = "word ") -> str:
    """Text in which `secret` starts a few characters before `cut` and ends after it."""
    head = (filler * (cut // len(filler) + 1))[: cut - 6]
    return head + " " + secret[:0] + secret


def _windows(secret: str, size: int = 12) -> set[bytes]:
    return {secret[i : i + size].encode() for i in range(len(secret) - size + 1)}


def test_no_planted_secret_survives_in_any_derived_field(tmp_path: Path) -> None:
    s = _secrets()
    repo = make_repo(tmp_path / "repo", files={"notes/index.md": "# Index\n", "src/app.py": "print()\n"})
    (repo / ".hippo").mkdir()
    (repo / ".hippo" / "hippo.toml").write_text('notes_dir = "notes"\n')
    folder = tmp_path / "claude"
    big_output = ("log line\n" * (TOOL_TEXT_CAP // 9))[: TOOL_TEXT_CAP - 10] + s["github"] + " tail"
    exchanges = [
        ("user", _across(300, "export STRIPE=" + s["stripe"]) + " " + _across(TITLE_READ, s["anthropic"])),
        (f"read:{repo}/notes/index.md", "# Index"),
        (f"edit:{repo}/src/app.py", "DEPLOY_PASSWORD=" + s["password"] + "\nAWS=" + s["aws"]),
        ("assistant", "I will export " + s["password"] + " now; the key is " + s["loose"]),
        (f"read:{repo}/src/app.py", big_output),
        ("assistant", "deployed with " + s["password"] + " and upstream_value: " + s["loose"]),
    ]
    # One session titled by a summary cut at 120, one titled by its first prompt.
    write_jsonl(
        folder / "p" / "titled.jsonl",
        claude_lines("titled", str(repo), exchanges, title=_across(120, "token " + s["github"])),
    )
    write_jsonl(
        folder / "p" / "untitled.jsonl",
        claude_lines(
            "untitled", str(repo), [("user", _across(120, "GITHUB_TOKEN=" + s["github"])), *exchanges[1:]]
        ),
    )
    written = b"".join(p.read_bytes() for p in folder.rglob("*.jsonl"))
    for name, secret in s.items():
        assert secret.encode() in written, name

    cfg = config(repo, {"claude-code": [folder]})
    summary = ingest(cfg)
    assert summary.failed == [] and summary.records_written == 2

    stored = [p for p in (*hippo_home().rglob("*"), *(repo / ".hippo").rglob("*")) if p.is_file()]
    names = {p.name for p in stored}
    assert any(n.endswith(".sqlite") for n in names) and any(n.endswith(".json") for n in names)
    assert any("rollup" in n for n in names), names
    blob = b"\n".join(p.read_bytes() for p in stored)
    assert b"[redacted:" in blob
    for name, secret in s.items():
        leaked = [w for w in _windows(secret) if w in blob]
        assert not leaked, f"{name}: {leaked[0]!r} of it is stored"


def test_a_title_is_cut_after_redaction_and_never_inside_a_marker() -> None:
    from hippo_git.index.prepare import TITLE_CHARS, _title

    title = "x" * 110 + " [redacted:github_token] and more words"
    assert _title(title) == "x" * 110
    assert _title("short") == "short"
    assert len(_title("word " * 60) or "") <= TITLE_CHARS
