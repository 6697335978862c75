"""`facts.top_level`: a module cut into its top-level statements by text, each piece parsed alone."""

from __future__ import annotations

import ast
import hashlib
import itertools
from pathlib import Path

import pytest

from reply_audit.facts.top_level import JOINS, Piece, parsed, pieces, statements

ROOT = Path(__file__).resolve().parents[1]

_SOURCE = b'''"""Module doc.
Second line in column 0.
"""
import os

@decorator(
    1,
)
@other
def f():
    return 1
# a comment after f

if os.name:
    x = 1
else:
    x = 2
TABLE = [
1,
2,
]
a = 1; b = 2
class C:
    pass
'''


def _digest(data: bytes) -> bytes:
    return hashlib.blake2b(data, digest_size=16).digest()


def test_a_module_is_cut_where_a_statement_opens_in_column_0():
    """The docstring's lines in column 0 are inside a string and the decorators go with their def; `else:` is a
    clause of the `if` before it, and a closing bracket no statement's start."""
    assert [(p.first, p.last) for p in pieces(_SOURCE) or []] == [
        (1, 3), (4, 5), (6, 13), (14, 17), (18, 18), (19, 19), (20, 21), (22, 22), (23, 24)]


def test_a_piece_that_does_not_parse_alone_is_joined_with_the_next():
    """`1,` in column 0 opens no statement: `TABLE = [` is joined with the lines up to its bracket's close; a line
    of two statements is one piece."""
    found = statements(_SOURCE, "m.py", _digest, set())
    assert found is not None
    assert [(p.first, p.last, len(body or [])) for p, _, body in found] == [
        (1, 3, 1), (4, 5, 1), (6, 13, 1), (14, 17, 1), (18, 21, 1), (22, 22, 2), (23, 24, 1)]
    first, _, body = found[2]
    assert body is not None and isinstance(body[0], ast.FunctionDef)
    assert (body[0].lineno, body[0].decorator_list[0].lineno) == (5, 1)   # counted from the piece's first line
    assert parsed(_SOURCE, first, "m.py", in_place=True)[0].lineno == 10   # type: ignore[index]


def test_a_known_piece_is_not_parsed_again():
    known = {_digest(_SOURCE[p.start:p.end]) for p in pieces(_SOURCE) or []}
    found = statements(_SOURCE, "m.py", _digest, known)
    assert found is not None and [body for _, _, body in found] == [None] * 9


@pytest.mark.parametrize("source", [
    b"",
    b"x = 1\rprint(x)\n",                                # a lone carriage return ends a line for Python only
    b"x = '\x00'\n",
    b"from __future__ import barry_as_FLUFL\n1 <> 2\n",   # the grammar changes below the import
    b"# -*- coding: latin-1 -*-\nx = '\xe9'\n",
    b"x = 1\ny = 2\n# vim: set fileencoding=latin-1 :\n",  # a piece's second line: read alone, it would declare
])
def test_a_file_a_piece_could_read_differently_is_declined(source):
    assert pieces(source) is None


def test_a_coding_word_below_a_pieces_second_line_is_no_declaration():
    assert pieces(b"def f():\n    return 1\n# coding: latin-1\n") == [Piece(1, 3, 0, 40)]


def test_a_byte_order_mark_stays_with_the_first_piece():
    source = b"\xef\xbb\xbf@d\ndef f():\n    pass\nx = 1\n"
    found = statements(source, "m.py", _digest, set())
    assert found is not None and [(p.first, p.last) for p, _, _ in found] == [(1, 3), (4, 4)]


@pytest.mark.parametrize("source, cut", [
    # read alone, a last `\\` before CRLF parses: `rb.error` and `("WA-RES-E-001")` would be two statements
    (b'reply = rb.error \\\r\n("WA-RES-E-001")\r\nx = 1\r\n', [(1, 2), (3, 3)]),
    (b'CODE = "WA-RES-" \\\r\n"I-001"\r\n', [(1, 2)]),
    (b'x = 1 \\\ny = 2\n', [(1, 2)]),
])
def test_no_cut_after_a_backslash_that_continues_the_line(source, cut):
    assert [(p.first, p.last) for p in pieces(source) or []] == cut


