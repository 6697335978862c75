"""cst_positions.spans gives every node the span libcst's PositionProvider gives it, and the module's text."""

from __future__ import annotations

from pathlib import Path
from typing import cast

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from reply_audit import cst_positions
from reply_audit.cst_positions import printed, provider_spans, reprinted, spans

ROOT = Path(__file__).resolve().parents[1]

TRICKY = {
    "decorators and a docstring": '@a.b(1)\n@c\nasync def f(x, /, *a, k=2, **kw) -> "T":\n    """doc"""\n'
                                  '    return (yield x)\n',
    "parentheses and comments": "x = (  # why\n    (1 + 2)  # what\n)\nprint((x), *[y for y in (x,)])\n",
    "semicolons and suites": "if a: b = 1; c = 2\nelse: pass\nwhile x: break\n",
    "crlf endings": "def f():\r\n    return {'a': 1}\r\n\r\nclass C:\r\n    x: int = 3\r\n",
    "lone cr endings": "a = 1\rb = 2\r",
    "tabs and a continuation": "def f():\n\tif x and \\\n\t\t\ty:\n\t\treturn 1\n",
    "non-ascii": "s = 'é'; t = \"日本\"  # ü\ndef g(ä):\n    return ä\n",
    "strings of every kind": 'a = b"x" rb"y"\nf = f"{b!r:>{w}}" """\nmulti\n"""\nc = u"d" "e"\n',
    "try, with, match": "try:\n    pass\nexcept (A, B) as e:\n    raise X from e\nfinally:\n    del y\n"
                        "with a as b, c:\n    pass\nmatch p:\n    case [1, *r] | {'k': v} if v:\n        pass\n",
    "no final newline": "def f(): return 1",
    "empty": "",
    "lambda, walrus, slices": "f = lambda *a, b=1: (n := a[1:2, ::3])\n",
    "header and footer comments": "#!/usr/bin/env python\n# header\n\nx = 1\n\n\n# footer\n\n",
}


def _provider_spans(module: cst.Module) -> dict[int, tuple[int, int, int, int]]:
    positions = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    return {id(node): (r.start.line, r.start.column, r.end.line, r.end.column) for node, r in positions.items()}


def test_another_libcsts_printing_state_falls_back_to_the_provider(monkeypatch: pytest.MonkeyPatch) -> None:
    """Should a libcst release change the printing hooks the counting state relies on, the spans come from
    libcst's own provider: the same, slower; never a missing span."""
    source = "@d\ndef f(x):\n    return {'a': x}  # c\n"
    module = cst.parse_module(source)
    expected = _provider_spans(module)
    assert provider_spans(module) == (source, expected)

    def broken(self: object, node: object) -> None:
        raise AttributeError("no such hook")

    monkeypatch.setattr(cst_positions._CountingState, "before_codegen", broken)
    assert spans(module) == (source, expected)

    monkeypatch.undo()
    monkeypatch.setattr(cst_positions._CountingState, "after_codegen", lambda self, node: self.starts.pop())
    assert spans(module) == (source, expected)   # a state that notes no node once printed: the module has no span


def _sources() -> list[tuple[str, str]]:
    found = [(name, text) for name, text in TRICKY.items()]
    for path in sorted((ROOT / "examples").rglob("*.py")) + sorted((ROOT / "src" / "reply_audit" / "codemods").glob("*.py")):
        found.append((path.relative_to(ROOT).as_posix(), path.read_text(encoding="utf-8")))
    return found


@pytest.mark.parametrize(("name", "text"), _sources(), ids=[name for name, _ in _sources()])
def test_every_node_has_the_providers_span_and_the_text_is_the_modules(name: str, text: str) -> None:
    module = cst.parse_module(text)
    printed, found = spans(module)
    assert printed == module.code
    assert printed == text or name == "lone cr endings"   # libcst drops a lone CR at the end: apply refuses that
    expected = _provider_spans(module)
    assert len(expected) > 0 or text == ""
    assert found == expected


