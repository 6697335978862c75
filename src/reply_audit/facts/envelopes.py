"""The transport envelope a Reply class's serializer (`to_dict()` ...) emits: its keys, nested serializers
followed."""

from __future__ import annotations

import ast

from .expressions import FUNCTIONS, _annotation_class, _iter_block
from .model import EnvelopeFact, FileFacts
from .registries import dotted_name, last_name, str_value
from .walking import walk


class EnvelopeReader:
    """A part of the one walk (`extract.FactsExtractor` derives from it)."""

    facts: FileFacts
    serializers: frozenset[str]

    def _envelope(self, node: ast.ClassDef) -> None:
        """Keys that serializer methods (`to_dict()` ...) of this class return."""
        fields = {}
        for stmt in node.body:
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                fields[stmt.target.id] = _annotation_class(stmt.annotation) or ""
        for stmt in node.body:
            if not isinstance(stmt, FUNCTIONS) or stmt.name not in self.serializers:
                continue
            keys: list[str] = []
            nested: dict[str, str] = {}
            built: dict[str, ast.Dict] = {}
            for sub in _iter_block(stmt.body):
                if isinstance(sub, ast.Assign) and len(sub.targets) == 1:
                    target = sub.targets[0]
                    if isinstance(target, ast.Name) and isinstance(sub.value, ast.Dict):
                        built[target.id] = sub.value
                        self._dict_keys(sub.value, fields, keys, nested)
                    elif isinstance(target, ast.Subscript) and dotted_name(target.value) in built:
                        key = str_value(target.slice)
                        if key is not None and key not in keys:
                            keys.append(key)
                            self._nested(key, sub.value, fields, nested)
                elif isinstance(sub, ast.Return) and sub.value is not None:
                    value = sub.value
                    if isinstance(value, ast.Dict):
                        self._dict_keys(value, fields, keys, nested)
                    elif isinstance(value, ast.Call) and last_name(value.func) == "asdict":
                        keys.extend(k for k in fields if k not in keys)
            if keys:
                self.facts.envelopes.append(EnvelopeFact(cls=node.name, method=stmt.name, line=stmt.lineno,
                                                         keys=keys, nested=nested, fields=fields))

    def _dict_keys(self, node: ast.Dict, fields: dict[str, str], keys: list[str], nested: dict[str, str],
                   prefix: str = "") -> None:
        for k, v in zip(node.keys, node.values):
            key = str_value(k) if k is not None else None
            if key is not None and prefix + key not in keys:
                keys.append(prefix + key)
                if isinstance(v, ast.Dict) and prefix.count(".") < 2:
                    self._dict_keys(v, fields, keys, nested, f"{prefix}{key}.")
                else:
                    self._nested(prefix + key, v, fields, nested)

    @staticmethod
    def _nested(key: str, value: ast.expr, fields: dict[str, str], nested: dict[str, str]) -> None:
        """`self.meta.to_dict()` (possibly `... if self.meta else None`) fills KEY from the meta class."""
        for sub in walk(value):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute):
                owner = sub.func.value
                if isinstance(owner, ast.Attribute) and isinstance(owner.value, ast.Name) \
                        and owner.value.id == "self" and fields.get(owner.attr):
                    nested[key] = fields[owner.attr]
                    return
