"""Reading and parsing one source file, with a fallback that reads what it can of a file `ast` rejects.

`parse_source` returns an `ast.Module` or a `ParseProblem` (line, column and a
one-line reason). When `ast` rejects a file, the fallback splits it into its
top-level statements, and a class into its members (method, nested class,
statement): by Python's own tokenizer when the grammar accepted the file and
only a literal's value is wrong (an invalid `\\U` escape in a Windows path),
else by libcst's parser, which knows syntax newer than the running Python
(and costs about a third of a second to import). Each unit
is tried with `ast` on its own; only the units rejected are lost: their lines
are blanked (a `pass` keeps a class body), so every other line keeps its
number, and each loss is listed with the lines lost and the real line of the
syntax error.
"""

from __future__ import annotations

import ast
import re
from dataclasses import field
from typing import Any, cast

from .facts.model import ParseProblem
from .record_class import record


@record
class Parsed:
    tree: ast.Module | None
    parser: str                                   # ast | fallback | none
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
    return _fallback(source, path, problem)


def _fallback(source: bytes, path: str, problem: ParseProblem) -> Parsed:
    try:
        return _read_in_part(source, path, problem)
    except (RecursionError, MemoryError) as exc:
        return Parsed(tree=None, parser="none", problem=_problem(exc))


@record
class _Unit:
    """One statement of a module (decorators included), or of a class body: what the fallback keeps or loses."""

    first: int
    last: int
    kind: str = ""                 # function | class | "" (any other statement)
    name: str | None = None
    members: list[_Unit] = field(default_factory=list)   # a class's statements, when its body is a block


def _read_in_part(source: bytes, path: str, problem: ParseProblem) -> Parsed:
    """Read what this Python can of a module it rejects: split it into statements (by Python's own tokenizer when
    only a literal's value is wrong, else by libcst's parser), then keep each statement `ast` accepts."""
    if b"\x00" in source:
        return Parsed(tree=None, parser="none", problem=ParseProblem(1, 0, "file contains NUL bytes"))
    text = _decoded(source) if problem.message.startswith(LITERAL_ERRORS) else None
    if text is not None and "\r" in text.replace("\r\n", ""):
        text = None   # a lone CR ends a line for Python but not for the tokenizer's reader: libcst splits it
    if text is not None and (units := _token_units(text)) is not None:
        recovered = _recover(text, units, path, problem, only=LITERAL_ERRORS)
        if recovered is not None and recovered.tree is not None:
            return recovered
    found = _libcst_units(source)
    if found is None:
        return Parsed(tree=None, parser="none", problem=problem)
    libcst_text, libcst_units = found
    return cast(Parsed, _recover(libcst_text, libcst_units, path, problem))


def _decoded(source: bytes) -> str | None:
    """SOURCE as text, by its coding declaration or BOM (as the tokenizer reads it); None when it cannot be."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError):
        return None


# Errors in a literal's value, found after the grammar accepted the file: its tokens and statements are sound, so
# the tokenizer splits it as libcst would. Any other error (a statement this Python's grammar rejects, which may be
# newer syntax) is left to libcst's grammar.
LITERAL_ERRORS = ("(unicode error)", "(value error)")
_CONTINUES = frozenset({"else", "elif", "except", "finally"})   # a clause of the compound statement before it


def _token_units(text: str) -> list[_Unit] | None:
    """The top-level statements of TEXT found with Python's tokenizer, each class's own statements inside it;
    None when the tokenizer fails (syntax newer than this Python's, or no module at all)."""
    import io
    import tokenize

    starts: list[tuple[int, int, int]] = []    # (token index, line, indentation level) of each logical line
    ends: list[tuple[int, int]] = []           # (token index, line) of each logical line's NEWLINE
    level, at_start = 0, True
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(text).readline))
    except (tokenize.TokenError, SyntaxError):
        return None
    for i, tok in enumerate(tokens):
        kind = tok.type
        if kind == tokenize.INDENT:
            level += 1
        elif kind == tokenize.DEDENT:
            level -= 1
        elif kind == tokenize.NEWLINE:
            ends.append((i, tok.start[0]))
            at_start = True
        elif kind in (tokenize.NL, tokenize.COMMENT, tokenize.ENCODING, tokenize.ENDMARKER):
            continue
        elif at_start:
            starts.append((i, tok.start[0], level))
            at_start = False

    def last_line(after: int, before: int) -> int:
        """The line of the last NEWLINE between token indexes AFTER and BEFORE."""
        lines = [line for i, line in ends if after <= i < before]
        return lines[-1] if lines else tokens[after].start[0]

    def units(first: int, stop: int, depth: int) -> list[_Unit]:
        """The statements at DEPTH among STARTS[FIRST:STOP] (deeper ones belong to the statement above them)."""
        out: list[_Unit] = []
        k = first
        while k < stop:
            head = k
            k += 1
            while k < stop and (starts[k][2] > depth or (starts[k][2] == depth and (
                    tokens[starts[k][0]].string in _CONTINUES or _decorates(tokens, starts, head, k)))):
                k += 1
            end_token = starts[k][0] if k < len(starts) else len(tokens)
            unit = _Unit(first=starts[head][1], last=last_line(starts[head][0], end_token))
            kind, name = _defines(tokens, [s[0] for s in starts[head:k] if s[2] == depth])
            unit.kind, unit.name = kind, name
            body = max(j for j in range(head, k) if starts[j][2] == depth) + 1   # after the decorators and header
            if kind == "class" and any(s[2] == depth + 1 for s in starts[body:k]):
                unit.members = units(body, k, depth + 1)
            out.append(unit)
        return out

    return units(0, len(starts), 0)


