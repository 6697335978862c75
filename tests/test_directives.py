"""Comment directives read near each directive (given Python's parse) are exactly those the whole file's tokens give."""

from __future__ import annotations

import ast
import random
from pathlib import Path

import pytest

from reply_audit.directives import comment_directives

ROOT = Path(__file__).resolve().parents[1]
IGNORE = "# reply-audit: ignore[RA303]"
MARK = "# reply-audit: default-code"

# (name, source, suppressions, markers): each read whole and near its directives, both must give these
CASES = [
    ("trailing and own-line", f"x = 1  {IGNORE}\n{IGNORE}\ny = 2\n",
     {"1": ["RA303"], "2": ["RA303"], "3": ["RA303"]}, {}),
    ("in a string, not a comment", f"s = '{IGNORE}'\nt = \"\"\"\n{IGNORE}\n\"\"\"\n", {}, {}),
    ("a statement after a string that spans lines",
     f"x = '''a\n{IGNORE}\nb'''; y = 1  {MARK}\n", {}, {"3": ["default-code"]}),
    ("the same line with no statement opening it",
     f"x = '''a\nb'''; y = '''\n{IGNORE}\n'''  {MARK}\n", {}, {"4": ["default-code"]}),
    ("in brackets: a code line, then a line of its own",
     f"f(\n    a,  {IGNORE}\n    {IGNORE}\n    b,\n)\n", {"2": ["RA303"], "3": ["RA303"], "4": ["RA303"]}, {}),
    ("a comment between the parts of one string",
     f"s = (\n    'a'  {MARK}\n    'b'\n)\n", {}, {"2": ["default-code"]}),
    ("an f-string that spells one", f"s = f'{{x}} {IGNORE}'\nt = f'''{{x}}\n{MARK}'''\n", {}, {}),
    ("deeper blocks, then a dedented clause",
     f"def f():\n    if a:\n        for x in y:\n            pass\n    else:  {IGNORE}\n        return 1\n",
     {"5": ["RA303"]}, {}),
    ("try, except and finally lines",
     f"try:\n    if a:\n        b()\nexcept E:  {IGNORE}\n    pass\nfinally:  {MARK}\n    c()\n",
     {"4": ["RA303"]}, {"6": ["default-code"]}),
    ("match cases", f"match p:\n    case 1:\n        if x:\n            y()\n    case _:  {IGNORE}\n        z()\n",
     {"5": ["RA303"]}, {}),
    ("decorators", f"class C:\n    def g(self):\n        return 1\n    @d  {IGNORE}\n    def f(self):\n        pass\n",
     {"4": ["RA303"]}, {}),
    ("before the first statement", f"#!/usr/bin/env python\n{IGNORE}\nimport os\n", {"2": ["RA303"], "3": ["RA303"]}, {}),
    ("a backslash continuation", f"x = 1 + \\\n    2  {IGNORE}\ny = 3\n", {"2": ["RA303"]}, {}),
    ("two directives in one window, one inside a string",
     f"def f():\n    s = '''\n{IGNORE}\n'''  {MARK}\n    return s  {IGNORE}\n",
     {"5": ["RA303"]}, {"4": ["default-code"]}),
    ("tabs, form feeds and a one-line suite",
     f"if a: b = 1  {IGNORE}\n\x0cdef f():\n\tif x:\n\t\treturn 1  {MARK}\n",
     {"1": ["RA303"]}, {"4": ["default-code"]}),
    ("crlf and a lone cr", f"x = 1\r\n{IGNORE}\ry = 2\r\n", {"2": ["RA303"], "3": ["RA303"]}, {}),
    ("every rule, several markers",
     "x = 1  # reply-audit: ignore\ny = 2  # reply-audit: default-code # reply-audit: default-reflection\n",
     {"1": []}, {"2": ["default-code", "default-reflection"]}),
]


def _both(source: bytes) -> tuple[object, object]:
    tree = compile(source, "<test>", "exec", ast.PyCF_ONLY_AST, dont_inherit=True)
    assert isinstance(tree, ast.Module)
    return comment_directives(source), comment_directives(source, tree)


@pytest.mark.parametrize(("name", "source", "suppressions", "markers"), CASES, ids=[c[0] for c in CASES])
def test_directives_near_each_line_are_the_whole_files(name, source, suppressions, markers):
    whole, near = _both(source.encode("utf-8"))
    assert whole == near == (suppressions, markers)


def test_an_encoding_cookie_and_a_bom_are_read_as_python_reads_them():
    latin = f"# -*- coding: latin-1 -*-\ns = 'é'  {IGNORE}\n".encode("latin-1")
    bom = f"\ufeffs = 'é'\n{MARK}\nt = 1\n".encode()
    assert _both(latin) == (({"2": ["RA303"]}, {}),) * 2
    assert _both(bom) == (({}, {"2": ["default-code"]}),) * 2


# (source, what the whole file's tokens give, what the windows give): files Python parses and its pure-Python
# tokenizer cannot read as Python does; the windows follow Python's parse
TOKENIZER_WRONG = [
    (b"x = 1  # reply-audit: ignore\nif 1:\n  pass\n \\\n\n", ({}, {}), ({"1": []}, {})),   # a `\` at an odd indent
    (b"x = 1  # reply-audit: ignore\n\\\r\n", ({}, {}), ({"1": []}, {})),                # a last `\` before CRLF
    (b"# coding: utf-7\nx = 1+AAo-y = 2  # reply-audit: ignore\n", ({"2": []}, {}), ({"3": []}, {})),   # `+AAo-`: \n
]


@pytest.mark.parametrize(("source", "whole", "near"), TOKENIZER_WRONG)
def test_where_the_tokenizer_misreads_a_file_the_windows_follow_pythons_parse(source, whole, near):
    assert _both(source) == (whole, near)


def test_a_file_with_no_parse_is_tokenized_whole():
    broken = f"x = = 1  {IGNORE}\n{MARK}\n".encode()
    assert comment_directives(broken) == ({"1": ["RA303"]}, {"2": ["default-code"]})


def _sources() -> list[Path]:
    return sorted((ROOT / "src" / "reply_audit").rglob("*.py")) + sorted((ROOT / "examples").rglob("*.py"))


def test_directives_put_anywhere_in_real_files_read_the_same_near_and_whole():
    """Directives added at random to this project's own files (trailing, on lines of their own, and inside
    strings and brackets as the lines fall): every file that still parses reads the same both ways."""
    rng = random.Random(19)
    compared = 0
    for path in _sources():
        lines = path.read_text(encoding="utf-8").split("\n")
        for _ in range(3):
            changed = list(lines)
            for at in sorted(rng.sample(range(len(changed)), min(6, len(changed))), reverse=True):
                text = rng.choice([IGNORE, MARK, "# reply-audit: ignore", "'# reply-audit: ignore[RA1]'"])
                if rng.random() < 0.5:
                    changed[at] = f"{changed[at]}  {text}"
                else:
                    changed.insert(at, " " * rng.choice([0, 4, 8]) + text)
            source = "\n".join(changed).encode("utf-8")
            try:
                whole, near = _both(source)
            except SyntaxError:
                continue
            assert near == whole, path
            compared += 1
    assert compared > 100
