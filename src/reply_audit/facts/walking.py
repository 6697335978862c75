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
from collections.abc import Iterator, Sequence
from typing import Any, TypeVar

_AST = ast.AST
_LEAF_FIELDS = frozenset({"ctx", "op", "ops"})   # expr_context, operator, boolop, unaryop, cmpop: no children
_NOT_NODES = frozenset({"identifier", "string", "int", "constant", "bytes", "object", "singleton"})
_FIELD = re.compile(r"(\w+)([*?]*) (\w+)")
_Node = TypeVar("_Node", bound=ast.AST)
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


_NO_CHILDREN = frozenset({ast.Name, ast.Constant})   # the commonest nodes, and leaves: never pushed to be read
_OF_KINDS: dict[tuple[type, ...], dict[type, bool]] = {}   # kinds -> {class: is it one of them, or a subclass}


def nodes_of(roots: Sequence[ast.AST], kinds: tuple[type[_Node], ...]) -> list[_Node]:
    """Every node at or below ROOTS that is an instance of one of KINDS (node classes, not the deprecated
    aliases such as `ast.Str`, whose test reads the value), in no order a caller may rely on. A third of the
    cost of `walk` with a test of each node: it reads the nodes from a stack, tests a node by one look-up of its
    class, and only tests a name or a constant, never pushes and reads it."""
    wanted = _OF_KINDS.setdefault(kinds, {})   # (each class's answer, the first time it is met)
    known = wanted.keys()
    out: list[Any] = [root for root in roots if _is_of(root.__class__, wanted, kinds)]
    todo = [root for root in roots if root.__class__ not in _NO_CHILDREN]
    pop, push, found, shapes, leaves = todo.pop, todo.append, out.append, _SHAPES, _NO_CHILDREN
    while todo:
        node = pop()
        kind = node.__class__
        try:
            shape = shapes[kind]
        except KeyError:
            shape = shapes[kind] = _shape(kind)
        if shape is None:
            for child in _read_all(node):
                if _is_of(child.__class__, wanted, kinds):
                    found(child)
                if child.__class__ not in leaves:
                    push(child)
            continue
        for name, many in shape:
            field = getattr(node, name, None)
            if field is None:
                continue
            if many:
                for child in field:
                    if child is None:   # (`{**d}` has a None key)
                        continue
                    kind = child.__class__
                    if kind not in known:
                        _is_of(kind, wanted, kinds)
                    if wanted[kind]:
                        found(child)
                    if kind not in leaves:
                        push(child)
            else:
                kind = field.__class__
                if kind not in known:
                    _is_of(kind, wanted, kinds)
                if wanted[kind]:
                    found(field)
                if kind not in leaves:
                    push(field)
    return out


def _is_of(kind: type, wanted: dict[type, bool], kinds: tuple[type, ...]) -> bool:
    if kind not in wanted:
        wanted[kind] = issubclass(kind, kinds)
    return wanted[kind]


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
