"""A worker process of ingest (`index.pipeline`): answers each pickled list of `prepare.Task` with
the list of their `Prepared`, until its input ends. It never opens the index."""

from __future__ import annotations

from hippo_git.index.prepare import Prepared, Task, prepare
from hippo_git.index.scrub import Scrubber
from hippo_git.index.workers import serve

_scrub = Scrubber()  # one per worker: its memo of clean strings serves every chunk


def _prepare_chunk(chunk: list[Task]) -> list[Prepared]:
    return [prepare(task, _scrub) for task in chunk]


if __name__ == "__main__":
    serve(_prepare_chunk)