def test_a_span_is_the_syntactic_one_not_the_whitespace_around_it() -> None:
    module = cst.parse_module("x = 1\n\n@d\ndef f():\n    return  (a)\n")
    _, found = spans(module)
    fn = module.body[1]
    assert isinstance(fn, cst.FunctionDef)
    assert found[id(fn)] == (4, 0, 5, 15)          # from `def`, the decorator and blank line left out
    assert found[id(fn.name)] == (4, 4, 4, 5)
    ret = fn.body.body[0].body[0]                   # type: ignore[attr-defined]
    assert isinstance(ret, cst.Return)
    assert found[id(ret)] == (5, 4, 5, 15)
    assert found[id(ret.value)] == (5, 13, 5, 14)   # the name alone, its parentheses left out


class _Rewrite(cst.CSTTransformer):
    """Renames every name `x` to `renamed`, descending only into the top-level statements whose index is in
    ONLY (as `migrate`'s rewrite descends only where its targets are): the others stay the same objects."""

    def __init__(self, module: cst.Module, only: set[int]) -> None:
        super().__init__()
        self.keep = {id(s) for i, s in enumerate(module.body) if i not in only}

    def on_visit(self, node: cst.CSTNode) -> bool:
        return id(node) not in self.keep

    def leave_Name(self, original_node: cst.Name, updated_node: cst.Name) -> cst.Name:
        return updated_node.with_changes(value="renamed") if updated_node.value == "x" else updated_node


def _rewrites(module: cst.Module) -> list[cst.Module]:
    count = len(module.body)
    chosen = [set(), {0}, {count - 1}, set(range(0, count, 2)), set(range(count))] if count else [set()]
    out = [cast(cst.Module, module.visit(_Rewrite(module, only))) for only in chosen]
    if count:   # statements added, removed and moved, as imports and definitions are added
        added = cst.parse_statement("import added_module\n")
        out.append(module.with_changes(body=[added, *module.body[1:], added]))
        out.append(module.with_changes(body=list(reversed(module.body))))
    return out


@pytest.mark.parametrize(("name", "text"), _sources(), ids=[name for name, _ in _sources()])
def test_a_rewritten_module_is_reprinted_as_libcst_prints_it(name: str, text: str) -> None:
    module = cst.parse_module(text)
    old_text, found, pieces = printed(module)
    assert (old_text, found) == spans(module)
    for new in _rewrites(module):
        again = reprinted(module, old_text, pieces, new)
        if not module.body or not module.has_trailing_newline:
            assert again is None
        else:
            assert again == new.code, name


def test_a_statement_keeps_its_leading_comments_and_blank_lines() -> None:
    module = cst.parse_module("import a\n\n# about f\n@d\ndef f():\n    return x\n\n\nx = 1  # one\n# footer\n")
    text, _, pieces = printed(module)
    assert pieces is not None
    assert [text[slice(*pieces[id(s)])] for s in module.body] == [
        "import a\n", "\n# about f\n@d\ndef f():\n    return x\n", "\n\nx = 1  # one\n"]
    new = cast(cst.Module, module.visit(_Rewrite(module, {1})))
    assert new.body[0] is module.body[0] and new.body[1] is not module.body[1]
    assert reprinted(module, text, pieces, new) == \
        "import a\n\n# about f\n@d\ndef f():\n    return renamed\n\n\nx = 1  # one\n# footer\n"


def test_a_module_changed_beyond_its_statements_is_printed_whole() -> None:
    module = cst.parse_module("# head\nx = 1\n# foot\n")
    text, _, pieces = printed(module)
    renamed = cast(cst.Module, module.visit(_Rewrite(module, {0})))
    assert reprinted(module, text, pieces, renamed) == "# head\nrenamed = 1\n# foot\n"
    assert reprinted(module, text, None, renamed) is None                     # spans from the provider
    for changed in (module.with_changes(default_newline="\r\n"), module.with_changes(default_indent="\t"),
                    module.with_changes(encoding="latin-1"), module.with_changes(has_trailing_newline=False),
                    module.with_changes(body=[])):
        assert reprinted(module, text, pieces, changed) is None
    for changed in (module.with_changes(header=[]), module.with_changes(footer=[])):   # printed, few lines
        assert reprinted(module, text, pieces, changed) == changed.code
