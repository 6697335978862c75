"""Reading and parsing one source file, with a fallback that reads what it can of a file `ast` rejects.

`parse_source` returns an `ast.Module` or a `ParseProblem` (line, column and a
one-line reason). When `ast` rejects a file, the fallback splits it into its
top-level statements, and a class into its members (method, nested class,
statement), by Python's own tokenizer; by libcst's parser only where a token
may be syntax newer than the running Python's (an f-string whose braces do
not pair, a quote that opens no string), since libcst knows that syntax and
costs about a third of a second to import. Where the
tokenizer fails on tokens of this Python's (an unclosed bracket or string),
no grammar reads the file and nothing is recovered. Each unit is tried with
`ast` on its own; only the units rejected are lost: their lines are blanked
(a `pass` keeps a class body), so every other line keeps its number, and
each loss is listed with the lines lost and the real line of the syntax
error. A statement whose block a line dedented by mistake cut short is lost
together with the lines after it, and decorators over no def or class with
the statement after them: nothing is kept with a meaning the file did not
give it. A file none of whose statements is kept is unparseable, not partly
read.
"""

from __future__ import annotations

import ast
import re
from bisect import bisect_left
from dataclasses import field
from token import ERRORTOKEN as _ERRORTOKEN
from token import NAME as _NAME
from token import STRING as _STRING
from typing import Any

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
    """Read what this Python can of a module it rejects: split it into statements (by Python's own tokenizer,
    else by libcst's parser where the tokens may be newer syntax), then keep each statement `ast` accepts."""
    if b"\x00" in source:
        return Parsed(tree=None, parser="none", problem=ParseProblem(1, 0, "file contains NUL bytes"))
    text = _decoded(source)
    if text is not None and "\r" in text.replace("\r\n", ""):
        text = None   # a lone CR ends a line for Python but not for the tokenizer's reader: libcst splits it
    if text is not None:
        split = _token_split(text)
        if not split.newer:
            if split.units is None:   # no Python's tokenizer reads it (an unclosed bracket or string): nor libcst
                return Parsed(tree=None, parser="none", problem=problem)
            return _recover(text, split.units, path, problem)
    found = _libcst_units(source)
    if found is None:
        return Parsed(tree=None, parser="none", problem=problem)
    libcst_text, libcst_units = found
    return _recover(libcst_text, libcst_units, path, problem)


def _decoded(source: bytes) -> str | None:
    """SOURCE as text, by its coding declaration or BOM (as the tokenizer reads it); None when it cannot be."""
    import io
    import tokenize

    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        return source.decode(encoding)
    except (SyntaxError, UnicodeError, LookupError):   # (`# coding: hex` names no text codec; `undefined` fails)
        return None


_CONTINUES = frozenset({"else", "elif", "except", "finally"})   # a clause of the compound statement before it
_BRACKETS = {"(": 1, "[": 1, "{": 1, ")": -1, "]": -1, "}": -1}


@record
class _Split:
    """The top-level statements Python's tokenizer finds (None when it fails), and whether a token may be syntax
    newer than this Python's: then only a newer grammar (libcst's) can say where the statements end."""

    units: list[_Unit] | None
    newer: bool


def _maybe_newer(tok: Any, before: Any) -> bool:
    """May TOK be this Python's misreading of newer syntax? An f-string (or a string with an unknown prefix,
    `t"..."`) whose braces do not pair: Python 3.12 reads `f"{d["k"]}"` as one string, older tokenizers end it
    at the inner quote, and what follows may move every statement's end. Or a quote that opens no string: 3.12
    lets an f-string's braces span lines. (A stray `$` or backslash is an error in every Python.)"""
    if tok.type == _ERRORTOKEN:
        return bool(tok.string in ("'", '"'))
    if tok.type != _STRING:
        return False
    prefix = tok.string[:len(tok.string) - len(tok.string.lstrip("bBrRuUfF"))]
    unknown_prefix = before is not None and before.type == _NAME and before.end == tok.start
    if "f" not in prefix.lower() and not unknown_prefix:
        return False
    return not _braces_pair(str(tok.string))


def _braces_pair(text: str) -> bool:
    """Does every `{` of an f-string's TEXT close? (Outside a replacement field `{{` and `}}` are characters;
    inside one, `f"{a:{b}}"`, every brace counts, but for those of a string in it, `f"{'}'}"`, which must
    close too.)"""
    depth, i = 0, 0
    while i < len(text):
        char = text[i]
        if char in "{}" and depth == 0 and text[i + 1:i + 2] == char:
            i += 2
            continue
        if char in "'\"" and depth > 0:
            close = text.find(char, i + 1)
            if close < 0:
                return False   # `f"{'}' + d["`: what an older tokenizer cut from a newer f-string
            i = close + 1
            continue
        if char == "{":
            depth += 1
        elif char == "}":
            if depth == 0:
                return False
            depth -= 1
        i += 1
    return depth == 0


