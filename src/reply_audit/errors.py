"""Exit codes, the levels that decide them, and errors the user can fix (each with a one-line message).

The CLI turns a `UserError` into that line on stderr and the exit code; nothing
that a user's input or configuration can cause should surface as a traceback.
A run fails (EXIT_FINDINGS) on a finding at or above its fail level.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FINDINGS = 1
EXIT_USAGE = 2
EXIT_PIPE_CLOSED = 141   # standard output closed by its reader (`| head`): as a command SIGPIPE ends reports

SEVERITIES = ("critical", "high", "medium", "low")   # a finding's severity, most severe first
FAIL_LEVELS = (*SEVERITIES, "none")                   # --fail-on: the least severe finding that fails a run


class OutputClosed(Exception):
    """The reader of standard output (or error) stopped reading: a pipe closed under the command's writing
    (`reply-audit scan . | head`). Raised by the console's writer only, so that a broken pipe elsewhere (to a
    helper process, to git) is never taken for it."""


class UserError(Exception):
    """A problem with the user's input, configuration or arguments (exit 2)."""

    exit_code = EXIT_USAGE

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message
