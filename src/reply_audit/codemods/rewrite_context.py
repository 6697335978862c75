"""What an edit may ask of the module it is rewriting (`RewriteContext`)."""

from __future__ import annotations

import libcst as cst


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