def test_a_byte_order_mark_below_the_first_line_opens_no_piece():
    """Parsed alone, a piece opening with one would read it as its file's mark; in the file it is an error."""
    source = b"from __future__ import annotations\n\xef\xbb\xbfx = 1\n"
    assert [(p.first, p.last) for p in pieces(source) or []] == [(1, 2)]
    assert statements(source, "m.py", _digest, set()) is None


def test_a_syntax_error_makes_the_file_read_whole():
    assert statements(b"x = 1\ndef f(:\n    pass\ny = 2\n", "m.py", _digest, set()) is None


def test_joins_are_bounded():
    """A piece still unparsed after `JOINS` more (a bracket left open) makes the file read whole: the joins cost
    a parse each."""
    source = b"x = [\n" + b"1,\n" * (JOINS + 5) + b"]\n"
    assert statements(source, "m.py", _digest, set()) is None
    short = b"x = [\n" + b"1,\n" * (JOINS - 1) + b"]\n"
    found = statements(short, "m.py", _digest, set())
    assert found is not None and len(found) == 1


def _checked(source: bytes, path: str) -> bool:
    """Whether SOURCE was cut (False: read whole), after checking that the pieces' statements, moved to the
    file's lines, are Python's tree of the file."""
    found = statements(source, path, _digest, set())
    if found is None:
        return False
    assert found[0][0].start == 0 and found[-1][0].end == len(source)
    for (a, _, _), (b, _, _) in itertools.pairwise(found):
        assert (a.end, a.last + 1) == (b.start, b.first)
    body: list[ast.stmt] = []
    for piece, _, statements_ in found:
        module = ast.Module(body=statements_ or [], type_ignores=[])
        ast.increment_lineno(module, piece.first - 1)
        body += module.body
    whole = compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    assert ast.dump(ast.Module(body=body, type_ignores=[]), include_attributes=True) == \
        ast.dump(whole, include_attributes=True), path
    return True


def test_the_pieces_of_this_projects_files_are_pythons_tree():
    files = sorted([*ROOT.glob("src/**/*.py"), *ROOT.glob("tests/**/*.py"), *ROOT.glob("benchmarks/*.py")])
    whole = sorted(f.relative_to(ROOT).as_posix() for f in files if not _checked(f.read_bytes(), str(f)))
    empty = [f for f in whole if not (ROOT / f).read_bytes()]
    # (this module and top_level.py name the future import that changes the grammar)
    assert len(files) > 150 and sorted(set(whole) - set(empty)) == ["src/reply_audit/facts/top_level.py",
                                                                     "tests/test_top_level.py"]


def test_pieces_cover_the_file_without_a_last_newline():
    source = b"x = 1\ny = 2"
    assert pieces(source) == [Piece(1, 1, 0, 6), Piece(2, 2, 6, 11)]
    assert _checked(source, "m.py")


def test_a_file_of_thousands_of_statements_is_read_whole():
    """A piece's own parse and look-up cost more than a one-line statement read in the file: a generated module
    of more than `MOST_PIECES` is read whole."""
    from reply_audit.facts.top_level import MOST_PIECES

    many = "".join(f"X{i} = {i}\n" for i in range(MOST_PIECES + 1)).encode()
    assert len(pieces(many) or []) == MOST_PIECES + 1 and statements(many, "m.py", _digest, set()) is None
    fewer = "".join(f"X{i} = {i}\n" for i in range(MOST_PIECES)).encode()
    found = statements(fewer, "m.py", _digest, set())
    assert found is not None and len(found) == MOST_PIECES
