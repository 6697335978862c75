"""A source cut down to the statements a rewrite touches, and the cut lines put back afterwards.

libcst parses and prints every byte it is given, and a rewrite touches a few
statements of a file. `hollow(source, lines)` replaces each run of whole
statements that holds none of LINES with one stub line, a bare name at the
run's own indentation, so libcst reads the statements the edits rewrite, the
blocks and headers that hold them and the module's leading statements, and
little else. `Hollowed.restore(rewritten)` puts each run's original bytes
back in place of its stub.

What the rewriter and the edits read is left as the whole file has it:

* the module's statements up to its first function or class (where a new
  import goes), every import statement, and a statement right before one (it
  may set `sys.path` for it); a later run of statements at the top level
  keeps, in its stub, a `def NAME(): pass` for each function and class it
  defines (a module-level helper is added only when its name is not defined);
* a statement whose lines meet one of LINES (a compound statement keeps its
  header, and its blocks are cut in turn);
* a block's `global` and `nonlocal` statements, and what its docstring is
  (a handler's setup goes in after them): a docstring's stub is a string,
  and a first statement libcst takes for a docstring and Python does not
  (`"Count " f"{n}"`) is kept;
* the line where the file first indents, by Python's tokenizer, unless a run
  starts there (libcst reads the module's indent from it, and indents what
  it adds by it);
* a run that shares a line with anything else (`a = 1; b = 2`, a body on
  its header's line, an `elif`), continues the line before it (a body joined
  to its header by a backslash), or whose last line has no line break.

The comments and blank lines between a run and the statement before it go
with the run, except after an import at the top level (a new definition goes
in there, and counts the blank lines above the statement after it).

`hollow` answers None, and the caller rewrites the whole file, when the
source is not plain UTF-8 (a BOM, another coding declaration), has a line
break Python and libcst may count differently (a lone carriage return, a
form feed), does not parse with this Python, or when nothing can be cut.
"""

from __future__ import annotations

import ast
import codecs
import io
import re
import tokenize
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import field
from itertools import accumulate

from ..record_class import record

_BLANK_OR_COMMENT = re.compile(rb"[ \t]*(#[^\r\n]*)?(\r\n|\n)")
_STUB_PREFIX = b"__reply_audit_cut_"
_DEFINES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
_COMPOUND = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar, ast.Match,
             *_DEFINES)


@record(frozen=True)
class Cut:
    """Lines START..END (from 1) of the original, replaced by STUB."""

    start: int
    end: int
    stub: bytes     # the stub's whole lines: indentation, name, line break (and a top-level run's definitions)
    text: bytes     # the original lines, line breaks included


@record
class Hollowed:
    source: bytes                                  # the cut-down source libcst reads
    cuts: list[Cut] = field(default_factory=list)  # in line order

    def __post_init__(self) -> None:
        self._starts = [cut.start for cut in self.cuts]
        self._moved = list(accumulate((cut.end - cut.start + 1) - cut.stub.count(b"\n") for cut in self.cuts))

    def line(self, original: int) -> int:
        """The line of the cut-down source that holds line ORIGINAL (a line no cut took)."""
        i = bisect_right(self._starts, original)
        return original - (self._moved[i - 1] if i else 0)

    def restore(self, rewritten: bytes) -> bytes | None:
        """REWRITTEN (the cut-down source after a rewrite) with every stub back to the lines it took; None when
        a stub is not found exactly once, whole and in order."""
        out: list[bytes] = []
        at = 0
        for cut in self.cuts:
            where = rewritten.find(cut.stub, at)
            if where < 0 or (where and rewritten[where - 1:where] != b"\n") \
                    or rewritten.find(cut.stub, where + 1) >= 0:
                return None
            out += [rewritten[at:where], cut.text]
            at = where + len(cut.stub)
        out.append(rewritten[at:])
        return b"".join(out)


