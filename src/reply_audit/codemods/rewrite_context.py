"""What an edit may ask of the module it is rewriting (`RewriteContext`)."""

from __future__ import annotations

import re
from bisect import bisect_left

import libcst as cst

NEWLINES = re.compile(r"\r\n|\r|\n")   # the line breaks libcst counts


def meets(lines: list[int], first: int, last: int) -> bool:
    """Is one of LINES (sorted) between FIRST and LAST, both included?"""
    i = bisect_left(lines, first)
    return i < len(lines) and lines[i] <= last


def usual_quote(code: str | bytes) -> str:
    """The quote most strings of CODE use: single when it has more than twice as many as double."""
    single, double = ("'", '"') if isinstance(code, str) else (b"'", b'"')
    return "'" if code.count(single) > 2 * code.count(double) else '"'   # type: ignore[arg-type]


class RewriteContext:
    """What an edit may ask while rewriting a node."""

    def __init__(self, module: cst.Module, text: str | None = None, quote: str | None = None) -> None:
        self.module = module
        self.text = text   # the module's source, when the caller has printed it already
        self.pending_comment: str | None = None
        self._quote = quote   # the file's quote, when the module is only part of it (a cut-down file)
        self.lines: tuple[int, int] | None = None   # the lines of the node being rewritten, when known
        self._hashes: list[int] | None = None       # the lines of TEXT that hold a `#`

    def may_hold_comment(self) -> bool:
        """Can the node being rewritten hold a comment? False only when no line of it holds a `#` at all (a
        cheap answer before counting a dict's comments node by node)."""
        if self.lines is None or self.text is None:
            return True
        if self._hashes is None:
            self._hashes = [n for n, line in enumerate(NEWLINES.split(self.text), 1) if "#" in line]
        return meets(self._hashes, *self.lines)

    def comment_statement(self, text: str) -> None:
        """Put `# TEXT` at the end of the statement that holds the node being rewritten."""
        self.pending_comment = text

    @property
    def quote(self) -> str:
        """The quote character most strings of this module use (double when undecided)."""
        if self._quote is None:
            code = self.text if self.text is not None else self.module.code
            self._quote = usual_quote(code)
        return self._quote

    def string(self, text: str) -> cst.SimpleString:
        q = self.quote
        return cst.SimpleString(f"{q}{text}{q}")
