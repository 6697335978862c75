"""Comment directives in source: `# reply-audit: ignore[...]` suppressions and the markers `migrate` leaves.

One file's bytes in, the lines each directive covers out; read by the
per-file extraction (`file_facts`), and the marker names by the rules and
codemods that write or report them.
"""

from __future__ import annotations

import io
import re
import tokenize

SUPPRESSION = re.compile(r"#\s*reply-audit:\s*ignore(?:\[([A-Za-z0-9_, ]*)\])?")
# Markers `reply-audit migrate` leaves for a human to act on (RA310, RA608 report them), and how they read.
DEFAULT_CODE = "default-code"
DEFAULT_REFLECTION = "default-reflection"
MARKER = re.compile(r"#\s*reply-audit:\s*(" + DEFAULT_CODE + "|" + DEFAULT_REFLECTION + r")\b")


def marker_comment(name: str) -> str:
    """The comment text (without `#`) that marks a line with NAME."""
    return f"reply-audit: {name}"


def comment_directives(source: bytes) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Suppressions (line -> rule ids, [] = all) and migrate's markers (line -> marker names)."""
    if b"reply-audit:" not in source:
        return {}, {}
    out: dict[str, list[str]] = {}
    markers: dict[str, list[str]] = {}
    if b"\r" in source:  # tokenize splits lines on `\n` only; ast also on a lone `\r`
        source = source.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
    try:
        tokens = list(tokenize.tokenize(io.BytesIO(source).readline))
    except (tokenize.TokenError, SyntaxError, UnicodeDecodeError):
        return {}, {}
    code_lines = {t.start[0] for t in tokens if t.type not in (
        tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT, tokenize.ENCODING)}
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
