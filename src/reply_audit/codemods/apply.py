"""Applying planned edits to one file's source with libcst, safely.

`rewrite_source(source, edits)` parses the file with libcst, finds each edit's
target nodes by position (the scan's `ast` spans, with UTF-8 byte columns
turned into the character columns libcst counts), hands each node to its edit,
adds the import statements the applied edits need, and checks the result:
it must parse again with libcst, and with `ast` too when the original did.

libcst reads the file cut down to what the edits touch (`hollow`): the runs
of statements that hold no target are each one stub line while it rewrites,
and their bytes are put back after. A file that cannot be cut, or whose
cut-down text meets a problem, is rewritten whole. The result is the same
byte for byte either way (the tests compare the two), with one difference:
a statement no edit touches that libcst cannot handle, syntax it does not
parse (`(name): int`) or an expression nested too deeply for it to print,
no longer refuses the whole file; it is kept as it is, and the result is
compiled as always.

Nothing is half-applied. An edit whose target is not found, or that refuses
the node it is given, is dropped, and the file is rewritten again from the
original without it; if the result does not parse, the whole file is refused.
The caller writes only a source that came back `ok`.

Formatting and comments outside the rewritten nodes are untouched: libcst
keeps every byte it does not change (encoding, BOM, line endings included).
"""

from __future__ import annotations

import ast
from collections import defaultdict
from collections.abc import Callable, Iterator
from dataclasses import field
from typing import Any, cast

import libcst as cst
from libcst.helpers import get_full_name_for_node

from ..cst_positions import Span as NodeSpan
from ..cst_positions import printed, reprinted
from ..record_class import record
from .base import Edit, RewriteOutcome
from .ftypes import Refused, Span, Target
from .hollow import hollow
from .rewrite_context import NEWLINES, RewriteContext, meets, usual_quote

_KINDS: dict[type, str] = {cst.Call: "call", cst.SimpleString: "string", cst.Expr: "expr", cst.Return: "return"}
MAX_RETRIES = 8


class _Columns:
    """ast spans (UTF-8 byte columns) -> libcst positions (character columns)."""

    def __init__(self, code: str, line_of: Callable[[int], int] | None = None) -> None:
        self.lines = NEWLINES.split(code)
        self.line_of = line_of or (lambda line: line)

    def char_col(self, line: int, byte_col: int) -> int:
        if not 1 <= line <= len(self.lines):
            return byte_col
        text = self.lines[line - 1]
        if text.isascii():
            return byte_col
        return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="ignore"))

    def key(self, target: Target) -> tuple[str, tuple[Any, ...]]:   # (kind, a span or (name, line))
        if target.kind == "def":
            name, line = cast("tuple[str, int]", target.where)
            return target.kind, (name, self.line_of(line))
        line, col, end_line, end_col = cast(Span, target.where)   # every kind but def is found by its span
        line, end_line = self.line_of(line), self.line_of(end_line)
        return target.kind, (line, self.char_col(line, col), end_line, self.char_col(end_line, end_col))


