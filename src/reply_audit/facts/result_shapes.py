"""The shapes of returned dicts, for profiles with a [result] envelope (the IAR dialect): every dotted key of a
returned literal and its kind, a dict grown key by key before it is returned, helpers that fill keys."""

from __future__ import annotations

import ast
from typing import Any

from .expressions import _describe, _dict_pairs, _literal_node
from .registries import last_name, str_value
from .scopes import _Function


class ResultShapeReader:
    """A part of the one walk (`extract.FactsExtractor` derives from it)."""

    key_aliases: dict[str, str]
    result_helpers: dict[str, dict[str, Any]]

    def _grow_result(self, target: ast.expr, value: ast.expr, fn: _Function) -> None:
        """`result["reflection"] = {...}` on a dict the handler holds: one more key of what it may return."""
        if not (isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name)):
            return
        name, key = target.value.id, str_value(target.slice)
        held = fn.value_kinds.get(name)
        if key is None or held is None or held[0] != "dict":
            return
        if key not in held[2]:
            held[2].append(key)
        shape = fn.value_shapes.setdefault(name, {})
        for path in [p for p in shape if p == key or p.startswith(key + ".")]:
            del shape[path]
        shape[key] = _describe(value)
        self._shape_into(value, key + ".", shape, 1)

    def _shape(self, value: ast.expr) -> dict[str, list[Any]]:
        """The dotted keys of a dict literal (nested dicts and result helpers' arguments too), each with
        [kind, literal value]."""
        out: dict[str, list[Any]] = {}
        self._shape_into(value, "", out, 0)
        return out

    def _shape_into(self, value: ast.expr, prefix: str, out: dict[str, list[Any]], depth: int) -> None:
        if depth > 3:
            return
        found = _dict_pairs(value)
        if found is not None:
            pairs, spread = found
            if spread:   # `{**base, ...}`: keys not known statically
                out[prefix + "**"] = ["spread", None]
        elif isinstance(value, ast.Call) and (helper := last_name(value.func)) is not None \
                and helper in self.result_helpers:
            spec = self.result_helpers[helper]
            names = list(spec.get("positional", []))
            renames = dict(spec.get("keywords", {}))
            pairs = [(names[i], arg) for i, arg in enumerate(value.args[:len(names)])]
            pairs += [(renames.get(kw.arg, kw.arg), kw.value) for kw in value.keywords if kw.arg]
            pairs += [(k, _literal_node(v)) for k, v in spec.get("fills", {}).items()
                      if k not in {p for p, _ in pairs}]
        else:
            return
        for key, sub in pairs:
            if key is None:
                continue
            if prefix + key in self.key_aliases:   # `iar`, an older name of `reflection` (same parent)
                key = self.key_aliases[prefix + key].rpartition(".")[2]
            out[prefix + key] = _describe(sub)
            self._shape_into(sub, f"{prefix}{key}.", out, depth + 1)
