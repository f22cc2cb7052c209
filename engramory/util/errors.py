"""Exit codes shared by every command, and the exceptions that carry them.

A command raises one of these exceptions when it cannot do its job; the CLI
prints the message (which names the file and the fix) and exits with the
exception's code, never with a traceback.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_OVER = 2
EXIT_USAGE = 64
EXIT_NO_INPUT = 66


class EngramoryError(Exception):
    """A failure the user can act on; ``str(error)`` says what to do.

    ``details``: further lines the CLI prints under the message, each on its own line (a
    newline inside the message or a detail is text, escaped like any control character).
    """

    exit_code = EXIT_FINDINGS

    def __init__(self, message: str = "", details: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.details = details


class UsageError(EngramoryError):
    """The command line itself is wrong (unknown flag, bad value, bad rule id)."""

    exit_code = EXIT_USAGE


class InputMissingError(EngramoryError):
    """The input (store, index, file) is missing, unreadable, or not a regular file."""

    exit_code = EXIT_NO_INPUT