class _Applier(cst.CSTTransformer):
    def __init__(self, table: dict[tuple[str, tuple[Any, ...]], list[tuple[Edit, Target]]],
                 ctx: RewriteContext, spans: dict[int, NodeSpan]) -> None:
        super().__init__()
        self.table = table
        self.ctx = ctx
        self.spans = spans
        self.hits: dict[int, int] = defaultdict(int)
        self.refused: dict[int, str] = {}
        self.lines = sorted({key[1][1] if key[0] == "def" else key[1][0] for key in table})

    def on_visit(self, node: cst.CSTNode) -> bool:
        """Descend only into nodes whose lines hold a target: the rest of the tree is kept as it is."""
        span = self.spans.get(id(node))
        if span is None:   # (every node of the parsed module has one)
            return True
        return meets(self.lines, span[0], span[2])

    def _key(self, node: cst.CSTNode) -> tuple[str, tuple[Any, ...]] | None:
        kind = _KINDS.get(type(node))
        if kind is not None:
            # an expression statement is found by its value: `(rb.denied(...))` spans its parentheses, the call not
            return kind, self.spans[id(cast(cst.Expr, node).value if kind == "expr" else node)]
        if isinstance(node, cst.FunctionDef):
            return "def", (node.name.value, self.spans[id(node.name)][0])
        return None

    # Any: an edit may put a node of another type in place of the one it rewrites, which libcst allows at run
    # time and its generic signature (a node of the same type) does not
    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> Any:
        if self.ctx.pending_comment and isinstance(updated_node, (cst.SimpleStatementLine, cst.SimpleStatementSuite)):
            updated_node = _with_comment(updated_node, self.ctx.pending_comment)
            self.ctx.pending_comment = None
        key = self._key(original_node) if type(original_node) in _KINDS or isinstance(original_node,
                                                                                        cst.FunctionDef) else None
        if key is None or key not in self.table:
            return updated_node
        span = self.spans.get(id(original_node))
        self.ctx.lines = (span[0], span[2]) if span is not None else None
        for edit, target in self.table.pop(key):
            if id(edit) in self.refused:
                continue
            try:
                updated_node = edit.rewrite(target, original_node, updated_node, self.ctx)
                self.hits[id(edit)] += 1
            except Refused as exc:
                self.refused[id(edit)] = exc.reason
            except cst.CSTValidationError as exc:   # a node libcst will not build: the edit, not the file, is refused
                self.refused[id(edit)] = f"libcst cannot build the rewritten code: {exc}"
        return updated_node


def _with_comment(node: cst.SimpleStatementLine | cst.SimpleStatementSuite, text: str) \
        -> cst.SimpleStatementLine | cst.SimpleStatementSuite:
    old = node.trailing_whitespace
    if old.comment is not None:
        if text in old.comment.value:
            return node
        comment = cst.Comment(f"{old.comment.value}  # {text}")
        return node.with_changes(trailing_whitespace=old.with_changes(comment=comment))
    return node.with_changes(trailing_whitespace=old.with_changes(
        whitespace=cst.SimpleWhitespace("  "), comment=cst.Comment(f"# {text}")))


def _once(module: cst.Module, edits: list[Edit], text: str, spans: dict[int, NodeSpan],
          line_of: Callable[[int], int] | None = None, quote: str | None = None) \
        -> tuple[cst.Module, dict[int, str]]:
    """Apply EDITS to MODULE, whose source is TEXT and whose nodes sit at SPANS (LINE_OF: the line of TEXT
    that holds a line the targets name; QUOTE: the file's usual quote, when TEXT is a cut-down file); return
    the new module and the edits that failed (id -> reason)."""
    columns = _Columns(text, line_of)
    table: dict[tuple[str, tuple[Any, ...]], list[tuple[Edit, Target]]] = defaultdict(list)
    for edit in edits:
        for target in edit.targets():
            table[columns.key(target)].append((edit, target))
    ctx = RewriteContext(module, text, quote)
    applier = _Applier(table, ctx, spans)
    new = module.visit(applier)
    failed = dict(applier.refused)
    for edit in edits:
        if id(edit) not in failed and applier.hits[id(edit)] != len(edit.targets()):
            failed[id(edit)] = "its target was not found in the source (changed since the scan?)"
    return new, failed


@record
class _Draft:
    """A rewrite before its check: the edits refused on the way, those left, and the bytes they make."""

    refused: list[tuple[Edit, str]] = field(default_factory=list)
    left: list[Edit] = field(default_factory=list)   # applied, unless PROBLEM refuses them all
    data: bytes | None = None     # None: no edit left to apply
    problem: str | None = None    # why the whole file was refused


