"""Walking a syntax tree: `walk` and `children` give what `ast.walk` and `ast.iter_child_nodes` give, in the same
order, but for the expression contexts and operators (`Load`, `Store`, `Add`, `Eq`, `And`, …): leaves that every
name, attribute and operation holds, which nothing here walks to (a check reads them from their parent,
`node.ctx`, `node.op`).

It is faster than `ast.walk` because it reads only the fields that can hold a node. Each node class's fields
are read once from its grammar signature (`Call(expr func, expr* args, keyword* keywords)`): a name, a string,
a number or a constant is never a node, `*` is a list. A class whose signature does not parse is read field by
field, as `ast.iter_child_nodes` reads it. Extraction walks every tree many times.
"""

from __future__ import annotations

import ast
import copy
import re
from collections import deque
from collections.abc import Iterator

_AST = ast.AST
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})   # expr_context, operator, boolop, unaryop, cmpop: no children
_NOT_NODES = frozenset({"identifier", "string", "int", "constant", "bytes", "object", "singleton"})
_FIELD = re.compile(r"(\w+)([*?]*) (\w+)")
_SHAPES: dict[type, tuple[tuple[str, bool], ...] | None] = {}   # class -> (field, is a list) of its node fields


def _shape(kind: type) -> tuple[tuple[str, bool], ...] | None:
    """The fields of KIND that can hold nodes, each with whether it is a list; None when its signature does
    not name every field (read it field by field)."""
    names = tuple(getattr(kind, "_fields", ()))
    doc = kind.__doc__ or ""
    found = {name: (typ, marks) for typ, marks, name in _FIELD.findall(doc.partition("(")[2])}
    if set(found) != set(names):
        return None
    return tuple((name, "*" in found[name][1]) for name in names
                 if found[name][0] not in _NOT_NODES and name not in _LEAF_FIELDS)


def _read_all(node: ast.AST) -> list[ast.AST]:
    out: list[ast.AST] = []
    for name in node._fields:
        if name in _LEAF_FIELDS:
            continue
        field = getattr(node, name, None)
        if isinstance(field, _AST):
            out.append(field)
        elif isinstance(field, list):
            out.extend([item for item in field if isinstance(item, _AST)])
    return out


def children(node: ast.AST) -> list[ast.AST]:
    """The direct child nodes of NODE, in field order (as `ast.iter_child_nodes`, without contexts and
    operators)."""
    kind = node.__class__
    try:
        shape = _SHAPES[kind]
    except KeyError:
        shape = _SHAPES[kind] = _shape(kind)
    if shape is None:
        return _read_all(node)
    out: list[ast.AST] = []
    for name, many in shape:
        field = getattr(node, name, None)
        if field is None:
            continue
        if many:
            out.extend(filter(None, field))   # a node is never false; `{**d}` has a None key
        else:
            out.append(field)
    return out


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """NODE and every node below it, breadth first (as `ast.walk`, without contexts and operators). `children`
    is written out here: this loop runs for every node of every walk, a third of the extraction."""
    todo = deque([node])
    pop, append, extend = todo.popleft, todo.append, todo.extend
    shapes = _SHAPES
    while todo:
        node = pop()
        kind = node.__class__
        try:
            shape = shapes[kind]
        except KeyError:
            shape = shapes[kind] = _shape(kind)
        if shape is None:
            extend(_read_all(node))
        else:
            for name, many in shape:
                field = getattr(node, name, None)
                if field is None:
                    continue
                if many:
                    extend(filter(None, field))
                else:
                    append(field)
        yield node


def source_text(node: ast.AST) -> str:
    """NODE as source (`ast.unparse`), each integer too long for this Python to print written as `...`."""
    try:
        return ast.unparse(node)
    except ValueError:   # "Exceeds the limit (4300 digits) for integer string conversion"
        pass
    shown = copy.deepcopy(node)
    for sub in walk(shown):
        if isinstance(sub, ast.Constant) and isinstance(sub.value, int) and not isinstance(sub.value, bool):
            try:
                repr(sub.value)
            except ValueError:
                sub.value = ...
    return ast.unparse(shown)
