"""Comment directives in source: `# reply-audit: ignore[...]` suppressions and the markers `migrate` leaves.

One file's bytes in, the lines each directive covers out; read by the
per-file extraction (`file_facts`), and the marker names by the rules and
codemods that write or report them.

A directive counts only in a comment, not in a string that spells one, so
the lines are read by Python's tokenizer. Given Python's parse of the whole
file, only the lines near each line that spells `reply-audit:` are
tokenized: from the nearest line at or above it where a statement is the
first thing (such a line opens outside every string and bracket) down to
the line itself. Tokenizing the whole of a 5,500-line module took three
times as long as parsing it, and a migrated module holds a marker wherever
`migrate` left a decision to review. The lines found are those of Python's
parse, also where the pure-Python tokenizer reads the whole file otherwise:
it gave no directive at all for a file with a line of only a backslash at an
indent no block uses, or a last backslash before CRLF, and other line
numbers under a codec that decodes a line break from other bytes (`utf-7`).
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from bisect import bisect_right
from itertools import groupby

SUPPRESSION = re.compile(r"#\s*reply-audit:\s*ignore(?:\[([A-Za-z0-9_, ]*)\])?")
# Markers `reply-audit migrate` leaves for a human to act on (RA310, RA608 report them), and how they read.
DEFAULT_CODE = "default-code"
DEFAULT_REFLECTION = "default-reflection"
MARKER = re.compile(r"#\s*reply-audit:\s*(" + DEFAULT_CODE + "|" + DEFAULT_REFLECTION + r")\b")

_NOT_CODE = frozenset({tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT,
                       tokenize.ENCODING})
_INDENT = " \t\f"


def marker_comment(name: str) -> str:
    """The comment text (without `#`) that marks a line with NAME."""
    return f"reply-audit: {name}"


def may_hold_directives(source: bytes) -> bool:
    """Whether SOURCE spells a directive anywhere (a file that does not has none, and nothing is tokenized)."""
    return b"reply-audit:" in source


def comment_directives(source: bytes, tree: ast.Module | None = None) \
        -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Suppressions (line -> rule ids, [] = all) and migrate's markers (line -> marker names). TREE: Python's
    parse of the whole of SOURCE, when there is one: then only the lines near each directive are tokenized."""
    if not may_hold_directives(source):
        return {}, {}
    if b"\r" in source:  # tokenize splits lines on `\n` only; ast also on a lone `\r`
        source = source.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    tokens = _near_directives(source, tree) if tree is not None else None
    if tokens is None:
        try:
            tokens = list(tokenize.tokenize(io.BytesIO(source).readline))
        except (tokenize.TokenError, SyntaxError, UnicodeError, LookupError):   # (`# coding: hex`: no text codec)
            return {}, {}
    return _directives(tokens)


def _directives(tokens: list[tokenize.TokenInfo]) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """The suppressions and markers of TOKENS: every token of each line that holds a directive, at least."""
    out: dict[str, list[str]] = {}
    markers: dict[str, list[str]] = {}
    code_lines = {t.start[0] for t in tokens if t.type not in _NOT_CODE}
    for tok in tokens:
        if tok.type != tokenize.COMMENT:
            continue
        for mark in MARKER.finditer(tok.string):
            markers.setdefault(str(tok.start[0]), []).append(mark.group(1))
        match = SUPPRESSION.search(tok.string)
        if not match:
            continue
        ids = sorted({i.strip().upper() for i in (match.group(1) or "").split(",") if i.strip()})
        line = tok.start[0]
        targets = [line] if line in code_lines else [line, line + 1]
        for target in targets:
            out.setdefault(str(target), ids)
    return out, markers


def _near_directives(source: bytes, tree: ast.Module) -> list[tokenize.TokenInfo] | None:
    """The tokens that start on the lines of SOURCE that spell `reply-audit:`, numbered as in SOURCE, each line
    tokenized from the nearest line at or above it that a statement opens (None: tokenize the whole file). The
    lines of a window lose their leading whitespace, so a window that opens inside a block dedents nowhere; no
    token starts or ends on another line for it."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(source).readline)
        lines = source.decode(encoding).split("\n")
    except (SyntaxError, UnicodeError, LookupError):
        return None
    try:
        opens = sorted(set(_statement_lines(tree.body, lines)))
    except IndexError:   # (a tree of other lines than these)
        return None
    wanted = [n for n, text in enumerate(lines, 1) if "reply-audit:" in text]
    tokens: list[tokenize.TokenInfo] = []
    # the lines that share their opening line are read in one window, from that line to the last of them
    for first, group in groupby(wanted, key=lambda n: opens[at - 1] if (at := bisect_right(opens, n)) else 1):
        keep = set(group)
        window = "".join(text.lstrip(_INDENT) + "\n" for text in lines[first - 1:max(keep)])
        try:
            for tok in tokenize.generate_tokens(io.StringIO(window).readline):
                line = tok.start[0] + first - 1
                if line in keep:
                    tokens.append(tok._replace(start=(line, tok.start[1]), end=(tok.end[0] + first - 1, tok.end[1])))
        except tokenize.TokenError:   # the window ends inside brackets or a string: the tokens before stand
            pass
        except SyntaxError:   # (nothing is indented, so nothing dedents wrongly): read the whole file instead
            return None
    return tokens


def _statement_lines(body: list[ast.stmt], lines: list[str]) -> list[int]:
    """The lines of BODY's statements, at any depth, where the statement is the first thing on its line, so the
    line opens outside every string and bracket (not the line of `y` in `x = '''a` / `b'''; y = 1`)."""
    out: list[int] = []
    todo = [body]
    while todo:
        for statement in todo.pop():
            text = lines[statement.lineno - 1]
            if len(text) - len(text.lstrip(_INDENT)) == statement.col_offset:
                out.append(statement.lineno)
            for name in ("body", "orelse", "finalbody"):
                inner = getattr(statement, name, None)
                if inner and isinstance(inner, list) and isinstance(inner[0], ast.stmt):
                    todo.append(inner)
            for handler in getattr(statement, "handlers", ()):
                todo.append(handler.body)
            for case in getattr(statement, "cases", ()):
                todo.append(case.body)
    return out
