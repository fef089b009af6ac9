"""Small transcripts for the rollup rule tests, written turn by turn as the index stores them."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from hippo_git.index.sessions import TurnRow

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


class Script:
    """Builds a session's turns: each call adds one turn, `step` seconds after the previous one."""

    def __init__(self, session: str = "s1", step: float = 10.0, start: datetime = START) -> None:
        self.session = session
        self.step = step
        self.clock = start
        self.turns: list[TurnRow] = []

    def add(
        self,
        kind: str,
        text: str,
        *,
        tool: str | None = None,
        error: bool = False,
        paths: tuple[str, ...] = (),
        edited: bool = False,
        wait: float | None = None,
    ) -> int:
        if self.turns:
            self.clock += timedelta(seconds=self.step if wait is None else wait)
        ts = self.clock.strftime("%Y-%m-%dT%H:%M:%S.000Z")
        seq = len(self.turns)
        self.turns.append(TurnRow(self.session, seq, kind, text, ts, tool, error, paths, edited))
        return seq

    def prompt(self, text: str, **kw: object) -> int:
        return self.add("prompt", text, **kw)  # type: ignore[arg-type]

    def answer(self, text: str, **kw: object) -> int:
        return self.add("answer", text, **kw)  # type: ignore[arg-type]

    def bash(self, command: str, output: str, *, error: bool = False, tool: str = "Bash") -> int:
        """A shell call and its output (Claude Code shape); returns the call's seq."""
        call = self.add("tool_call", f"command: {command}\ndescription: run it", tool=tool)
        self.add("tool_output", output, tool=tool, error=error)
        return call

    def edit(self, path: str, old: str, new: str, *, refused: bool = False) -> int:
        call = self.add(
            "tool_call",
            f"file_path: {path}\nold_string: {old}\nnew_string: {new}",
            tool="Edit",
            paths=(path,),
            edited=True,
        )
        if refused:
            self.add(
                "tool_output", "The user doesn't want to proceed with this tool use.", tool="Edit", error=True
            )
        else:
            self.add("tool_output", f"The file {path} has been updated successfully.", tool="Edit")
        return call


def claude_session(
    sid: str, cwd: str, steps: list[tuple[str, ...]], *, day: str = "2026-03-02", start_minute: int = 0
) -> list[dict[str, object]]:
    """Claude Code JSONL records, one step a minute. Steps: ("user", text), ("assistant", text),
    ("bash", command, output[, "error"]), ("edit", path, old, new)."""
    lines: list[dict[str, object]] = []
    parent: str | None = None
    for n, step in enumerate(steps):
        minute = start_minute + n
        ts = f"{day}T{9 + minute // 60:02d}:{minute % 60:02d}:00.000Z"
        base = {"sessionId": sid, "cwd": cwd, "gitBranch": "main", "version": "2.1.7", "timestamp": ts,
                "isSidechain": False, "userType": "external", "parentUuid": parent}  # fmt: skip
        uuid = f"{sid}-{n}"
        role = step[0]
        if role == "user":
            lines.append(
                {**base, "type": "user", "uuid": uuid, "message": {"role": "user", "content": step[1]}}
            )
        elif role == "assistant":
            content = [{"type": "text", "text": step[1]}]
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "uuid": uuid,
                    "message": {"id": f"m-{uuid}", "role": "assistant", "content": content},
                }
            )
        else:
            if role == "bash":
                name, args, output = "Bash", {"command": step[1], "description": "run"}, step[2]
            else:
                name, args, output = (
                    "Edit",
                    {"file_path": step[1], "old_string": step[2], "new_string": step[3]},
                    "updated",
                )
            use = {"type": "tool_use", "id": f"t-{uuid}", "name": name, "input": args}
            lines.append(
                {
                    **base,
                    "type": "assistant",
                    "uuid": uuid,
                    "message": {"id": f"m-{uuid}", "role": "assistant", "content": [use]},
                }
            )
            result = {
                "type": "tool_result",
                "tool_use_id": f"t-{uuid}",
                "content": output,
                "is_error": step[-1] == "error",
            }
            uuid += "r"
            lines.append(
                {**base, "type": "user", "uuid": uuid, "message": {"role": "user", "content": [result]}}
            )
        parent = uuid
    return lines
