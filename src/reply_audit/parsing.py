"""Reading and parsing one source file, with a libcst fallback.

`parse_source` returns an `ast.Module` or a `ParseProblem` (line, column and a
one-line reason). When `ast` rejects a file, libcst's parser gets a chance
(it may know newer syntax than the running Python): if libcst accepts the
module, each top-level statement is tried with `ast` on its own, and inside a
class this Python rejects, each member (method, nested class, statement). Only
the units rejected are lost: their lines are blanked (a `pass` keeps a class
body), so every other line keeps its number, and each loss is listed with the
lines lost and the real line of the syntax error.
"""

from __future__ import annotations

import ast
import re
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


NESTING_LIMITS = frozenset({"too many nested parentheses", "too many levels of indentation",
                            "nested too deeply to parse", "too large to parse in memory"})


def parse_source(source: bytes, path: str = "<file>") -> Parsed:
    try:
        tree = compile(source, path, "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
        assert isinstance(tree, ast.Module)
        return Parsed(tree=tree, parser="ast")
    except (SyntaxError, ValueError, UnicodeDecodeError, RecursionError, MemoryError, OverflowError) as exc:
        problem = _problem(exc)
    if problem.message in NESTING_LIMITS:
        # a nesting limit is the same in every Python: the fallback, which recovers code written for a newer
        # Python, has nothing to recover, and libcst spends about 1 GB and 5 s on 1,000 nested brackets
        return Parsed(tree=None, parser="none", problem=problem)
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
        from libcst.metadata import MetadataWrapper, PositionProvider
    except ImportError:  # pragma: no cover - libcst is a dependency
        return Parsed(tree=None, parser="none", problem=problem)
    try:
        wrapper = MetadataWrapper(libcst.parse_module(source))
        positions = wrapper.resolve(PositionProvider)
        text = wrapper.module.code
    except Exception:  # libcst raises its own ParserSyntaxError and friends
        return Parsed(tree=None, parser="none", problem=problem)
    lines = text.splitlines(keepends=True)
    skipped: list[ParseProblem] = []

    def span(node: libcst.CSTNode) -> tuple[int, int]:
        """First and last line of NODE, its decorators included."""
        first = positions[node].start.line
        for dec in getattr(node, "decorators", ()):
            first = min(first, positions[dec].start.line)
        return first, positions[node].end.line

    def rejects(first: int, last: int, indent: str = "") -> SyntaxError | None:
        """The error this Python gives for lines FIRST..LAST alone (inside a class when INDENT), or None."""
        chunk = "".join(lines[first - 1:last])
        try:
            ast.parse(f"class _:\n{chunk}" if indent else chunk, filename=path)
        except SyntaxError as exc:
            offset = first - 1 - (1 if indent else 0)
            exc.lineno = (exc.lineno or 1) + offset
            if exc.msg:   # "unterminated string literal (detected at line 44)" counts from the chunk, too
                exc.msg = re.sub(r"\(detected at line (\d+)\)",
                                 lambda m: f"(detected at line {int(m.group(1)) + offset})", exc.msg)
            return exc
        except (ValueError, RecursionError, MemoryError) as exc:
            return SyntaxError(_problem(exc).message, (path, first, 1, ""))
        return None

    def lose(first: int, last: int, what: str, exc: SyntaxError, indent: str = "") -> None:
        """Blank lines FIRST..LAST (a `pass` keeps a class body), so every other line keeps its number."""
        for n in range(first, last + 1):
            lines[n - 1] = "\n"
        if indent:
            lines[first - 1] = f"{indent}pass\n"
        inner = _problem(exc)
        where = f"line {first}" if first == last else f"lines {first}-{last}"
        skipped.append(ParseProblem(line=inner.line, col=inner.col, message=_one_line(
            f"{where} ({what}) not read, this Python rejects line {inner.line}: {inner.message}")))

    for stmt in wrapper.module.body:
        first, last = span(stmt)
        error = rejects(first, last)
        if error is None:
            continue
        body = stmt.body if isinstance(stmt, libcst.ClassDef) else None
        members = body.body if isinstance(body, libcst.IndentedBlock) else ()
        before = len(skipped)
        for member in members:   # a class: lose only the members this Python rejects
            m_first, m_last = span(member)
            m_error = rejects(m_first, m_last, indent=getattr(body, "indent", None) or "    ")
            if m_error is not None:
                indent = lines[m_first - 1][:len(lines[m_first - 1]) - len(lines[m_first - 1].lstrip())]
                name = getattr(getattr(member, "name", None), "value", None)
                cls = getattr(getattr(stmt, "name", None), "value", "?")   # a ClassDef: members come from one
                lose(m_first, m_last, f"{cls}.{name}" if name else f"a statement of class {cls}", m_error,
                     indent or "    ")
        if members and rejects(first, last) is None:
            continue
        del skipped[before:]     # the class is lost whole: one entry says so
        name = getattr(getattr(stmt, "name", None), "value", None)
        lose(first, last, f"{type(stmt).__name__.replace('Def', '').lower()} {name}" if name else "a statement",
             error)
    try:
        tree = ast.parse("".join(lines), filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Parsed(tree=None, parser="none", problem=problem)
    return Parsed(tree=tree, parser="libcst-fallback", problem=None, skipped=skipped)
