"""Invariant 2 end to end: per harness, transcripts with a fake secret of every kind planted in every
place text can appear (prompts, answers, tool input and output, file paths, titles, cwd, …) are
ingested, and then the whole SQLite file (and its WAL) is scanned for the raw secrets: none.

The transcripts are the corpus samples of each harness (Command Code: lines written from
FORMATS.md §6), with every string value that is not structural (types, ids, times) rewritten to
carry the secrets; paths carry a path-shaped secret instead.
"""

from __future__ import annotations

import json
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from hippo_git.index.db import connect
from hippo_git.index.scrub import Scrubber
from hippo_git.signals.refresh import ingest
from hippo_git.transcripts.jsonl import cap
from hippo_git.transcripts.redact_rules import KINDS
from tests.conftest import corpus, make_repo
from tests.index_support import config

A = "Q7w9ZkT2mR5xV8nB3cL6pJ4hF1dS0gYa"  # 32 letters and digits
H = "9f8e7d6c5b4a39281706f5e4d3c2b1a0"  # 32 hex digits
# kind → (how it appears in text, the raw secret that must never reach the index)
SECRETS: dict[str, tuple[str, str]] = {
    "private_key": (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEAq1xF3kT9zP8sW0rYt5uVb7nM2cL4dJ6hG0fK9eR3wQ1zX5yA\n"
        "-----END RSA PRIVATE KEY-----",
        "MIIEowIBAAKCAQEAq1xF3kT9zP8sW0rYt5uVb7nM2cL4dJ6hG0fK9eR3wQ1zX5yA",
    ),
    "password_hash": (
        "$2b$12$R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
        "R9h/cIPz0gi.URNNX3kh2OPST9/PgBkqquzi.Ss7KIUgO2t0jWMUW",
    ),
    "aws_access_key_id": ("AKIAZ7Q3X5V2N8M4K6P1", "AKIAZ7Q3X5V2N8M4K6P1"),
    "aws_secret_key": (
        "AKIAZ7Q3X5V2N8M4K6P2 wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9T2x8L1p",
        "wJalrXUtnFEMI/K7MDENG/bPxRfiCYzQ9T2x8L1p",
    ),
    "gcp_api_key": ("AIzaSyD3x9Q7w9ZkT2mR5xV8nB3cL6pJ4hF1dS0", "AIzaSyD3x9Q7w9ZkT2mR5xV8nB3cL6pJ4hF1dS0"),
    "google_oauth": ("GOCSPX-" + A[:28], "GOCSPX-" + A[:28]),
    "azure_key": (
        "DefaultEndpointsProtocol=https;AccountName=acct;AccountKey=" + A + A + "Zm9vYmFy==;",
        A + A,
    ),
    "github_token": ("ghp_" + A + "Xy12", "ghp_" + A + "Xy12"),
    "gitlab_token": ("glpat-" + A[:22], "glpat-" + A[:22]),
    "openai_key": ("sk-proj-" + A + "Tu89Vw", "sk-proj-" + A + "Tu89Vw"),
    "anthropic_key": ("sk-ant-api03-" + A + "AbCd", "sk-ant-api03-" + A + "AbCd"),
    "huggingface_token": ("hf_" + A + "Mn", "hf_" + A + "Mn"),
    "groq_key": ("gsk_" + A + A[:20], "gsk_" + A + A[:20]),
    "model_api_key": ("xai-" + A + A[:22], "xai-" + A + A[:22]),
    "slack_token": ("xoxb-1234567890-0987654321-" + A[:24], "xoxb-1234567890-0987654321-" + A[:24]),
    "slack_webhook": (
        "https://hooks.slack.com/services/T0ABCDEF1/B0ABCDEF2/" + A[:24],
        "T0ABCDEF1/B0ABCDEF2/" + A[:24],
    ),
    "stripe_key": ("sk_live_" + A[:26], "sk_live_" + A[:26]),
    "npm_token": ("npm_" + A + "Ab12", "npm_" + A + "Ab12"),
    "pypi_token": ("pypi-AgE" + A + A, "pypi-AgE" + A + A),
    "twilio_key": ("SK" + H, "SK" + H),
    "sendgrid_key": ("SG." + A[:22] + "." + A + A[:11], "SG." + A[:22] + "." + A + A[:11]),
    "mailgun_key": ("key-" + H, "key-" + H),
    "digitalocean_token": ("dop_v1_" + H + H, "dop_v1_" + H + H),
    "heroku_key": ("HRKU-" + A + "abcd", "HRKU-" + A + "abcd"),
    "shopify_token": ("shpat_" + H, "shpat_" + H),
    "discord_token": ("MTA" + A[:23] + ".Gh7kQ2." + A[:30], "MTA" + A[:23] + ".Gh7kQ2." + A[:30]),
    "telegram_bot_token": ("bot 123456789:AA" + A + "x", "AA" + A + "x"),
    "databricks_token": ("dapi" + H, "dapi" + H),
    "webhook_url": ("https://discord.com/api/webhooks/123456789012345678/" + A + A, A + A),
    "api_token": ("dckr_pat_" + A[:27], "dckr_pat_" + A[:27]),
    "jwt": (
        "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
        "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    ),
    "url_password": ("postgres://admin:Sup3rS3cretPw9@db.internal.net/app", "Sup3rS3cretPw9"),
    "auth_header": ("Authorization: Bearer abcDEF123ghiJKL456mnoPQR", "abcDEF123ghiJKL456mnoPQR"),
    "password": ('password = "hunter2Hunter2!x"', "hunter2Hunter2!x"),
    "secret": ('client_secret: "q8Zr3Kd9Lm2Xv7Tn4Wp1"', "q8Zr3Kd9Lm2Xv7Tn4Wp1"),
    "email": ("ada.lovelace@analytical-engines.co.uk", "ada.lovelace@analytical-engines.co.uk"),
}
BLOB = "\n".join(text for text, _ in SECRETS.values())
# Secrets that fit in a path segment: rotated through the paths and folders of the transcripts.
PATH_SECRETS = [
    SECRETS[k][0] for k in ("github_token", "openai_key", "aws_access_key_id", "stripe_key", "email", "jwt")
]
PATH_KEYS = frozenset(
    [
        "file_path",
        "filePath",
        "path",
        "notebook_path",
        "target_file",
        "absolute_path",
        "filename",
        "cwd",
        "directory",
        "worktree",
        "workdir",
        "root",
    ]
)
STRUCTURAL_KEYS = frozenset(
    [
        "type",
        "role",
        "kind",
        "status",
        "subtype",
        "record_type",
        "payload_type",
        "operation",
        "op",
        "stop_reason",
        "mime",
        "mimeType",
        "media_type",
        "encoding",
        "originator",
        "source",
        "format",
        "phase",
        "level",
        "mode",
        "agent",
        "userType",
        "entrypoint",
        "permissionMode",
        "durability",
        "version",
        "cli_version",
        "schema_version",
        "$rewindTo",
        "signature",
    ]
)


class Planter:
    def __init__(self) -> None:
        self.n = 0

    def path_secret(self) -> str:
        self.n += 1
        return PATH_SECRETS[self.n % len(PATH_SECRETS)]

    def value(self, value: Any, key: str = "") -> Any:
        if isinstance(value, dict):
            return {k: self.value(v, k) for k, v in value.items()}
        if isinstance(value, list):
            return [self.value(v, key) for v in value]
        if not isinstance(value, str) or _structural(key, value):
            return value
        if key in PATH_KEYS or (key in ("url",) and value.startswith("file://")):
            prefix = "file://" if value.startswith("file://") else ""
            rest = value[len(prefix) :].lstrip("/")
            return f"{prefix}/home/dev/{self.path_secret()}/{rest}"
        stripped = value.strip()
        if stripped[:1] in "{[" and stripped[-1:] in "}]":
            try:
                inner = json.loads(stripped)
            except ValueError:
                inner = None
            if isinstance(inner, dict | list):
                return json.dumps(self.value(inner, key))
        return BLOB + "\n" + value  # first, so no size cap can cut a secret in two


def _structural(key: str, value: str) -> bool:
    low = key.lower()
    if (
        key in STRUCTURAL_KEYS
        or key.startswith("$")
        or low.endswith(("id", "ids", "uuid", "_at", "time", "timestamp"))
    ):
        return True
    if (
        low in ("ts", "date", "created", "updated", "model", "modelid", "providerid", "name")
        and len(value) < 40
    ):
        return key != "name" or value.replace("_", "").isalpha() and value.islower()
    short = (
        len(value) <= 24
        and value.replace("_", "").replace("-", "").replace("/", "").replace(".", "").isalnum()
    )
    return short and value == value.lower() and " " not in value


def plant_jsonl(src: Path, dst: Path, planter: Planter, rename: str | None = None) -> Path:
    lines = []
    for raw in src.read_text(encoding="utf-8").splitlines():
        try:
            obj = json.loads(raw)
        except ValueError:
            lines.append(raw)
            continue
        lines.append(json.dumps(planter.value(obj)))
    out = dst / (rename or src.name)
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return out


def plant_tree(src: Path, dst: Path, planter: Planter) -> None:
    """Copy a folder, planting secrets in every JSON / JSONL file inside."""
    for path in sorted(src.rglob("*")):
        target = dst / path.relative_to(src)
        if path.is_dir():
            target.mkdir(parents=True, exist_ok=True)
        elif path.suffix == ".json":
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(planter.value(json.loads(path.read_text(encoding="utf-8")))))
        elif path.suffix == ".jsonl":
            plant_jsonl(path, target.parent, planter)
        else:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)


