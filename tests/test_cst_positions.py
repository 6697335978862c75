"""cst_positions.spans gives every node the span libcst's PositionProvider gives it, and the module's text."""

from __future__ import annotations

from pathlib import Path

import libcst as cst
import pytest
from libcst.metadata import MetadataWrapper, PositionProvider

from reply_audit import cst_positions
from reply_audit.cst_positions import provider_spans, spans

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
