"""The small records codemods, the planner and the rewriter pass each other.

Kept apart from `base` (what a codemod is) and `apply` (the rewriter) so that
every module of the package can name them without importing the others.
"""

from __future__ import annotations

from ..record_class import record

Span = tuple[int, int, int, int]  # line, column, end line, end column: `ast` coordinates (UTF-8 byte columns)


class Refused(Exception):
    """Raised by `Edit.rewrite` when the node found is not what the plan expected."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@record(frozen=True)
class Target:
    """A node an edit rewrites: `kind` is call | string | expr | return | def; `where` a span or (name, line)."""

    kind: str
    where: Span | tuple[str, int]


@record(frozen=True)
class Skip:
    """A finding a codemod recognises but will not fix, with the reason a human needs."""

    reason: str