def plant_sqlite(path: Path, planter: Planter) -> None:
    """Plant secrets in every text column of every table (JSON columns keep their shape)."""
    conn = sqlite3.connect(path)
    for (table,) in conn.execute(
        "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite%'"
    ).fetchall():
        cols = [(r[1], r[5]) for r in conn.execute(f"PRAGMA table_info({table})")]
        keys = [c for c, pk in cols if pk]
        for row in conn.execute(f"SELECT rowid, * FROM {table}").fetchall():
            for (name, pk), value in zip(cols, row[1:]):
                if pk or not isinstance(value, str) or name in keys:
                    continue
                planted = _plant_cell(planter, name, value)
                if planted != value:
                    conn.execute(f"UPDATE {table} SET {name} = ? WHERE rowid = ?", (planted, row[0]))
    conn.commit()
    conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    conn.close()


def _plant_cell(planter: Planter, name: str, value: str) -> str:
    try:
        decoded = bytes.fromhex(value).decode("utf-8")  # Cursor's store.db meta: hex-encoded JSON
        return json.dumps(planter.value(json.loads(decoded))).encode().hex()
    except ValueError:
        pass
    out = planter.value(value, name)
    return out if isinstance(out, str) else value


def plant_aider(src: Path, dst: Path) -> None:
    lines = []
    for line in src.read_text(encoding="utf-8").splitlines():
        lines.append(line)
        if line.startswith("#### "):
            lines += ["#### " + part for part in BLOB.splitlines()]
        elif line.startswith("> "):
            lines += ["> " + part for part in BLOB.splitlines()]
    lines += ["", "The answer, with secrets:", *BLOB.splitlines()]
    dst.mkdir(parents=True, exist_ok=True)
    (dst / ".aider.chat.history.md").write_text("\n".join(lines) + "\n", encoding="utf-8")


