"""The cut-down source libcst rewrites (`codemods.hollow`), and proof that cutting changes no rewrite.

The unit tests pin what is cut and what never is. The differential tests run
`migrate` on every codemod example and on hostile trees twice, cutting and
rewriting whole files, and require the same bytes, the same rewrites and the
same refusals and skips.
"""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

import reply_audit.codemods.apply as apply_module
from reply_audit.codemods import all_codemods
from reply_audit.codemods.hollow import Hollowed, hollow
from reply_audit.migrate import MigrateResult, migrate
from reply_audit.profile import load_profile
from reply_audit.scan import scan
from support import write_tree

SOURCE = b'''"""Module."""
import os


def untouched(a):
    """Doc."""
    return a


@tool()
def handler(x):
    """Doc."""
    global STATE
    y = x + 1

    # about z
    z = y * 2
    if x:
        return {"ok": True}
    elif y:
        w = 1
        return {"ok": False}
    for i in range(3):
        print(i)
    return {"ok": z}


late = 1
class Late:
    pass
'''


def test_a_source_is_cut_to_the_statements_its_edits_touch() -> None:
    cut = hollow(SOURCE, [(11, 11), (19, 19), (22, 22), (25, 25)])
    assert cut is not None
    assert cut.source.decode() == '''"""Module."""
import os


def untouched(a):
    "__reply_audit_cut_0_0__"
    __reply_audit_cut_0_1__


@tool()
def handler(x):
    "__reply_audit_cut_0_2__"
    global STATE
    __reply_audit_cut_0_3__
    if x:
        return {"ok": True}
    elif y:
        __reply_audit_cut_0_4__
        return {"ok": False}
    __reply_audit_cut_0_5__
    return {"ok": z}
__reply_audit_cut_0_6__
def Late(): pass
'''
    assert [(c.start, c.end) for c in cut.cuts] == [(6, 6), (7, 7), (12, 12), (14, 17), (21, 21), (23, 24),
                                                     (26, 30)]
    assert [cut.line(n) for n in (1, 11, 19, 22, 25)] == [1, 11, 16, 19, 21]
    assert cut.restore(cut.source) == SOURCE


def test_restoring_puts_the_cut_lines_back_around_a_rewrite() -> None:
    cut = hollow(SOURCE, [(19, 19)])
    assert cut is not None
    rewritten = cut.source.replace(b'return {"ok": True}', b'return rb.success("OK")')
    assert cut.restore(rewritten) == SOURCE.replace(b'return {"ok": True}', b'return rb.success("OK")')


def _swapped(text: bytes, one: bytes, other: bytes) -> bytes:
    return text.replace(one, b"\0").replace(other, one).replace(b"\0", other)


@pytest.mark.parametrize("change", [
    lambda text, stub, _next: text.replace(stub, b""),                                 # a stub lost
    lambda text, stub, _next: text.replace(stub, stub * 2),                            # or doubled
    lambda text, stub, _next: text.replace(stub, b"    x = 1; " + stub.lstrip()),      # not on a line of its own
    lambda text, stub, following: _swapped(text, stub, following),                      # out of order
])
def test_a_stub_not_found_once_whole_and_in_order_restores_nothing(change) -> None:
    cut = hollow(SOURCE, [(19, 19)])
    assert cut is not None
    stub, following = cut.cuts[3].stub, cut.cuts[4].stub
    assert stub.strip().startswith(b"__reply_audit_cut_0_") and following.startswith(stub[:4])  # (same indent)
    assert cut.restore(change(cut.source, stub, following)) is None


@pytest.mark.parametrize("source", [
    b"\xef\xbb\xbf" + SOURCE,                                                      # a BOM
    b"# -*- coding: latin-1 -*-\n" + SOURCE,                                      # another encoding
    SOURCE.replace(b"global STATE\n", b"global STATE\r"),                          # a lone carriage return
    SOURCE.replace(b"y = x + 1\n", b"y = x + 1\n\f\n"),                            # a form feed
    SOURCE.replace(b"y = x + 1", b"y = = 1"),                                       # not Python
])
def test_a_source_it_cannot_read_plainly_is_rewritten_whole(source: bytes) -> None:
    assert hollow(source, [(19, 19)]) is None


