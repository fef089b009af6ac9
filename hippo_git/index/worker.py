"""A worker process of ingest (`index.pipeline`): reads pickled lists of `prepare.Task` from
stdin and writes back, for each, the pickled list of their `Prepared`, until stdin ends.

It never opens the index and ignores Ctrl-C: the writer that started it owns both. When the
writer is gone its pipes break, and the worker leaves without a word.
"""

from __future__ import annotations

import os
import pickle
import signal
import sys

from hippo_git.index.prepare import prepare
from hippo_git.index.scrub import Scrubber


def main() -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    scrub = Scrubber()  # one per worker: its memo of clean strings serves every chunk
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    try:
        while True:
            try:
                chunk = pickle.load(stdin)
            except EOFError:
                break
            pickle.dump([prepare(task, scrub) for task in chunk], stdout, protocol=pickle.HIGHEST_PROTOCOL)
            stdout.flush()
    except (BrokenPipeError, ConnectionResetError):
        pass
    os._exit(0)  # no flush of a broken stdout at exit (that would print an error)


if __name__ == "__main__":
    main()
