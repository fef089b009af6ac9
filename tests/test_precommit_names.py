"""The pre-commit check finds the notes a link could name by file name in the whole `git ls-files`
listing at once (`named_like`): the same paths as squashing each name in turn (`named_like_each`)."""

from __future__ import annotations

import os
import random

from hippo_git.team.githooks import _squash, named_like, named_like_each

PARTS = ["n00002", "Deploy", "deploy", "DE-ploy", "de_ploy", "de ploy", "x", "-", "_", " ", "\t", "\x1c", ".md", ".MD",
         ".m-d", "/", "sub", "é", "İ", "K", "ß", "a.b", "[", "*", "(", "0"]  # fmt: skip


def _listing(paths: list[str]) -> bytes:
    return b"".join(os.fsencode(p) + b"\0" for p in paths)


def test_named_like_finds_what_named_like_each_finds() -> None:
    rng = random.Random(11)
    for round_ in range(400):
        paths = sorted({"notes/" + "".join(rng.choices(PARTS, k=rng.randint(1, 5))) for _ in range(30)})
        paths = [p if rng.random() < 0.3 else p + ".md" for p in paths]
        if round_ % 2:  # ASCII listings take the fast way
            paths = [p for p in paths if p.isascii()]
        names = [p.rsplit("/", 1)[-1].removesuffix(".md") for p in paths]
        wanted = {_squash(n) for n in rng.sample(names, k=min(len(names), 3))} | {"deploy", "n00002", ""}
        expected = named_like_each(paths, wanted)
        listing = _listing(paths)
        assert named_like(listing, wanted) == expected, (paths, wanted)  # each name found in the listing
        assert named_like(listing, wanted, few=0) == expected, (paths, wanted)  # a set looked up per path
        assert named_like(listing.removesuffix(b"\0"), wanted) == expected  # (no NUL after the last)


def test_named_like_on_a_plain_listing() -> None:
    paths = ["notes/a/Deploy-Process.md", "notes/deploy_process.md", "notes/deployprocess.txt", "notes/x.md"]
    assert named_like(_listing(paths), {"deployprocess"}) == [
        "notes/a/Deploy-Process.md",
        "notes/deploy_process.md",
    ]
    assert named_like(_listing(paths), {"nothing"}) == []
    assert named_like(b"", {"x"}) == []