def test_a_utf8_declaration_and_crlf_line_breaks_are_cut() -> None:
    source = b"# -*- coding: utf-8 -*-\n" + SOURCE.replace(b"\n", b"\r\n")
    cut = hollow(source, [(20, 20)])
    assert cut is not None
    assert b"    __reply_audit_cut_0_3__\r\n" in cut.source
    assert cut.restore(cut.source) == source


@pytest.mark.parametrize("source,lines,kept", [
    # statements that share a line: the run is kept
    (b"def f():\n    a = 1; b = 2\n    c = 3; return {}\n", [(3, 3)], [b"c = 3; return {}"]),
    (b"def f():\n    a = 1\n    b = 2;\n    return {}\n", [(4, 4)], [b"a = 1", b"b = 2;"]),
    # a body on its header's line, an elif's header
    (b"def f(x):\n    if x: a = 1\n    elif x > 1:\n        return {}\n", [(4, 4)], [b"if x: a = 1", b"elif x > 1:"]),
    # global and nonlocal statements
    (b"def f():\n    global G\n    nonlocal_ = 1\n    return {}\n", [(4, 4)], [b"global G"]),
    # the module's statements up to its first function, an import, the statement before it
    (b"import os\nA = 1\ndef f():\n    return {}\nB = 2\nsys.path.append('x')\nimport y\nC = 3\n", [(4, 4)],
     [b"A = 1", b"sys.path.append('x')", b"import y"]),
    # a body joined to its header by a backslash
    (b"def g(): \\\n    x = 1\ndef f():\n    return {}\ndef h():\n    y = 2\n", [(4, 4)], [b"    x = 1"]),
    # a last line without a line break
    (b"def f():\n    return {}\ndef g():\n    pass", [(2, 2)], [b"    pass"]),
])
def test_what_is_never_cut(source: bytes, lines: list[tuple[int, int]], kept: list[bytes]) -> None:
    cut = hollow(source, lines)
    text = cut.source if cut is not None else source
    for statement in kept:
        assert statement in text
    if cut is not None:
        assert cut.restore(cut.source) == source


def test_nothing_to_cut_answers_none() -> None:
    assert hollow(b"def f():\n    return {}\n", [(2, 2)]) is None


# ---------------------------------------------------------------------------
# the rewrite is the same, cut or whole
# ---------------------------------------------------------------------------
HOSTILE = '''"""Notes tools."""
from replies import Reply
from safety import ReplyBuilder, mcp_safe_tool

NOTES = {'a': 'first note', 'b': 'second', 'c': 'third', 'd': 'fourth'}
LABELS = ['x', 'y', 'z', 'w', 'v', 'u', 'q', 'r', 's', 't']


def _helper(x):
    \'\'\'A helper nobody rewrites: its single quotes outnumber the handlers' double ones.\'\'\'
    global NOTES
    names = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta', 'theta', 'iota', 'kappa',
             'lambda', 'mu', 'nu', 'xi', 'omicron', 'pi', 'rho', 'sigma', 'tau', 'upsilon',
             'phi', 'chi', 'psi', 'omega', 'one', 'two', 'three', 'four', 'five', 'six']
    if x:  return x
    return {'a': 'b', 'c': 'd', 'e': 'f', 'g': names}


@mcp.tool()
def notes_search(query: str, mode: str = 'any') -> dict:
    """Search the notes.

    # not a comment: inside the docstring
    """
    global NOTES
    # a comment above a run
    hits = []; count = 0
    for n in NOTES:
        if query in NOTES[n]:
            hits.append(n)
        elif mode == 'all':
            continue
        else:
            pass
    if not query:
        return {"success": False, "error": "empty query"}
    elif mode == 'strict':
        # explain
        return {"success": False, "error": "strict mode"}
    try:
        text = """
    return {"success": True}
"""
        # the try body's last comment
    except Exception as exc:
        return {"success": False, "error": str(exc)}
    finally:
        count += 1

    class Local:
        @staticmethod
        def inner():
            return {'not': 'a handler'}
    match mode:
        case 'x':
            return {"success": True, "mode": mode}
        case _:
            pass
    if count: return {"success": True, "inline": True}
    return {
        "success": True,
        "results": hits,  # newest first
    }


x = 1
def tail_helper(): return 2
class Tail:
    y = 'single'

    def method(self):
        return {'a': 'b'}


@mcp.tool()
def notes_count() -> dict:
    """Count."""
    total = 0
    for n in NOTES:
        total += 1
    return {"success": True, "count": total}

import sys
sys.path.insert(0, '.')
import os
'''


