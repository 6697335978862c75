"""A module's source cut into its top-level statements by their text alone, without parsing it, and each piece
parsed on its own where it sits.

A piece starts at a line that begins in column 0 with something that can open a statement (not a space, a
comment, a closing bracket, a backslash, or a clause of the statement before: `else`, `elif`, `except`,
`finally`), and runs to the next such line; the comments and blank lines after a statement go with it, and
decorators with the definition under them. The cut may fall inside a string or a bracket (a line of a
triple-quoted string in column 0): then the piece before it does not parse on its own, since it stops inside
that string or bracket, so a caller who parses every piece and finds one that fails reads the whole file instead.
When every piece parses, each is one or more whole top-level statements of the module, and Python's tree of the
file is theirs, in order: the tokenizer is at the top level, outside every bracket and string, at each cut.

`pieces` declines (None) the files where a piece could read differently on its own: a coding declaration (in
the file's first two lines, or in a piece's, where a piece parsed alone would take it for one), a future import
that changes the grammar (`barry_as_FLUFL`), a lone carriage return, a NUL byte.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Container

from ..record_class import record

# a line that may open a top-level statement (`^` follows a `\n`: files with a lone `\r` are declined)
_OPENS = re.compile(rb"\n(?=[^\s#)\]}\\])(?!(?:else|elif|except|finally)\b)")   # (the line after the `\n`)
_DECORATOR = b"@"
_BOM = b"\xef\xbb\xbf"
# a line the tokenizer would take for a coding declaration, were it the first or second of a file (PEP 263),
# matched from the line's start; found from the words it ends with
_CODING = re.compile(rb"[ \t\f]*#.*?coding[:=]")
_CODING_WORD = re.compile(rb"coding[:=]")
_TRIPLES = (b'"""', b"'''")


@record(frozen=True, slots=True)
class Piece:
    """Lines FIRST to LAST (from 1) of a module, bytes START to END: one or more whole top-level statements."""

    first: int
    last: int
    start: int
    end: int


def pieces(source: bytes) -> list[Piece] | None:
    """SOURCE's pieces, in order, covering every byte; None when the file is read whole (see the docstring)."""
    if not source or b"\r" in source.replace(b"\r\n", b"") or b"\x00" in source or b"barry_as_FLUFL" in source:
        return None
    starts = [0]
    # the piece is so far decorators, waiting for their definition (a byte order mark opens the first: it stays
    # with it, at line 1, where Python reads it)
    decorators_only = source.removeprefix(_BOM).startswith(_DECORATOR)
    strings = _long_strings(source)
    inside = 0   # the long strings that end before the current line are passed
    for match in _OPENS.finditer(source):
        at = match.end()
        if source.endswith(b"\\\n", 0, at) or source.endswith(b"\\\r\n", 0, at) or source.startswith(_BOM, at):
            # the line goes on from the one above (read alone, `x = 1 \` before CRLF parses); a byte order mark
            # opens a file, not a line (one that opens a piece parsed alone would be read as the file's)
            continue
        while inside < len(strings) and strings[inside][1] <= at:
            inside += 1
        if inside < len(strings) and strings[inside][0] < at:
            continue   # a line of a triple-quoted string
        opens_decorator = source.startswith(_DECORATOR, at)
        if decorators_only:
            decorators_only = opens_decorator   # a definition (or anything else) ends the run of decorators
            continue
        starts.append(at)
        decorators_only = opens_decorator
    declared = {line for m in _CODING_WORD.finditer(source)
                if _CODING.match(source, line := source.rfind(b"\n", 0, m.start()) + 1)}
    if declared and any(start in declared or source.find(b"\n", start) + 1 in declared for start in starts):
        return None   # a piece parsed alone would take it for its coding declaration
    out: list[Piece] = []
    line = 1
    ends = [*starts[1:], len(source)]
    for start, end in zip(starts, ends):
        lines = source.count(b"\n", start, end)
        out.append(Piece(line, line + lines - (1 if source[end - 1] == 0x0A else 0), start, end))
        line += lines
    return out


def _long_strings(source: bytes) -> list[tuple[int, int]]:
    """The (start, end) bytes of what look like triple-quoted strings: each `\"\"\"` or `'''` opens one, the next of
    the same kind closes it. A guess (a triple quote inside a comment or a short string misleads it), which
    only decides where to cut: a cut inside a string makes a piece that does not parse."""
    found = sorted((m.start(), kind) for kind in _TRIPLES for m in re.finditer(re.escape(kind), source))
    spans = []
    opened, kind = -1, b""
    for at, which in found:
        if opened < 0:
            opened, kind = at, which
        elif which == kind and at >= opened + 3:
            spans.append((opened, at + 3))
            opened = -1
    if opened >= 0:
        spans.append((opened, len(source)))
    return spans


def joined(first: Piece, last: Piece) -> Piece:
    """The piece from FIRST to LAST, both included."""
    return Piece(first.first, last.last, first.start, last.end)


def parsed(source: bytes, piece: Piece, path: str, in_place: bool = False) -> list[ast.stmt] | None:
    """PIECE's statements parsed on their own, their lines counted from its first (IN_PLACE: the file's, blank lines
    standing in for those above it), or None when it does not parse on its own."""
    text = source[piece.start:piece.end]
    if in_place:
        text = b"\n" * (piece.first - 1) + text
    try:
        tree = compile(text, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError, OverflowError):
        return None
    assert isinstance(tree, ast.Module)
    return tree.body


JOINS = 40   # pieces a piece that does not parse alone is joined with, at most, before the file is read whole
# more pieces than this (a generated module of thousands of one-line statements): the file is read whole, since
# a piece's own parse and look-up cost more than reading a one-line statement in the file
MOST_PIECES = 4_000


def statements(source: bytes, path: str, digest: Callable[[bytes], bytes], known: Container[bytes],
               failed: set[bytes] | None = None) -> list[tuple[Piece, bytes, list[ast.stmt] | None]] | None:
    """SOURCE as pieces that each parse alone: (piece, DIGEST of its bytes, its statements, their lines counted
    from the piece's first), the statements None
    for a piece whose digest is KNOWN (it parsed alone before). A piece that does not parse alone is joined with
    the next until it does (a module docstring's lines in column 0, a list written in column 0); None when one
    still does not after `JOINS` (a syntax error), when `pieces` declines the file, or when it has more than
    `MOST_PIECES`. FAILED keeps the digests
    of the pieces that did not parse alone, which are then joined without being parsed again."""
    proposed = pieces(source)
    if proposed is None or len(proposed) > MOST_PIECES:
        return None
    out: list[tuple[Piece, bytes, list[ast.stmt] | None]] = []
    i = 0
    while i < len(proposed):
        piece, j = proposed[i], i
        while True:
            key = digest(source[piece.start:piece.end])
            body = None if key in known or (failed is not None and key in failed) else parsed(source, piece, path)
            if key in known or body is not None:
                out.append((piece, key, body))
                break
            if failed is not None:
                failed.add(key)
            j += 1
            if j == len(proposed) or j - i > JOINS:
                return None
            piece = joined(piece, proposed[j])
        i = j + 1
    return out
