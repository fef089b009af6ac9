"""One root for every error a user can cause or meet; the CLI maps them to exit codes."""

from __future__ import annotations


class HippoError(Exception):
    """An error with a one-line message and an optional hint saying what to do."""

    exit_code = 1

    def __init__(self, message: str, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return self.message

    def for_person(self) -> str:
        """What a command prints on stderr for it: `error: MESSAGE` and, when there is one, `hint: HINT`."""
        return f"error: {self.message}\n" + (f"hint: {self.hint}\n" if self.hint else "")


class UsageError(HippoError):
    """The command line itself is wrong (exit 2)."""

    exit_code = 2


class ConfigError(HippoError):
    """A configuration file is malformed or names an unknown key."""


class NotARepoError(HippoError):
    """The command needs a git repository with a working tree."""


class GitError(HippoError):
    """A git operation failed."""


class LockedError(HippoError):
    """Another process holds the lock this command needs."""


class StaleRefError(HippoError):
    """A compare-and-swap ref update found the ref moved."""