def command_code_lines(dst: Path) -> None:
    sid = "33333333-3333-4333-8333-333333333333"

    def line(role: str, content: Any, second: int) -> dict[str, Any]:
        return {
            "role": role,
            "content": content,
            "timestamp": f"2026-06-16T05:58:{second:02d}.580Z",
            "sessionId": sid,
        }

    records = [
        line("user", [{"type": "text", "text": "fix the config"}], 10),
        line(
            "assistant",
            [
                {"type": "text", "text": "Reading it."},
                {
                    "type": "tool-call",
                    "toolCallId": "c1",
                    "toolName": "edit_file",
                    "input": {"file_path": "config.py", "new": "value"},
                },
            ],
            11,
        ),
        line(
            "tool",
            [{"type": "tool-result", "toolCallId": "c1", "output": {"type": "text", "value": "done"}}],
            12,
        ),
        line("assistant", "All fixed.", 13),
        {
            "type": "message",
            "meta": {"source": "user"},
            "role": "user",
            "content": "and the title?",
            "timestamp": "2026-06-16T05:59:00.000Z",
            "sessionId": sid,
        },
    ]
    planter = Planter()
    path = dst / "projects" / "home-ada-repo" / f"{sid}.jsonl"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(planter.value(r)) + "\n" for r in records))