def parse(source: bytes) -> ast.Module | None:
    """SOURCE's syntax tree, when it is plain enough to cut (see above); None otherwise."""
    if not _plain(source):
        return None
    try:
        tree = compile(source, "<hollow>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError, RecursionError, MemoryError, OverflowError):
        return None
    assert isinstance(tree, ast.Module)
    return tree


def hollow(source: bytes, lines: list[tuple[int, int]], tree: ast.Module | None = None) -> Hollowed | None:
    """SOURCE without the runs of statements that hold none of LINES (ranges of lines, from 1); None when it
    cannot be cut safely or nothing would be cut. TREE: `parse(SOURCE)`, when the caller has it already."""
    tree = tree or parse(source)
    if tree is None:
        return None
    try:
        first_indent = _first_indent(source)
    except (tokenize.TokenError, SyntaxError, ValueError):   # (the tokenizer cannot say: nothing is cut)
        return None
    text_lines = source.splitlines(keepends=True)
    cutter = _Cutter(text_lines, sorted(lines), first_indent)
    try:
        cutter.module(tree.body)
    except RecursionError:
        return None
    if not cutter.runs:
        return None
    serial = 0
    while _STUB_PREFIX + b"%d_" % serial in source:
        serial += 1
    cuts: list[Cut] = []
    pieces: list[bytes] = []
    at = 0   # index of the next line not yet copied
    for n, run in enumerate(sorted(cutter.runs, key=lambda r: r.start)):
        statement = text_lines[run.first - 1]
        indent = statement[:len(statement) - len(statement.lstrip(b" \t"))]
        newline = b"\r\n" if text_lines[run.end - 1].endswith(b"\r\n") else b"\n"
        name = _STUB_PREFIX + b"%d_%d__" % (serial, n)
        stub = indent + (b'"' + name + b'"' if run.docstring else name) + newline
        stub += b"".join(b"def " + defined.encode("utf-8") + b"(): pass" + newline for defined in run.defines)
        cuts.append(Cut(run.start, run.end, stub, b"".join(text_lines[run.start - 1:run.end])))
        pieces += [*text_lines[at:run.start - 1], stub]
        at = run.end
    pieces += text_lines[at:]
    return Hollowed(b"".join(pieces), cuts)


def _plain(source: bytes) -> bool:
    """UTF-8 without a BOM (as Python's tokenizer reads the coding declaration), and no line break but LF and
    CRLF (nor a form feed, which Python's indentation reading resets on)."""
    if b"\f" in source or b"\r" in source.replace(b"\r\n", b""):
        return False
    try:
        declared = tokenize.detect_encoding(io.BytesIO(source).readline)[0]
    except SyntaxError:   # an unknown codec, or one that disagrees with the BOM
        return False
    return codecs.lookup(declared).name == "utf-8"   # (`utf8` is UTF-8; with a BOM, "utf-8-sig" is not)


@record(frozen=True)
class _Run:
    start: int                        # the first line cut (a comment above the first statement, in a block)
    first: int                        # the first statement's first line: the stub takes its indentation
    end: int                          # the last line cut
    docstring: bool = False           # a block's docstring alone: its stub is a string
    defines: tuple[str, ...] = ()     # a top-level run: the functions and classes it defines


class _Cutter:
    """Finds the runs of statements to cut."""

    def __init__(self, lines: list[bytes], keep: list[tuple[int, int]], first_indent: int | None) -> None:
        self.lines = lines
        self.first_indent = first_indent   # the line of the file's first indented block (libcst's default indent)
        self.keep_starts = [k[0] for k in keep]
        self.reach = list(accumulate((k[1] for k in keep), max))   # the last line the first i + 1 ranges reach
        self.runs: list[_Run] = []

    def holds(self, stmt: ast.stmt) -> bool:
        """Do STMT's lines meet a kept range? (One that starts by its end and ends at its start or later.)"""
        i = bisect_right(self.keep_starts, _end(stmt))
        return i > 0 and self.reach[i - 1] >= _start(stmt)

    def module(self, body: list[ast.stmt]) -> None:
        """The top level: up to the first function or class only their bodies are cut; after it, runs without
        an import, and without the statement right before one."""
        first = next((i for i, stmt in enumerate(body) if isinstance(stmt, _DEFINES)), len(body))
        for stmt in body[:first + 1]:
            if isinstance(stmt, _DEFINES):
                self.inner(stmt)
        run: list[ast.stmt] = []
        for i in range(first + 1, len(body)):
            stmt = body[i]
            imports = isinstance(stmt, (ast.Import, ast.ImportFrom))
            before_import = i + 1 < len(body) and isinstance(body[i + 1], (ast.Import, ast.ImportFrom))
            if imports or before_import or self.holds(stmt):
                self._close(run, body, top=True)
                run = []
                if isinstance(stmt, _DEFINES):
                    self.inner(stmt)
                continue
            run.append(stmt)
        self._close(run, body, top=True)

    def inner(self, stmt: ast.stmt) -> None:
        """A compound statement whose header is kept: cut its blocks."""
        for block in _blocks(stmt):
            self.block(block)

    def block(self, stmts: list[ast.stmt]) -> None:
        run: list[ast.stmt] = []
        for i, stmt in enumerate(stmts):
            if i == 0 and _is_docstring(stmt) and not self.holds(stmt):
                self._close([stmt], stmts, docstring=True)   # a docstring's stub is a string: still a docstring
                continue
            elif_ = self._elif(stmt)
            # an f-string first (`"Count " f"{n}"`) is a docstring to libcst, not to Python: kept as it is
            first_string = i == 0 and isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.JoinedStr)
            if elif_ or first_string or isinstance(stmt, (ast.Global, ast.Nonlocal)) or self.holds(stmt):
                self._close(run, stmts)
                run = []
                if elif_ or isinstance(stmt, _COMPOUND):
                    self.inner(stmt)
                continue
            run.append(stmt)
        self._close(run, stmts)

    def _elif(self, stmt: ast.stmt) -> bool:
        return isinstance(stmt, ast.If) and self.lines[stmt.lineno - 1].lstrip(b" \t").startswith(b"elif")

    def _close(self, run: list[ast.stmt], block: list[ast.stmt], docstring: bool = False, top: bool = False) -> None:
        """Cut RUN (consecutive statements of BLOCK) when it has whole lines to itself."""
        if not run:
            return
        first, last = run[0], run[-1]
        start, end = _start(first), _end(last)
        index = block.index(first)
        before = block[index - 1] if index else None
        after = block[index + len(run)] if index + len(run) < len(block) else None
        if (before is not None and _end(before) >= start) or (after is not None and _start(after) <= end):
            return
        if start > 1 and self.lines[start - 2].rstrip(b"\r\n").endswith(b"\\"):
            return   # it continues the line before (a body joined to its header by a backslash)
        opening = self.lines[start - 1]
        indent = len(opening) - len(opening.lstrip(b" \t"))
        # a decorator opens its own line; any other statement must have its first line to itself too
        if not getattr(first, "decorator_list", None) and first.col_offset != indent:
            return
        if last.end_col_offset is None or not _BLANK_OR_COMMENT.fullmatch(self.lines[end - 1][last.end_col_offset:]):
            return
        if self.first_indent is not None and start < self.first_indent <= end:
            return   # libcst takes the module's indent from its first indented line: the stub must not hide it
        cut_from = start
        # the comments and blank lines above it, down to the statement before; at the top level not after an
        # import (a new definition goes in there, and counts the blank lines above the statement it precedes)
        if before is not None and not (top and isinstance(before, (ast.Import, ast.ImportFrom))):
            while cut_from - 1 > _end(before) and _BLANK_OR_COMMENT.fullmatch(self.lines[cut_from - 2]):
                cut_from -= 1
        defines = tuple(stmt.name for stmt in run if isinstance(stmt, _DEFINES)) if top else ()
        self.runs.append(_Run(cut_from, start, end, docstring, defines))


