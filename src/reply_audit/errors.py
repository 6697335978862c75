"""Errors the user can fix: each carries a one-line message and an exit code.

The CLI turns a `UserError` into that line on stderr and the exit code; nothing
that a user's input or configuration can cause should surface as a traceback.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2


class UserError(Exception):
    """A problem with the user's input, configuration or arguments (exit 2)."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