def _examples() -> list[tuple[str, dict[str, str]]]:
    out = []
    for codemod in all_codemods():
        for i, example in enumerate(codemod.examples):
            out.append((f"{codemod.name}-{i}", {p: textwrap.dedent(s) for p, s in example.before_tree().items()}))
    return out


def _hostile() -> list[tuple[str, dict[str, str]]]:
    base = dict(next(tree for name, tree in _examples() if name == "dict-returns-0"))
    base["server.py"] = HOSTILE
    crlf = {p: s.replace("\n", "\r\n") for p, s in base.items()}
    tabs = {**base, "server.py": "\n".join(line.replace("    ", "\t") for line in HOSTILE.split("\n"))}
    # libcst takes a docstring made with an f-string for one, Python does not
    fstring = {**base, "server.py": HOSTILE.replace('"""Count."""', '"Count " f"{NOTES}"')}
    # the file's first indented block, in a top-level run, indents by two: so does the helper migrate adds
    first_indent = {**base, "server.py": FIRST_INDENT}
    # a body joined to its header by a backslash does not indent: the file first indents later, by two
    joined = {**base, "server.py": FIRST_INDENT.replace("def first(): pass\nif Reply:\n  TWO = 2\n",
                                                       "def first(): \\\n    return 0\ndef second():\n  TWO = 2\n")}
    return [("hostile", base), ("hostile-crlf", crlf), ("hostile-tabs", tabs), ("hostile-fstring-doc", fstring),
            ("first-indent", first_indent), ("first-indent-joined", joined)]


FIRST_INDENT = '''from replies import Reply
from safety import ReplyBuilder, mcp_safe_tool


def first(): pass
if Reply:
  TWO = 2


@mcp.tool()
def notes_stats() -> dict:
    stats = {"count": TWO}
    return stats
'''


def _migrate(root: Path) -> MigrateResult:
    return migrate(scan(root, load_profile(None, root)))


def _outcome(result: MigrateResult) -> tuple[object, ...]:
    return (result.sources, [(a.codemod, a.path, a.line, a.description) for a in result.applied],
            [(r.codemod, r.path, r.line, r.reason) for r in result.refused],
            [(s.codemod, s.finding.path, s.finding.line, s.reason) for s in result.skipped])


