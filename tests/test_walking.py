"""facts.walking gives what ast.walk and ast.iter_child_nodes give, in their order, but for contexts and
operators."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from reply_audit.facts.walking import children, nodes_of, walk

SRC = Path(__file__).resolve().parents[1] / "src" / "reply_audit"
LEAVES = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)
SAMPLES = {
    "every operator": "a = -b + c * d ** e // f % g @ h | i & j ^ k << l >> m\nx = not (a and b or c)\n"
                      "y = a < b <= c > d >= e == f != g in h not in i is j is not k\nz += 1\ndel q[0], r.s\n",
    "contexts": "[a, *b] = c, d = e.f[g] = h\nfor i in j: pass\nwith k as (l, m): pass\n",
    "match and comprehensions": "match p:\n    case {'k': v, **rest} if v > 0:\n        pass\n"
                                "w = {x: y for x, y in z if not x}\nlambda a, *b, c=1, **d: (e := a)\n",
    "None in a list field": "d = {**a, 'k': 1}\ndef f(*, a, b=2) -> None: global g; return f'{a!r:>{b}}'\n",
    "imports, try, raise": "import a.b as c\nfrom . import (d, e as f)\ntry:\n    raise X from None\n"
                           "except* (A, B) as err:\n    pass\n",
}


def _cases() -> list[tuple[str, str]]:
    return [*SAMPLES.items(), *((p.name, p.read_text(encoding="utf-8")) for p in sorted(SRC.glob("*.py"))[:12])]


@pytest.mark.parametrize(("name", "text"), _cases(), ids=[n for n, _ in _cases()])
def test_walk_is_ast_walk_without_contexts_and_operators(name: str, text: str) -> None:
    tree = ast.parse(text)
    expected = [n for n in ast.walk(tree) if not isinstance(n, LEAVES)]
    assert [id(n) for n in walk(tree)] == [id(n) for n in expected]
    for node in expected:
        assert children(node) == [n for n in ast.iter_child_nodes(node) if not isinstance(n, LEAVES)]


KIND_SETS = [(ast.Call,), (ast.Call, ast.Dict, ast.Compare), (ast.Name,), (ast.Constant, ast.JoinedStr),
             (ast.stmt,), (ast.expr,), (ast.Raise, ast.arguments)]


@pytest.mark.parametrize(("name", "text"), _cases(), ids=[n for n, _ in _cases()])
def test_nodes_of_finds_what_walk_finds_of_those_kinds(name: str, text: str) -> None:
    tree = ast.parse(text)
    for kinds in KIND_SETS:
        for roots in ([tree], tree.body, tree.body[1:2]):
            expected = sorted(id(n) for root in roots for n in walk(root) if isinstance(n, kinds))
            assert sorted(id(n) for n in nodes_of(roots, kinds)) == expected, kinds


def test_nodes_of_finds_a_node_of_a_class_the_parser_does_not_make() -> None:
    """A tree some tool built may hold a subclass of a parser's class: it is found as its base is, and read."""

    class MyCall(ast.Call):
        pass

    tree = ast.parse("f(g(x), {'code': h(1)})")
    outer = tree.body[0].value   # type: ignore[attr-defined]
    built = MyCall(func=outer.func, args=outer.args, keywords=[])
    tree.body[0].value = built   # type: ignore[attr-defined]
    found = nodes_of([tree], (ast.Call,))
    assert sorted(map(id, found)) == sorted(map(id, [built, built.args[0], built.args[1].values[0]]))
    assert nodes_of([tree], (MyCall,)) == [built]
    leaf = built.args[0].args[0]
    assert nodes_of([leaf], (ast.Name,)) == [leaf]   # a leaf given as a root
    assert nodes_of([leaf], (ast.Call,)) == []


def test_every_node_class_the_parser_makes_has_its_fields_read_from_its_signature() -> None:
    from reply_audit.facts.walking import _shape

    deprecated = {"Num", "Str", "Bytes", "NameConstant", "Ellipsis", "Index", "ExtSlice", "Suite", "Param",
                  "AugLoad", "AugStore"}
    kinds = [c for c in vars(ast).values() if isinstance(c, type) and issubclass(c, ast.AST) and c._fields]
    assert [c.__name__ for c in kinds if _shape(c) is None and c.__name__ not in deprecated] == []
    assert _shape(ast.Call) == (("func", False), ("args", True), ("keywords", True))
    assert _shape(ast.Name) == ()   # `id` is a name, `ctx` a context


def test_the_leaves_left_out_are_still_read_from_their_parent() -> None:
    tree = ast.parse("x = a + b\n")
    kinds = [type(n).__name__ for n in walk(tree)]
    assert kinds == ["Module", "Assign", "Name", "BinOp", "Name", "Name"]
    binop = tree.body[0].value   # type: ignore[attr-defined]
    assert isinstance(binop.op, ast.Add) and isinstance(binop.left.ctx, ast.Load)


def test_source_text_is_unparse_and_writes_a_number_python_will_not_print_as_dots() -> None:
    from reply_audit.facts.walking import source_text

    node = ast.parse("def f(x: int = 0x10) -> dict[str, int]: ...").body[0]
    assert isinstance(node, ast.FunctionDef) and node.returns is not None
    assert source_text(node.returns) == ast.unparse(node.returns) == "dict[str, int]"
    huge = ast.parse("(0x" + "f" * 4000 + " + 1, True, 2)", mode="eval").body
    with pytest.raises(ValueError):
        ast.unparse(huge)                                   # more than 4,300 decimal digits
    assert source_text(huge) == "(... + 1, True, 2)"
    with pytest.raises(ValueError):
        ast.unparse(huge)                                   # the node itself is left as it was
