"""Walking a syntax tree: `walk` and `children` give exactly what `ast.walk` and `ast.iter_child_nodes` give, in
the same order, about 1.7 times as fast (no generator per node and per field). Extraction walks every tree many
times; a cold scan spends a fifth of its time in these two."""

from __future__ import annotations

import ast
from collections import deque
from collections.abc import Iterator

_AST = ast.AST


def children(node: ast.AST) -> list[ast.AST]:
    """The direct child nodes of NODE, in field order (as `ast.iter_child_nodes`)."""
    out: list[ast.AST] = []
    for name in node._fields:
        try:
            field = getattr(node, name)
        except AttributeError:
            continue
        if isinstance(field, _AST):
            out.append(field)
        elif isinstance(field, list):
            out.extend([item for item in field if isinstance(item, _AST)])
    return out


def walk(node: ast.AST) -> Iterator[ast.AST]:
    """NODE and every node below it, breadth first (as `ast.walk`)."""
    todo = deque([node])
    pop, extend = todo.popleft, todo.extend
    while todo:
        node = pop()
        extend(children(node))
        yield node