def rewrite_source(source: bytes, edits: list[Edit], tree: ast.Module | None = None) -> RewriteOutcome:
    """SOURCE with EDITS applied, checked. libcst reads the file cut down to the statements the edits touch
    (`hollow`), and the whole file when it cannot be cut or the cut-down file meets a problem (so a refusal
    of the whole file reads as the whole file's). TREE: `hollow.parse(SOURCE)`, when the caller has it."""
    outcome = RewriteOutcome(source=source)
    cut = hollow(source, [_lines(target) for edit in edits for target in edit.targets()], tree)
    # a new string takes the quote of the whole file, not of what is left of it
    draft = _rewrite(cut.source, edits, cut.line, usual_quote(source)) if cut is not None else None
    if draft is not None and draft.problem is None and draft.data is not None:
        assert cut is not None   # (a draft is made of a cut)
        draft.data = cut.restore(draft.data)
    if draft is None or draft.problem is not None or (draft.left and draft.data is None):
        draft = _rewrite(source, edits, None)
    outcome.refused = list(draft.refused)
    if draft.problem is not None:
        return _refuse(outcome, draft.left, draft.problem)
    if draft.data is None:
        return outcome
    problem = verify(source, draft.data)
    if problem:
        return _refuse(outcome, draft.left, problem)
    outcome.applied = draft.left
    outcome.new_source = draft.data if draft.data != source else None
    return outcome


def _lines(target: Target) -> tuple[int, int]:
    """The lines of the original source TARGET lies on."""
    if target.kind == "def":
        line = cast("tuple[str, int]", target.where)[1]
        return line, line
    where = cast(Span, target.where)
    return where[0], where[2]


def _rewrite(source: bytes, edits: list[Edit], line_of: Callable[[int], int] | None,
             quote: str | None = None) -> _Draft:
    """EDITS applied to SOURCE (LINE_OF: the line of SOURCE that holds a line of the file the edits' targets
    were found in, None: the same line; QUOTE: the file's usual quote, None: SOURCE's), not yet checked."""
    draft = _Draft()
    try:
        module = cst.parse_module(source)
    except Exception as exc:  # libcst's ParserSyntaxError and friends
        return _Draft(left=list(edits), problem=f"libcst cannot parse it: {' '.join(str(exc).split())[:160]}")
    try:
        text, spans, pieces = printed(module)   # printed once: the columns and the quotes are read from it
    except (RecursionError, MemoryError):   # (`a + b + …` a thousand terms long parses, and prints recursing)
        return _Draft(left=list(edits), problem="nested too deeply for libcst to rewrite")
    if text.encode(module.encoding) != source:
        # libcst would change bytes nobody asked to change (e.g. the last `\r` of a file with old Mac endings)
        return _Draft(left=list(edits), problem="libcst cannot reproduce this file byte for byte: not rewritten")
    pending = list(edits)
    new = module
    for _ in range(MAX_RETRIES):
        if not pending:
            break
        try:
            new, failed = _once(module, pending, text, spans, line_of, quote)
        except (RecursionError, MemoryError):
            draft.problem = "nested too deeply for libcst to rewrite"
            draft.left = pending
            return draft
        if not failed:
            break
        draft.refused += [(e, failed[id(e)]) for e in pending if id(e) in failed]
        pending = [e for e in pending if id(e) not in failed]
    else:
        pending = []
    draft.left = pending
    if not pending:
        return draft
    try:
        new = add_imports(new, [s for e in pending for s in e.imports])
        new = add_definitions(new, {n: d for e in pending for n, d in e.definitions.items()})
        # only the statements the rewrite replaced are printed again (the rest keep their text: see cst_positions)
        draft.data = (reprinted(module, text, pieces, new) or new.code).encode(new.encoding)
    except Exception as exc:  # an import that cannot be parsed or encoded
        draft.problem = f"the rewritten file cannot be produced: {exc}"
    return draft


def _refuse(outcome: RewriteOutcome, edits: list[Edit], problem: str) -> RewriteOutcome:
    outcome.problem = problem
    outcome.refused += [(e, problem) for e in edits]
    return outcome


def verify(original: bytes, new: bytes) -> str | None:
    """Why NEW may not replace ORIGINAL, or None. NEW that this Python compiles may; otherwise it may only when
    ORIGINAL did not compile either (newer syntax than this Python knows) and libcst parses NEW. (The original
    is compiled only when NEW does not: the usual answer costs one compile.)"""
    if _compiles(new):
        return None
    if _compiles(original):
        return "the rewritten file would not parse with this Python"
    try:
        cst.parse_module(new)
    except Exception as exc:
        return f"the rewritten file would not parse: {' '.join(str(exc).split())[:160]}"
    return None