def _decorates(tokens: list[Any], starts: list[tuple[int, int, int]], head: int, k: int) -> bool:
    """Is the logical line at STARTS[K] the one the decorators from STARTS[HEAD] on apply to (or one more)?"""
    return all(tokens[starts[j][0]].string == "@" for j in range(head, k))


def _defines(tokens: list[Any], heads: list[int]) -> tuple[str, str | None]:
    """(function | class, its name) for the statement whose logical lines start at token indexes HEADS (its
    decorators first); ("", None) for any other statement."""
    for i in heads:
        words = [t.string for t in tokens[i:i + 3]]
        if words[0] == "@":
            continue
        if words[0] == "async" and len(words) > 2 and words[1] == "def":
            return "function", words[2]
        if words[0] in ("def", "class") and len(words) > 1:
            return ("function" if words[0] == "def" else "class"), words[1]
        return "", None
    return "", None


def _libcst_units(source: bytes) -> tuple[str, list[_Unit]] | None:
    """The module's text and statements as libcst's parser reads them (it knows syntax newer than this Python's
    tokenizer); None when libcst cannot read it either."""
    try:
        import libcst

        from .cst_positions import spans
    except ImportError:  # pragma: no cover - libcst is a dependency
        return None
    try:
        module = libcst.parse_module(source)
        text, positions = spans(module)
    except Exception:  # libcst raises its own ParserSyntaxError and friends
        return None

    def unit(node: libcst.CSTNode) -> _Unit:
        first = positions[id(node)][0]
        for dec in getattr(node, "decorators", ()):
            first = min(first, positions[id(dec)][0])
        name = getattr(getattr(node, "name", None), "value", None)
        kind = {libcst.FunctionDef: "function", libcst.ClassDef: "class"}.get(type(node), "")
        found = _Unit(first, positions[id(node)][2], kind, name)
        body = node.body if isinstance(node, libcst.ClassDef) else None
        if isinstance(body, libcst.IndentedBlock):
            found.members = [unit(member) for member in body.body]
        return found

    return text, [unit(stmt) for stmt in module.body]


_LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+\Z")   # a line as Python counts them (not at a form feed)
_LINE_NUMBER = re.compile(r"(\(detected at line |\bon line )(\d+)")


def _recover(text: str, units: list[_Unit], path: str, problem: ParseProblem,
             only: tuple[str, ...] | None = None) -> Parsed | None:
    """TEXT with every unit this Python rejects blanked (a class loses only the members it rejects, when that
    is enough), parsed; each loss is listed with the lines lost and the real line of the error. ONLY: the
    errors a unit may be lost for (None when another one is met: the split is not trusted with it)."""
    lines = _LINE.findall(text)
    skipped: list[ParseProblem] = []
    errors: list[SyntaxError] = []

    def rejects(first: int, last: int, in_class: bool = False) -> SyntaxError | None:
        """The error this Python gives for lines FIRST..LAST alone (inside a class when IN_CLASS), or None."""
        chunk = "".join(lines[first - 1:last])
        try:
            ast.parse(f"class _:\n{chunk}" if in_class else chunk, filename=path)
        except SyntaxError as exc:
            offset = first - 1 - (1 if in_class else 0)
            exc.lineno = (exc.lineno or 1) + offset
            if exc.msg:   # "(detected at line 44)", "after 'if' statement on line 43" count from the chunk too
                exc.msg = _LINE_NUMBER.sub(lambda m: f"{m.group(1)}{int(m.group(2)) + offset}", exc.msg)
            errors.append(exc)
            return exc
        except (ValueError, RecursionError, MemoryError) as exc:
            errors.append(SyntaxError(_problem(exc).message, (path, first, 1, "")))
            return errors[-1]
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

    for unit in units:
        error = rejects(unit.first, unit.last)
        if error is None:
            continue
        before = len(skipped)
        for member in unit.members:   # a class: lose only the members this Python rejects
            m_error = rejects(member.first, member.last, in_class=True)
            if m_error is not None:
                line = lines[member.first - 1]
                indent = line[:len(line) - len(line.lstrip())]
                lose(member.first, member.last,
                     f"{unit.name}.{member.name}" if member.name else f"a statement of class {unit.name or '?'}",
                     m_error, indent or "    ")
        if unit.members and rejects(unit.first, unit.last) is None:
            continue
        del skipped[before:]     # the class is lost whole: one entry says so
        lose(unit.first, unit.last, f"{unit.kind} {unit.name}" if unit.name else "a statement", error)
    if only is not None and not all(_problem(exc).message.startswith(only) for exc in errors):
        return None
    try:
        tree = ast.parse("".join(lines), filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Parsed(tree=None, parser="none", problem=problem)
    return Parsed(tree=tree, parser="fallback", problem=None, skipped=skipped)