def _both(tmp_path: Path, tree: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> tuple[int, tuple, tuple]:
    """(how many files were cut, the outcome cut, the outcome whole)."""
    write_tree(tmp_path, tree)
    made: list[Hollowed | None] = []

    def counted(source: bytes, lines: list[tuple[int, int]], tree: object = None) -> Hollowed | None:
        made.append(hollow(source, lines))
        return made[-1]

    with monkeypatch.context() as patch:
        patch.setattr(apply_module, "hollow", counted)
        cut = _outcome(_migrate(tmp_path))
    with monkeypatch.context() as patch:
        patch.setattr(apply_module, "hollow", lambda source, lines, tree=None: None)
        whole = _outcome(_migrate(tmp_path))
    return sum(1 for m in made if m is not None), cut, whole


@pytest.mark.parametrize("name,tree", [pytest.param(n, t, id=n) for n, t in _examples() + _hostile()])
def test_a_cut_file_is_rewritten_as_the_whole_file_is(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                      name: str, tree: dict[str, str]) -> None:
    cuts, cut, whole = _both(tmp_path, tree, monkeypatch)
    assert cut == whole
    if name.startswith("hostile"):
        assert cuts >= 1
        assert [a[3].split(":")[0] for a in cut[1]] == ["notes_search", "notes_count"]
        assert cut[2] == []
    if name.startswith("first-indent"):
        assert cuts == 1 and "def _reply_from_legacy(result, success, success_code, failure, failure_code,\n" \
            "                       refused=None, refused_code=None) -> Reply:\n  \"\"\"Written by" in cut[0]["server.py"].decode()


def test_the_hostile_tree_takes_the_files_own_quote(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Its single quotes are in the lines that are cut: a new string still takes them (the test above fails
    when the quote is read from the cut-down text)."""
    _cuts, cut, _whole = _both(tmp_path, dict(_hostile()[0][1]), monkeypatch)
    server = cut[0]["server.py"].decode()
    assert "return rb.invalid('MCP-SYS-I-001', data={}, message=\"empty query\")" in server
    assert "return rb.success('MCP-SYS-S-001', data={\"count\": total})" in server


def test_a_stub_the_rewrite_lost_sends_the_file_to_the_whole_rewrite(tmp_path: Path,
                                                                    monkeypatch: pytest.MonkeyPatch) -> None:
    tree = dict(_hostile()[0][1])
    write_tree(tmp_path, tree)
    whole = _outcome(_migrate(tmp_path))
    monkeypatch.setattr(Hollowed, "restore", lambda self, rewritten: None)
    assert _outcome(_migrate(tmp_path)) == whole


def test_a_tree_parsed_ahead_cuts_as_the_source_does() -> None:
    from reply_audit.codemods.hollow import parse

    tree = parse(SOURCE)
    assert tree is not None
    assert hollow(SOURCE, [(19, 19)], tree) == hollow(SOURCE, [(19, 19)])
    assert parse(b"\xef\xbb\xbf" + SOURCE) is None and parse(b"x = = 1\n") is None


def test_syntax_libcst_cannot_read_is_kept_as_it_is_where_no_edit_touches_it(tmp_path: Path,
                                                                            monkeypatch: pytest.MonkeyPatch) -> None:
    """`(name): int` is Python that libcst does not parse: the whole file was refused; cut, its handler is
    converted and the line stays as it was."""
    tree = dict(_hostile()[0][1])
    tree["server.py"] = HOSTILE.replace("def tail_helper(): return 2\n",
                                        "def tail_helper():\n    (annotated): int\n    return 2\n")
    _cuts, cut, whole = _both(tmp_path, tree, monkeypatch)
    assert [r[3][:27] for r in whole[2]] == ["libcst cannot parse it: Syn"] * 2
    assert [a[3].split(":")[0] for a in cut[1]] == ["notes_search", "notes_count"] and cut[2] == []
    assert "    (annotated): int\n" in cut[0]["server.py"].decode()


def test_an_expression_too_deep_for_libcst_is_kept_as_it_is_where_no_edit_touches_it(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A sum of 700 terms parses, but libcst recurses too deep to print it: the whole file was refused; cut,
    the handlers are converted and the sum stays as it was."""
    tree = dict(_hostile()[0][1])
    deep = "def tail_helper():\n    return " + " + ".join(["1"] * 700) + "\n"
    tree["server.py"] = HOSTILE.replace("def tail_helper(): return 2\n", deep)
    _cuts, cut, whole = _both(tmp_path, tree, monkeypatch)
    assert [r[3] for r in whole[2]] == ["nested too deeply for libcst to rewrite"] * 2
    assert [a[3].split(":")[0] for a in cut[1]] == ["notes_search", "notes_count"] and cut[2] == []
    assert deep in cut[0]["server.py"].decode()
