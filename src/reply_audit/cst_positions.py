"""Where each node of a libcst module sits, and the module's text, from one printing of it.

`spans(module)` gives, for every node (keyed by `id`), the same start and end
as libcst's `PositionProvider`: (line, column, end line, end column), lines
from 1, columns in characters from 0, leading and trailing whitespace left
out where the syntax allows. It prints the module once and counts as it
goes, and it returns that text too, so a caller needs no second printing.

It exists for speed: libcst's provider builds two position objects and a
range object per node and hashes nodes through Python-level methods, which
on a 5,500-line module costs about seven times the printing itself. The
tests compare every node's span with the provider's on a range of sources.

`printed(module)` also notes where each top-level statement's text lies,
its leading comments and blank lines included. `reprinted` then writes a
rewritten module as `module.code` would, printing only the statements the
rewrite replaced (and the header and footer comments) and copying the
others' text: a rewrite that descends only into the statements it changes
(as `migrate`'s does) keeps the others as the same objects. A statement
prints the same wherever it stands at the top level (no indentation, the
module's newline and indent), so the text is the same; the tests compare it
with `module.code` after rewrites of many sources.
The printing state is libcst's own (`libcst._nodes.internal.CodegenState`,
not public): should a libcst release move it, or print without the hooks it
counts with (the module or one of its statements left without a span), the
spans come from libcst's provider instead, slower and the same.
"""

from __future__ import annotations

import re
from itertools import accumulate
from typing import TYPE_CHECKING

try:
    from libcst._nodes.internal import CodegenState
except ImportError:  # pragma: no cover - another libcst: making the state fails, and `spans` uses the provider
    CodegenState = object  # type: ignore[misc,assignment]

if TYPE_CHECKING:  # pragma: no cover
    import libcst

Span = tuple[int, int, int, int]   # line, column, end line, end column

_NEWLINE = re.compile(r"\r\n?|\n")


class _CountingState(CodegenState):
    """A printing state that counts lines and columns and notes each node's span (as libcst's position
    provider's state does, with tuples keyed by the node's id)."""

    def __init__(self, module: libcst.Module) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.line = 1
        self.column = 0
        self.starts: list[tuple[int, int]] = []
        self.spans: dict[int, Span] = {}
        self.top: dict[int, tuple[int, int]] = {}   # id of a node right below the module -> its tokens' range
        self._top_start = 0

    def _moved(self, value: str) -> None:
        if "\n" in value or "\r" in value:
            segments = _NEWLINE.split(value)
            self.line += len(segments) - 1
            self.column = len(segments[-1])
        else:
            self.column += len(value)

    def add_indent_tokens(self) -> None:
        self.tokens.extend(self.indent_tokens)
        for token in self.indent_tokens:
            self._moved(token)

    def add_token(self, value: str) -> None:
        self.tokens.append(value)
        self._moved(value)

    def before_codegen(self, node: libcst.CSTNode) -> None:
        if len(self.starts) == 1:   # printed right inside the module: a top-level statement, header or footer
            self._top_start = len(self.tokens)
        self.starts.append((self.line, self.column))

    def after_codegen(self, node: libcst.CSTNode) -> None:
        start = self.starts.pop()
        key = id(node)
        if key not in self.spans:   # a syntactic position, noted while printing the node, stands
            self.spans[key] = (start[0], start[1], self.line, self.column)
        if len(self.starts) == 1:
            self.top[key] = (self._top_start, len(self.tokens))

    # (libcst declares a generator's context manager; it only ever enters and leaves it)
    def record_syntactic_position(  # type: ignore[override]
            self, node: libcst.CSTNode, *, start_node: libcst.CSTNode | None = None,
            end_node: libcst.CSTNode | None = None) -> _Syntactic:
        return _Syntactic(self, node, start_node, end_node)


class _Syntactic:
    """While a node prints, the span of its syntax (libcst's hook, a context manager; a class, not a generator,
    since it wraps about every second node printed)."""

    __slots__ = ("column", "end_node", "line", "node", "start_node", "state")

    def __init__(self, state: _CountingState, node: libcst.CSTNode, start_node: libcst.CSTNode | None,
                 end_node: libcst.CSTNode | None) -> None:
        self.state, self.node, self.start_node, self.end_node = state, node, start_node, end_node
        self.line, self.column = state.line, state.column

    def __enter__(self) -> None:
        return None

    def __exit__(self, *exc: object) -> None:
        spans = self.state.spans
        line, column = self.line, self.column
        end_line, end_column = self.state.line, self.state.column
        if self.start_node is not None:
            line, column = spans[id(self.start_node)][:2]
        if self.end_node is not None:
            end_line, end_column = spans[id(self.end_node)][2:]
        spans[id(self.node)] = (line, column, end_line, end_column)


def spans(module: libcst.Module) -> tuple[str, dict[int, Span]]:
    """MODULE's text (as `module.code`) and the span of each of its nodes, by `id(node)`."""
    text, found, _ = printed(module)
    return text, found


Pieces = dict[int, tuple[int, int]]   # id of a top-level statement -> (start, end) of its text


def printed(module: libcst.Module) -> tuple[str, dict[int, Span], Pieces | None]:
    """`spans`, and where each of MODULE's top-level statements lies in the text (None: not known, when the
    spans come from libcst's provider)."""
    try:
        state = _CountingState(module)
        module._codegen(state)
    except (AttributeError, TypeError):   # another libcst's printing state: see the module's docstring
        return (*provider_spans(module), None)
    # the module is noted after it is printed, a statement while it is: both hooks ran, or the provider serves
    if id(module) not in state.spans or not all(id(statement) in state.spans for statement in module.body):
        return (*provider_spans(module), None)
    if not module.has_trailing_newline:   # its last newline was dropped after printing: no piece may end there
        return "".join(state.tokens), state.spans, None
    offsets = list(accumulate(map(len, state.tokens), initial=0))
    pieces = {key: (offsets[start], offsets[end]) for key, (start, end) in state.top.items()}
    return "".join(state.tokens), state.spans, pieces


def reprinted(old: libcst.Module, text: str, pieces: Pieces | None, new: libcst.Module) -> str | None:
    """NEW's text, as `new.code` prints it, when NEW is OLD rewritten (OLD's text TEXT, its statements at
    PIECES) with the same settings: each top-level statement of OLD that NEW still holds is copied from TEXT;
    the others, the header and the footer (a few comment lines) are printed. None when NEW's settings differ,
    or the module drops its last newline after printing: print it whole (`printed` gives no PIECES for OLD
    then)."""
    if pieces is None or not old.body or not new.has_trailing_newline:
        return None
    if (new.default_indent, new.default_newline, new.encoding) != (old.default_indent, old.default_newline,
                                                                   old.encoding):
        return None
    mine = {id(statement) for statement in old.body}   # OLD is alive, so an id here is one of its statements
    if not new.body or any(key not in pieces for key in mine):
        return None
    out = [new.code_for_node(line) for line in new.header]
    for statement in new.body:
        if id(statement) in mine:
            start, end = pieces[id(statement)]
            out.append(text[start:end])
        else:
            out.append(new.code_for_node(statement))
    out += [new.code_for_node(line) for line in new.footer]
    return "".join(out)


def provider_spans(module: libcst.Module) -> tuple[str, dict[int, Span]]:
    """What `spans` gives, from libcst's `PositionProvider`."""
    from libcst.metadata import MetadataWrapper, PositionProvider

    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    found = {id(node): (r.start.line, r.start.column, r.end.line, r.end.column) for node, r in positions.items()}
    return module.code, found