def _start(stmt: ast.stmt) -> int:
    decorators = getattr(stmt, "decorator_list", None)
    return min([stmt.lineno, *(d.lineno for d in decorators)]) if decorators else stmt.lineno


def _end(stmt: ast.stmt) -> int:
    return stmt.end_lineno or stmt.lineno


def _is_docstring(stmt: ast.stmt) -> bool:
    return isinstance(stmt, ast.Expr) and isinstance(stmt.value, ast.Constant) \
        and isinstance(stmt.value.value, (str, bytes))


def _first_indent(source: bytes) -> int | None:
    """The line of SOURCE's first INDENT token, where libcst reads the module's indent (None: it never indents).
    Read from Python's tokenizer, not from columns: a body joined to its header by a backslash (`def f(): \\`
    then `    return 0`) does not indent. It stops at the first one."""
    for token in tokenize.tokenize(io.BytesIO(source).readline):
        if token.type == tokenize.INDENT:
            return token.start[0]
    return None


def _blocks(stmt: ast.stmt) -> Iterator[list[ast.stmt]]:
    if isinstance(stmt, ast.Match):
        for case in stmt.cases:
            yield case.body
        return
    yield getattr(stmt, "body", [])
    if isinstance(stmt, (ast.Try, ast.TryStar)):
        for handler in stmt.handlers:
            yield handler.body
    yield getattr(stmt, "orelse", [])   # an `elif` is a block of one `if` whose walk keeps its header
    yield getattr(stmt, "finalbody", [])
