"""Git processes for the pre-commit hook, started without `subprocess`.

Every commit waits for the hook, and importing `subprocess` (with its signal, threading,
selectors and locale modules) costs it about as much CPU as a git process. `os.posix_spawnp`
and one `poll` loop do what the hook needs: run `git -C DIR ARGS` (hooks, pager and prompts off,
as `repo.run_git` runs git), feed it stdin, collect stdout and stderr. Where the platform has no
`posix_spawnp` (Windows), `subprocess` does it.
"""

from __future__ import annotations

import os

FLAGS = ("-c", "core.hooksPath=/dev/null", "-c", "core.pager=cat")
_CHUNK = 1 << 16


def _argv(cwd: str | os.PathLike[str], args: tuple[str, ...] | list[str]) -> list[str]:
    return ["git", "-C", os.fspath(cwd), *FLAGS, *args]


def _env() -> dict[str, str]:
    return dict(os.environ, GIT_TERMINAL_PROMPT="0", LC_ALL="C")


class Git:
    """One git process, started now; `communicate` feeds it and waits for it. Raises OSError when
    git cannot be started (not on PATH)."""

    def __init__(self, cwd: str | os.PathLike[str], args: tuple[str, ...] | list[str], *, feed: bool = False):
        argv = _argv(cwd, args)
        if not hasattr(os, "posix_spawnp"):
            import subprocess

            pipe = subprocess.PIPE
            self._popen = subprocess.Popen(
                argv, stdin=pipe if feed else None, stdout=pipe, stderr=pipe, env=_env()
            )
            return
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        in_r, in_w = os.pipe() if feed else (-1, -1)
        actions = [(os.POSIX_SPAWN_DUP2, out_w, 1), (os.POSIX_SPAWN_DUP2, err_w, 2)]
        if feed:
            actions.append((os.POSIX_SPAWN_DUP2, in_r, 0))
        try:
            # (git inherits python's ignored SIGPIPE: a closed pipe is an EPIPE error to it, not a
            # signal; every pipe here is read to its end. `signal` would cost an import.)
            self.pid = os.posix_spawnp("git", argv, _env(), file_actions=actions)
        except OSError:
            for fd in (out_r, err_r, in_w):
                if fd >= 0:
                    os.close(fd)
            raise
        finally:
            for fd in (out_w, err_w, in_r):
                if fd >= 0:
                    os.close(fd)
        self._out, self._err, self._in = out_r, err_r, in_w

    def communicate(self, data: bytes = b"") -> tuple[int, bytes, bytes]:
        """(exit status, stdout, stderr) once git has read `data` (when started with `feed`) and ended."""
        if hasattr(self, "_popen"):
            out, err = self._popen.communicate(data if self._popen.stdin else None)
            return self._popen.returncode, out, err
        import select

        chunks: dict[int, list[bytes]] = {self._out: [], self._err: []}
        poller = select.poll()
        for fd in chunks:
            poller.register(fd, select.POLLIN)
        todo = memoryview(data)
        waiting = len(chunks)
        if self._in >= 0:
            if todo:
                os.set_blocking(self._in, False)
                poller.register(self._in, select.POLLOUT)
                waiting += 1
            else:
                os.close(self._in)
        while waiting:
            for fd, _ in poller.poll():
                if fd == self._in:
                    try:
                        todo = todo[os.write(fd, todo[:_CHUNK]) :]
                    except BlockingIOError:
                        continue
                    except BrokenPipeError:  # git stopped reading: its exit status says why
                        todo = todo[:0]
                    if not todo:
                        poller.unregister(fd)
                        os.close(fd)
                        waiting -= 1
                    continue
                chunk = os.read(fd, _CHUNK)
                if chunk:
                    chunks[fd].append(chunk)
                else:
                    poller.unregister(fd)
                    os.close(fd)
                    waiting -= 1
        _, status = os.waitpid(self.pid, 0)
        return os.waitstatus_to_exitcode(status), b"".join(chunks[self._out]), b"".join(chunks[self._err])


def run(
    cwd: str | os.PathLike[str], args: tuple[str, ...] | list[str], data: bytes | None = None
) -> tuple[int, bytes, bytes]:
    """(exit status, stdout, stderr) of `git ARGS` in `cwd`, given `data` on stdin when not None."""
    return Git(cwd, args, feed=data is not None).communicate(data or b"")


def failure(args: tuple[str, ...] | list[str], code: int, err: bytes) -> str:
    """What a failed git call says, as `repo.run_git` words it: git's own last line."""
    said = err.decode("utf-8", "replace").strip().splitlines()
    return f"git {args[0]} failed: {said[-1] if said else f'exit {code}'}"
