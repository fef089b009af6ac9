"""A scripted model command for dream tests: `python tests/scripted_model.py SCRIPT.json`.

It reads one hippo request on stdin and answers from the script (JSON):

    {"steps": [{"task": "propose", "pass": "core/decisions", "json": {...}, "times": 1},
               {"task": "review", "reply": "yes"},
               {"task": "review", "path": "notes/a.md", "exit": 3, "stderr": "boom"}],
     "default": {"propose": {"json": {"proposals": []}}, "review": {"json": {"verdict": "confirm", "reason": "ok"}}},
     "log": "/abs/path/calls.jsonl",
     "probe": ["notes/index.md", ".hippo/hippo.toml"]}

A step answers when its `task` (and `pass` / `path`, if given) match the request and it has
`times` left (default: unlimited). `reply` is printed as is, `json` as JSON; `exit`, `stderr`,
`sleep` (seconds) and `big` (print that many bytes) shape the process. Counts persist beside the
script (`<script>.state.json`), since each call is a fresh process. Every call is appended to
`log` with the request header, the prompt, the working directory and its listing, the
environment, and (when `probe` lists paths) what reading each path and `git rev-parse` gave.
The script path arrives in argv because the environment of a model run is scrubbed.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from hippo_git.dream.prompt import PromptError, parse_request


def _probe(paths: list[str]) -> dict[str, Any]:
    seen: dict[str, Any] = {}
    for path in paths:
        try:
            seen[path] = {"read": Path(path).read_text(encoding="utf-8", errors="replace")[:200]}
        except OSError as exc:
            seen[path] = {"error": type(exc).__name__}
    try:
        git = subprocess.run(
            ["git", "rev-parse", "--show-toplevel"], capture_output=True, text=True, timeout=10
        )
        seen["git rev-parse --show-toplevel"] = {"status": git.returncode, "out": git.stdout.strip()}
    except (OSError, subprocess.TimeoutExpired) as exc:
        seen["git rev-parse --show-toplevel"] = {"error": type(exc).__name__}
    return seen


def main(argv: list[str]) -> int:
    script_path = Path(argv[1])
    script = json.loads(script_path.read_text(encoding="utf-8"))
    prompt = sys.stdin.read()
    try:
        req = parse_request(prompt)
        header: dict[str, Any] = req.header
    except PromptError as exc:
        first = prompt.split("\n", 1)[0]
        try:
            header = dict(json.loads(first.removeprefix("HIPPO-REQUEST ")))
        except ValueError:
            header = {"task": "?"}
        header["error"] = str(exc)
    state_path = script_path.with_name(script_path.name + ".state.json")
    counts: dict[str, int] = json.loads(state_path.read_text()) if state_path.exists() else {}
    chosen: dict[str, Any] | None = None
    for n, step in enumerate(script.get("steps", [])):
        if step.get("task") not in (None, header.get("task")):
            continue
        if "pass" in step and step["pass"] != header.get("pass"):
            continue
        if "path" in step and step["path"] != header.get("path"):
            continue
        times = step.get("times")
        if times is not None and counts.get(str(n), 0) >= times:
            continue
        counts[str(n)] = counts.get(str(n), 0) + 1
        chosen = step
        break
    state_path.write_text(json.dumps(counts))
    if chosen is None:
        chosen = script.get("default", {}).get(str(header.get("task")), {"reply": ""})
    if script.get("log"):
        entry = {
            "task": header.get("task"),
            "header": header,
            "prompt": prompt,
            "cwd": os.getcwd(),
            "cwd_listing": sorted(os.listdir(".")),
            "env": dict(os.environ),
            "probe": _probe(script.get("probe", [])) if script.get("probe") else None,
        }
        with open(script["log"], "a", encoding="utf-8") as fh:
            fh.write(json.dumps(entry) + "\n")
    if chosen.get("sleep"):
        time.sleep(float(chosen["sleep"]))
    if chosen.get("stderr"):
        sys.stderr.write(str(chosen["stderr"]))
    if chosen.get("big"):
        sys.stdout.write("x" * int(chosen["big"]))
    elif "json" in chosen:
        sys.stdout.write(json.dumps(chosen["json"]))
    else:
        sys.stdout.write(str(chosen.get("reply", "")))
    sys.stdout.flush()
    return int(chosen.get("exit", 0))


if __name__ == "__main__":
    sys.exit(main(sys.argv))


# --- helpers for the dream tests that drive this script ---------------------------------------------

SCRIPT = Path(__file__).resolve()


def scripted_argv(script: Path) -> list[str]:
    """The model_command that runs this script with `script`."""
    return [sys.executable, str(SCRIPT), str(script)]


def write_script(
    path: Path,
    steps: list[dict[str, Any]],
    *,
    review: dict[str, Any] | None = None,
    probe: list[str] | None = None,
) -> Path:
    """A script whose unmatched proposing calls propose nothing and unmatched reviews confirm."""
    data = {
        "steps": steps,
        "default": {
            "propose": {"json": {"proposals": []}},
            "review": review or {"json": {"verdict": "confirm", "reason": "scripted confirm"}},
        },
        "log": str(path.with_suffix(".log.jsonl")),
    }
    if probe:
        data["probe"] = probe
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


def calls(script: Path) -> list[dict[str, Any]]:
    """Every call the scripted model received so far."""
    log = script.with_suffix(".log.jsonl")
    if not log.exists():
        return []
    return [json.loads(line) for line in log.read_text(encoding="utf-8").splitlines() if line.strip()]


def claude_transcript(session: str, cwd: Path, day: str, turns: list[tuple[Any, ...]]) -> str:
    """A small Claude Code transcript. Turns: ("user", text), ("assistant", text), ("read", path),
    ("bash", command, output, is_error). Times are `day` at 10:00:00 plus one second per line."""
    lines = []
    parent = None
    for n, turn in enumerate(turns):
        ts = f"{day}T10:{n // 60:02d}:{n % 60:02d}.000Z"
        base = {
            "cwd": str(cwd),
            "sessionId": session,
            "version": "2.1.80",
            "gitBranch": "main",
            "timestamp": ts,
            "uuid": f"{session}-{n}",
            "parentUuid": parent,
            "isSidechain": False,
            "userType": "external",
        }
        parent = base["uuid"]
        kind = turn[0]
        if kind == "user":
            lines.append({**base, "type": "user", "message": {"role": "user", "content": turn[1]}})
        elif kind == "assistant":
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "message": {
                        "id": f"m{n}",
                        "role": "assistant",
                        "content": [{"type": "text", "text": turn[1]}],
                    },
                }
            )
        elif kind in ("read", "bash"):
            tool_id = f"toolu_{session}_{n}"
            name, args = (
                ("Read", {"file_path": str(cwd / turn[1])})
                if kind == "read"
                else ("Bash", {"command": turn[1]})
            )
            output, is_error = ("(file contents)", False) if kind == "read" else (turn[2], turn[3])
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "message": {
                        "id": f"m{n}",
                        "role": "assistant",
                        "content": [{"type": "tool_use", "id": tool_id, "name": name, "input": args}],
                    },
                }
            )
            result = {"type": "tool_result", "tool_use_id": tool_id, "content": output, "is_error": is_error}
            lines.append(
                {
                    **base,
                    "uuid": f"{session}-{n}r",
                    "type": "user",
                    "message": {"role": "user", "content": [result]},
                }
            )
    return "\n".join(json.dumps(line) for line in lines) + "\n"


GITIGNORE = "sessions/\nreports/\ninbox/\ndream-state.json\nmodel-runs/\n*.lock\n"


def make_workspace(root: Path, notes: dict[str, str], model: list[str], *, settings: str = "") -> Any:
    """A committed repository set up for hippo (notes under notes/, target main); returns its Config."""
    from hippo_git.config import load_config
    from tests.conftest import make_repo

    toml = f'notes_dir = "notes"\ntarget_branch = "main"\nmodel_command = {json.dumps(model)}\n{settings}'
    files = {".hippo/hippo.toml": toml, ".hippo/.gitignore": GITIGNORE, **notes}
    make_repo(root, files=files)
    return load_config(root, env=dict(os.environ))


def add_sessions(cfg: Any, folder: Path, sessions: list[tuple[str, str, list[tuple[Any, ...]]]]) -> None:
    """Write Claude Code transcripts run in the workspace and ingest them (real ingest, real index)."""
    from hippo_git.signals.refresh import ingest

    project = folder / "project"
    project.mkdir(parents=True, exist_ok=True)
    for session, day, turns in sessions:
        (project / f"{session}.jsonl").write_text(
            claude_transcript(session, cfg.root, day, turns), encoding="utf-8"
        )
    ingest(cfg, root=folder, harness="claude-code")