def build(tmp: Path) -> dict[str, list[Path]]:
    """Planted copies of every harness's transcripts; returns the roots per harness."""
    base = corpus("transcripts")
    p = Planter()
    roots: dict[str, list[Path]] = {}
    cc = tmp / "claude"
    for name in (
        "agent-sessions-fixture-small.jsonl",
        "entire-9f-e3cfdef74d_0.jsonl",
        "simonw-sample_session.jsonl",
    ):
        plant_jsonl(base / "claude-code" / name, cc / "-proj", p)
    plant_tree(base / "claude-code" / "agent-sessions-subagent-fixture", cc / "-sub", p)
    roots["claude-code"] = [cc]
    cx = tmp / "codex"
    for n, src in enumerate(sorted((base / "codex").rglob("*.jsonl"))):
        plant_jsonl(src, cx / "2026" / "01" / "02", p, rename=f"rollout-2026-01-02T10-00-0{n}-x{n}.jsonl")
    import zstandard

    plain = cx / "2026" / "01" / "02" / "rollout-2026-01-02T10-00-00-x0.jsonl"
    (cx / "zst").mkdir()
    (cx / "zst" / "rollout-2026-01-03T10-00-00-z.jsonl.zst").write_bytes(
        zstandard.ZstdCompressor().compress(plain.read_bytes().replace(b'"id": "', b'"id": "z'))
    )
    roots["codex"] = [cx]
    oc = tmp / "opencode"
    plant_tree(base / "opencode" / "agent-sessions-fixture" / "storage_v2", oc / "storage", p)
    from tests.test_adapter_opencode import make_db

    (tmp / "opencode-db").mkdir()
    make_db(tmp / "opencode-db" / "opencode.db")
    plant_sqlite(tmp / "opencode-db" / "opencode.db", p)
    roots["opencode"] = [oc, tmp / "opencode-db"]
    gm = tmp / "gemini"
    for src in sorted((base / "gemini-cli").iterdir()):
        if src.suffix == ".jsonl":
            plant_jsonl(src, gm, p)
        else:
            gm.mkdir(exist_ok=True)
            (gm / src.name).write_text(json.dumps(p.value(json.loads(src.read_text()))))
    roots["gemini-cli"] = [gm]
    cu = tmp / "cursor"
    for src in sorted((base / "cursor").iterdir()):
        if src.suffix == ".jsonl":
            plant_jsonl(src, cu, p)
        else:
            cu.mkdir(exist_ok=True)
            shutil.copyfile(src, cu / src.name)
            plant_sqlite(cu / src.name, p)
    roots["cursor"] = [cu]
    ds = tmp / "dsh"
    plant_tree(base / "deepseek-harness", ds, p)
    session = ds / "headless-advanced-toolchain" / "session.jsonl"
    (ds / "zstd").mkdir()
    (ds / "zstd" / "session.jsonl.zstd").write_bytes(
        zstandard.ZstdCompressor().compress(session.read_bytes())
    )
    roots["deepseek-harness"] = [ds]
    mu = tmp / "muse"
    plant_tree(base / "muse-code", mu, p)
    roots["muse-code"] = [mu]
    command_code_lines(tmp / "commandcode")
    roots["command-code"] = [tmp / "commandcode"]
    plant_aider(base / "aider" / "zen-mcp-server.aider.chat.history.md", tmp / "aider")
    roots["aider"] = [tmp / "aider"]
    return roots


def test_no_planted_secret_reaches_the_index(tmp_path: Path) -> None:
    assert set(SECRETS) == set(KINDS)
    roots = build(tmp_path / "t" / SECRETS["github_token"][1])  # secrets in every source path too
    written = b"".join(
        p.read_bytes() for root in roots.values() for r in root for p in r.rglob("*") if p.is_file()
    )
    cfg = config(make_repo(tmp_path / "repo"), roots)
    summary = ingest(cfg)
    assert summary.failed == []
    assert set(summary.secrets) == set(KINDS)

    conn = connect(cfg.index_path, readonly=True)
    places = {
        "turn text": "SELECT s.harness, t.text FROM turns t JOIN sessions s ON s.id = t.session_id",
        "tool name": "SELECT s.harness, t.tool FROM turns t JOIN sessions s ON s.id = t.session_id",
        "turn paths": "SELECT s.harness, t.paths_json FROM turns t JOIN sessions s ON s.id = t.session_id",
        "title": "SELECT harness, title FROM sessions",
        "cwd": "SELECT harness, cwd FROM sessions",
        "session paths": "SELECT s.harness, p.path FROM session_paths p JOIN sessions s ON s.id = p.session_id",
        "source path": "SELECT harness, path FROM sources",
    }
    planted: dict[str, set[str]] = {}
    for place, sql in places.items():
        for harness, value in conn.execute(sql):
            if value and "[redacted:" in value:
                planted.setdefault(harness, set()).add(place)
    kinds_seen = {
        k for k in KINDS for (text,) in conn.execute("SELECT text FROM turns") if f"[redacted:{k}]" in text
    }
    conn.close()
    # The test reached every harness and the places each one has (so the scan below means something).
    assert set(planted) == set(roots)
    for harness in roots:
        assert {"turn text", "source path"} <= planted[harness], (harness, planted[harness])
    for place in ("tool name", "turn paths", "title", "cwd", "session paths"):
        assert any(place in got for got in planted.values()), place
    assert kinds_seen == set(KINDS)

    index_bytes = b"".join(
        p.read_bytes() for p in cfg.index_path.parent.iterdir() if p.name.startswith(cfg.index_path.name)
    )
    for kind, (_, raw) in SECRETS.items():
        assert raw.encode() in written, f"{kind}: not planted"
        assert raw.encode() not in index_bytes, f"{kind}: raw secret found in the index file"


def test_a_size_cap_never_leaves_half_a_secret() -> None:
    token = SECRETS["github_token"][1]
    for cut in range(4, len(token)):
        capped = cap("output: " + token + " and more", len("output: ") + cut)
        assert token[:cut] not in Scrubber().text(capped)


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_each_kind_in_a_path_or_state_is_redacted(kind: str) -> None:
    scrub = Scrubber()
    raw = SECRETS[kind][1]
    state = scrub.state({"pending": {"text": SECRETS[kind][0]}, "names": [SECRETS[kind][0]]})
    assert raw not in json.dumps(state)