def _token_split(text: str) -> _Split:
    """The top-level statements of TEXT found with Python's tokenizer, each class's own statements inside it."""
    import io
    import tokenize

    starts: list[tuple[int, int, int]] = []    # (token index, line, indentation level) of each logical line
    ends: list[tuple[int, int]] = []           # (token index, line) of each logical line's NEWLINE
    level, at_start, newer, brackets = 0, True, False, 0
    tokens: list[Any] = []
    try:
        for tok in tokenize.generate_tokens(io.StringIO(text).readline):
            newer = newer or _maybe_newer(tok, tokens[-1] if tokens else None)
            tokens.append(tok)
            if tok.type == tokenize.OP and tok.string in _BRACKETS:
                brackets += _BRACKETS[tok.string]
                if brackets < 0:   # a bracket closed that was never opened: where statements end is a guess
                    return _Split(units=None, newer=newer)
    except (tokenize.TokenError, SyntaxError):
        return _Split(units=None, newer=newer)
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

    newlines = [i for i, _ in ends]   # (in order: found by bisection, not by a scan per statement)

    def last_line(after: int, before: int) -> int:
        """The line of the last NEWLINE between token indexes AFTER and BEFORE."""
        at = bisect_left(newlines, before) - 1
        return ends[at][1] if at >= 0 and newlines[at] >= after else int(tokens[after].start[0])

    def opens_block(j: int) -> bool:
        """Does the logical line at STARTS[J] end with the colon of a block's header?"""
        at = bisect_left(newlines, starts[j][0])
        i = (newlines[at] if at < len(newlines) else len(tokens)) - 1
        while i > starts[j][0] and tokens[i].type in (tokenize.COMMENT, tokenize.NL):
            i -= 1
        return bool(tokens[i].type == tokenize.OP and tokens[i].string == ":")

    def extent(head: int, stop: int, depth: int) -> int:
        """The index after the statement at STARTS[HEAD]: its clauses, decorated def and deeper lines."""
        k = head + 1
        while k < stop and (starts[k][2] > depth or (starts[k][2] == depth and (
                tokens[starts[k][0]].string in _CONTINUES or _decorates(tokens, starts, head, k)))):
            k += 1
        return k

    def units(first: int, stop: int, depth: int) -> list[_Unit]:
        """The statements at DEPTH among STARTS[FIRST:STOP] (deeper ones belong to the statement above them)."""
        out: list[_Unit] = []
        k = first
        while k < stop:
            head = k
            k = extent(head, stop, depth)
            kind, name = _defines(tokens, [s[0] for s in starts[head:k] if s[2] == depth])
            if tokens[starts[head][0]].string == "@" and kind == "" and k < stop:
                k = extent(k, stop, depth)   # decorators of no def or class: what follows them is lost with them
            end_token = starts[k][0] if k < len(starts) else len(tokens)
            unit = _Unit(first=starts[head][1], last=last_line(starts[head][0], end_token), kind=kind, name=name)
            # after the decorators and header (a file may open indented: then no line is at DEPTH)
            body = max((j for j in range(head, k) if starts[j][2] == depth), default=head) + 1
            if body < k and not opens_block(body - 1) and out:
                # deeper lines under a line that opens no block: a line dedented by mistake cut the statement
                # before it short, and what follows belonged to it; the two are lost together
                out[-1].last, out[-1].members = unit.last, []
                continue
            if kind == "class" and any(s[2] == depth + 1 for s in starts[body:k]):
                unit.members = units(body, k, depth + 1)
            out.append(unit)
        return out

    return _Split(units=units(0, len(starts), 0), newer=newer)


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


def _recover(text: str, units: list[_Unit], path: str, problem: ParseProblem) -> Parsed:
    """TEXT with every unit this Python rejects blanked (a class loses only the members it rejects, when that
    is enough), parsed; each loss is listed with the lines lost and the real line of the error."""
    lines = _LINE.findall(text)
    skipped: list[ParseProblem] = []

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

    kept = False
    for unit in units:
        error = rejects(unit.first, unit.last)
        if error is None:
            kept = True
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
            kept = True
            continue
        del skipped[before:]     # the class is lost whole: one entry says so
        lose(unit.first, unit.last, f"{unit.kind} {unit.name}" if unit.name else "a statement", error)
    if not kept:   # nothing read (prose saved as .py, a fragment): the file is unparseable, not partly read
        return Parsed(tree=None, parser="none", problem=problem)
    try:
        tree = ast.parse("".join(lines), filename=path)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return Parsed(tree=None, parser="none", problem=problem)
    return Parsed(tree=tree, parser="fallback", problem=None, skipped=skipped)