def _compiles(source: bytes) -> bool:
    try:
        compile(source, "<rewrite>", "exec", dont_inherit=True)   # to bytecode: `f(a=1, a=2)` fails only here
    except (SyntaxError, ValueError, RecursionError, MemoryError, UnicodeDecodeError):
        return False
    return True


# ---------------------------------------------------------------------------
# imports
# ---------------------------------------------------------------------------
def _import_parts(text: str) -> tuple[str, int, list[str]]:
    """(module, level, names) of `from M import a, b`; (module, 0, []) of `import M`."""
    try:
        line = cst.parse_statement(text)
    except Exception:
        raise ValueError(f"not an import statement: {text!r}") from None
    stmt = line.body[0] if isinstance(line, cst.SimpleStatementLine) and line.body else None
    if isinstance(stmt, cst.ImportFrom) and not isinstance(stmt.names, cst.ImportStar):
        module = get_full_name_for_node(stmt.module) if stmt.module is not None else ""
        return module or "", len(stmt.relative), [get_full_name_for_node(a.name) or "" for a in stmt.names]
    if isinstance(stmt, cst.Import) and len(stmt.names) == 1:
        return get_full_name_for_node(stmt.names[0].name) or "", 0, []
    raise ValueError(f"not an import statement: {text!r}")


def add_imports(module: cst.Module, statements: list[str]) -> cst.Module:
    """Add each import statement unless the module has it: a name joins an existing `from M import ...`
    of the same module; a new statement goes after the module's leading imports."""
    body: list[cst.BaseStatement] = list(module.body)
    for text in dict.fromkeys(statements):
        module_name, level, names = _import_parts(text)
        if _merge_into_existing(body, module_name, level, names):
            continue
        new_line = cst.parse_statement(text)
        body.insert(_import_position(body), new_line)
    return module.with_changes(body=body)


def add_definitions(module: cst.Module, definitions: dict[str, str]) -> cst.Module:
    """Add each module-level function the edits need, after the imports, unless the module defines it."""
    body: list[cst.BaseStatement] = list(module.body)
    defined = {stmt.name.value for stmt in body if isinstance(stmt, (cst.FunctionDef, cst.ClassDef))}
    for name, source in definitions.items():
        if name in defined:
            continue
        newline = module.default_newline   # a docstring's own line breaks follow the file's (CRLF stays CRLF)
        stmt = cst.parse_statement(source.replace("\n", newline) if newline != "\n" else source)
        at = _import_position(body)
        body.insert(at, stmt.with_changes(leading_lines=[cst.EmptyLine(), cst.EmptyLine()]))
        if at + 1 < len(body):
            follower = body[at + 1]
            blanks = len([ln for ln in follower.leading_lines if ln.comment is None]) \
                if hasattr(follower, "leading_lines") else 2
            if blanks < 2 and hasattr(follower, "leading_lines"):
                body[at + 1] = follower.with_changes(
                    leading_lines=[cst.EmptyLine()] * (2 - blanks) + list(follower.leading_lines))
        defined.add(name)
    return module.with_changes(body=body)


def _top_imports(body: list[cst.BaseStatement]) \
        -> Iterator[tuple[int, cst.SimpleStatementLine, cst.Import | cst.ImportFrom]]:
    for i, stmt in enumerate(body):
        if isinstance(stmt, cst.SimpleStatementLine):
            for small in stmt.body:
                if isinstance(small, (cst.Import, cst.ImportFrom)):
                    yield i, stmt, small


