"""What an edit may ask of the module it is rewriting (`RewriteContext`)."""

from __future__ import annotations

import libcst as cst


class RewriteContext:
    """What an edit may ask while rewriting a node."""

    def __init__(self, module: cst.Module, text: str | None = None) -> None:
        self.module = module
        self.text = text   # the module's source, when the caller has printed it already
        self.pending_comment: str | None = None
        self._quote: str | None = None

    def comment_statement(self, text: str) -> None:
        """Put `# TEXT` at the end of the statement that holds the node being rewritten."""
        self.pending_comment = text

    @property
    def quote(self) -> str:
        """The quote character most strings of this module use (double when undecided)."""
        if self._quote is None:
            code = self.text if self.text is not None else self.module.code
            self._quote = "'" if code.count("'") > 2 * code.count('"') else '"'
        return self._quote

    def string(self, text: str) -> cst.SimpleString:
        q = self.quote
        return cst.SimpleString(f"{q}{text}{q}")
