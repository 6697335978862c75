"""Reading and parsing one source file, with a libcst fallback.

`parse_source` returns an `ast.Module` or a `ParseProblem` (line, column and a
one-line reason). When `ast` rejects a file, libcst's parser gets a chance
(it may know newer syntax than the running Python): if libcst accepts the
module, each top-level statement is re-parsed with `ast` on its own, so every
statement the running Python understands still yields facts, and the others
are listed as skipped with their line.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field

from .facts.model import ParseProblem


@dataclass
class Parsed:
    tree: ast.Module | None
    parser: str                                   # ast | libcst-fallback | none
    problem: ParseProblem | None = None
    skipped: list[ParseProblem] = field(default_factory=list)


def _one_line(text: str) -> str:
    return " ".join(str(text).split())[:200]


def _problem(exc: BaseException) -> ParseProblem:
    if isinstance(exc, SyntaxError):
        reason = exc.msg or exc.__class__.__name__
        return ParseProblem(line=exc.lineno or 1, col=max((exc.offset or 1) - 1, 0), message=_one_line(reason))
    if isinstance(exc, UnicodeDecodeError):
        return ParseProblem(line=1, col=0, message=_one_line(f"cannot decode as source text: {exc.reason}"))
    if isinstance(exc, RecursionError):
        return ParseProblem(line=1, col=0, message="nested too deeply to parse")
    if isinstance(exc, MemoryError):
        return ParseProblem(line=1, col=0, message="too large to parse in memory")
    return ParseProblem(line=1, col=0, message=_one_line(f"{exc.__class__.__name__}: {exc}"))


def parse_source(source: bytes, path: str = "<file>") -> Parsed:
    try:
        tree = compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        return Parsed(tree=tree, parser="ast")
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError, OverflowError) as exc:
        problem = _problem(exc)
    return _libcst_fallback(source, path, problem)


def _libcst_fallback(source: bytes, path: str, problem: ParseProblem) -> Parsed:
    try:
        return _libcst_parse(source, path, problem)
    except (RecursionError, MemoryError) as exc:
        return Parsed(tree=None, parser="none", problem=_problem(exc))


def _libcst_parse(source: bytes, path: str, problem: ParseProblem) -> Parsed:
    if b"\x00" in source:
        return Parsed(tree=None, parser="none", problem=ParseProblem(1, 0, "file contains NUL bytes"))
    try:
        import libcst
    except ImportError:  # pragma: no cover - libcst is a dependency
        return Parsed(tree=None, parser="none", problem=problem)
    try:
        module = libcst.parse_module(source)
    except Exception:  # libcst raises its own ParserSyntaxError and friends
        return Parsed(tree=None, parser="none", problem=problem)
    body: list[ast.stmt] = []
    skipped: list[ParseProblem] = []
    line = 1 + len(module.header)  # each header element is one blank or comment line
    for stmt in module.body:
        text = module.code_for_node(stmt)
        leading = sum(1 for _ in getattr(stmt, "leading_lines", ()))
        try:
            part = ast.parse(text, filename=path)
        except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
            inner = _problem(exc)
            skipped.append(ParseProblem(line=line + leading, col=0,
                                        message=f"statement skipped, this Python rejects it: {inner.message}"))
        else:
            ast.increment_lineno(part, line - 1)
            body.extend(part.body)
        line += text.count("\n")
    tree = ast.Module(body=body, type_ignores=[])
    return Parsed(tree=tree, parser="libcst-fallback", problem=None, skipped=skipped)