def _merge_into_existing(body: list[cst.BaseStatement], module_name: str, level: int, names: list[str]) -> bool:
    for i, line, small in _top_imports(body):
        if isinstance(small, cst.Import):
            if not names and any(get_full_name_for_node(a.name) == module_name for a in small.names):
                return True
            continue
        if isinstance(small.names, cst.ImportStar) or not names:
            continue
        same = (get_full_name_for_node(small.module) if small.module else "") == module_name \
            and len(small.relative) == level
        if not same:
            continue
        have = {get_full_name_for_node(a.asname.name if a.asname else a.name) for a in small.names}  # bound names
        missing = [n for n in names if n not in have]
        if missing:
            aliases = list(small.names)
            last = aliases[-1]
            opening = small.lpar.whitespace_after if small.lpar is not None else None
            if isinstance(opening, cst.ParenthesizedWhitespace):   # one name per line
                sep = cst.Comma(whitespace_after=opening.with_changes(first_line=cst.TrailingWhitespace()))
                ending = last.comma if isinstance(last.comma, cst.Comma) else cst.MaybeSentinel.DEFAULT
                closing = ending.whitespace_after if isinstance(ending, cst.Comma) else None
                if isinstance(closing, cst.ParenthesizedWhitespace):
                    # the last name keeps its own comment; the new ones go on lines of their own below it
                    assert isinstance(ending, cst.Comma)   # a closing whitespace comes after a comma
                    aliases[-1] = last.with_changes(comma=ending.with_changes(
                        whitespace_after=closing.with_changes(last_line=opening.last_line)))
                    ending = ending.with_changes(whitespace_after=closing.with_changes(
                        first_line=cst.TrailingWhitespace()))
                else:
                    aliases[-1] = last.with_changes(comma=sep)
            else:
                sep = aliases[-2].comma if len(aliases) > 1 and isinstance(aliases[-2].comma, cst.Comma) \
                    else cst.Comma(whitespace_after=cst.SimpleWhitespace(" "))
                ending = last.comma
                aliases[-1] = last.with_changes(comma=sep)
            for j, name in enumerate(missing):
                end = j == len(missing) - 1
                dotted = cst.parse_expression(name)
                assert isinstance(dotted, (cst.Name, cst.Attribute))   # an imported name is dotted
                aliases.append(cst.ImportAlias(name=dotted, comma=ending if end else sep))
            new_small = small.with_changes(names=aliases)
            body[i] = line.with_changes(body=[new_small if s is small else s for s in line.body])
        return True
    return False


def _import_position(body: list[cst.BaseStatement]) -> int:
    """After the last import of the module's leading block (docstring, __future__, imports); in a module
    that sets up `sys.path` before importing, after the imports that follow its last such statement (a
    new import may depend on that path)."""
    position = 0
    for i, stmt in enumerate(body):
        if _is_import_line(stmt):
            position = i + 1
        elif i == 0 and isinstance(stmt, cst.SimpleStatementLine) and len(stmt.body) == 1 \
                and isinstance(stmt.body[0], cst.Expr) and isinstance(stmt.body[0].value,
                                                                      (cst.SimpleString, cst.ConcatenatedString)):
            position = 1
        elif isinstance(stmt, (cst.FunctionDef, cst.ClassDef)):
            break
    setup = max((i for i, stmt in enumerate(body[:-1])   # (the cheap test first: a statement's walk is not)
                 if _is_import_line(body[i + 1]) and _sets_sys_path(stmt)), default=-1)
    if setup >= position:
        position = setup + 1
        while position < len(body) and _is_import_line(body[position]):
            position += 1
    return position


def _is_import_line(stmt: cst.BaseStatement) -> bool:
    return isinstance(stmt, cst.SimpleStatementLine) and all(
        isinstance(s, (cst.Import, cst.ImportFrom)) for s in stmt.body)


def _is_main_block(stmt: cst.BaseStatement) -> bool:
    if not isinstance(stmt, cst.If) or not isinstance(stmt.test, cst.Comparison):
        return False
    test = stmt.test
    return isinstance(test.left, cst.Name) and test.left.value == "__name__" and any(
        isinstance(c.comparator, cst.SimpleString) and c.comparator.evaluated_value == "__main__"
        for c in test.comparisons)


class _SysPathUse(cst.CSTVisitor):
    def __init__(self) -> None:
        self.found = False

    def visit_Attribute(self, node: cst.Attribute) -> bool:
        if get_full_name_for_node(node) == "sys.path":
            self.found = True
        return not self.found


def _sets_sys_path(stmt: cst.BaseStatement) -> bool:
    """Does a top-level statement touch `sys.path` (insert, append, assignment), at any depth? (Not a def,
    a class, nor the `__main__` block.)"""
    if isinstance(stmt, (cst.FunctionDef, cst.ClassDef)) or _is_main_block(stmt):
        return False
    finder = _SysPathUse()
    stmt.visit(finder)
    return finder.found
