"""Recognising registry and mapping definitions in assignments and class bodies.

A registry is any collection that *defines* codes: a dict keyed by codes, a
list/tuple of constructor calls carrying a code, a class (or Enum) whose
attributes are such calls or code strings, a run of module constants, or a
`Literal[...]` alias. A mapping table is a dict from legacy codes to canonical
codes. These functions look at one node and say what it defines; they never
walk a whole tree.
"""

from __future__ import annotations

import ast

from ..profile import Profile
from .model import CodeDef, MappingEntry, MappingFact, RegistryFact
from .walking import walk

ENUM_BASES = frozenset({"Enum", "StrEnum", "IntEnum", "Flag"})


def dotted_name(node: ast.AST) -> str | None:
    """`a.b.c` for a Name/Attribute chain, else None."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if isinstance(node, ast.Name):
        parts.append(node.id)
        return ".".join(reversed(parts))
    return None


def last_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return None


def _span(node: ast.expr | ast.stmt) -> list[int]:
    return [node.lineno, node.col_offset, node.end_lineno or node.lineno, node.end_col_offset or node.col_offset]


def _bound_names(node: ast.ClassDef) -> set[str]:
    """Every name a class body binds: assignments, functions, nested classes, imports."""
    names: set[str] = set()
    for stmt in node.body:
        targets: list[ast.AST] = []
        if isinstance(stmt, ast.Assign):
            targets = list(stmt.targets)
        elif isinstance(stmt, (ast.AnnAssign, ast.AugAssign)):
            targets = [stmt.target]
        elif isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(stmt.name)
        elif isinstance(stmt, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in stmt.names)
        for target in targets:
            names.update(n.id for n in walk(target) if isinstance(n, ast.Name))
    return names


def str_value(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


class RegistryReader:
    """Answers "does this node define codes?" for one profile."""

    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.min_codes = int(profile.setting("registries", "min_codes"))
        self.code_keywords = frozenset(profile.setting("registries", "code_keywords"))
        self.layer_keywords = frozenset(profile.setting("registries", "layer_keywords"))
        self.type_keywords = frozenset(profile.setting("registries", "type_keywords"))
        self.table_names = profile.mapping_table_names
        self.by_shape = bool(profile.setting("mappings", "detect_by_shape"))
        self.retired = profile.retired_values

    # -- single entries ---------------------------------------------------------
    def _literal_or_member(self, node: ast.AST) -> str | None:
        """A literal string, or the member name of `Layer.WA`-style references."""
        text = str_value(node)
        if text is not None:
            return text
        if isinstance(node, ast.Attribute):
            return node.attr
        return None

    def code_of_call(self, call: ast.Call) -> CodeDef | None:
        """The code a constructor call carries (`code=` keyword or first positional string)."""
        code = None
        layer = rtype = None
        for kw in call.keywords:
            if kw.arg in self.code_keywords:
                code = str_value(kw.value)
            elif kw.arg in self.layer_keywords:
                layer = self._literal_or_member(kw.value)
            elif kw.arg in self.type_keywords:
                rtype = self._literal_or_member(kw.value)
        if code is None and call.args:
            code = str_value(call.args[0])
        if code is None or not self.profile.is_code(code):
            return None
        parts = {code, *self.profile.layers, *self.profile.areas, *self.profile.type_letters}
        words = [text for node in [*call.args, *(kw.value for kw in call.keywords)]
                 if (text := str_value(node)) is not None and text not in parts]
        return CodeDef(code=code, line=call.lineno, declared_layer=layer, declared_type=rtype,
                       text=" ".join(words)[:500])

    # -- whole values -----------------------------------------------------------
    def from_value(self, name: str, value: ast.AST, line: int) -> RegistryFact | MappingFact | None:
        """What an assignment `name = value` at module or class level defines."""
        if isinstance(value, ast.Dict):
            return self._from_dict(name, value, line)
        if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
            codes = []
            for elt in value.elts:
                if isinstance(elt, ast.Call):
                    found = self.code_of_call(elt)
                    if found:
                        codes.append(found)
            if len(codes) >= self.min_codes:
                style = "tuple" if isinstance(value, ast.Tuple) else "list"
                return RegistryFact(name=name, line=line, style=style, codes=codes)
            return None
        if isinstance(value, ast.Subscript) and last_name(value.value) == "Literal":
            elts = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
            members = name in self.profile.member_registries
            codes = [
                CodeDef(code=s, line=e.lineno)
                for e in elts
                if (s := str_value(e)) is not None and (members or self.profile.is_code(s))
            ]
            if len(codes) >= (1 if members else self.min_codes):
                return RegistryFact(name=name, line=line, style="literal", codes=codes)
        return None

    def _mapping_value(self, node: ast.AST | None) -> tuple[bool, str | None, str | None]:
        """(usable, canonical, reference) for one mapping value."""
        if node is None or (isinstance(node, ast.Constant) and node.value is None):
            return True, None, None
        text = str_value(node)
        if text is not None:
            if text == "" or text in self.retired:
                return True, None, None
            return True, text, None
        ref = dotted_name(node)
        if ref is not None:  # Codes.WA_RES_I_001 or Codes.WA_RES_I_001.code
            return True, None, ref
        return False, None, None

    def _from_dict(self, name: str, node: ast.Dict, line: int) -> RegistryFact | MappingFact | None:
        keyed = [(k, v) for k, v in zip(node.keys, node.values) if k is not None]
        code_keys = [(k, v) for k, v in keyed if (s := str_value(k)) is not None and self.profile.is_code(s)]
        named_table = name in self.table_names
        if named_table or (self.by_shape and len(code_keys) >= self.min_codes):
            values = [self._mapping_value(v) for _, v in code_keys]
            shaped = values and all(ok for ok, _, _ in values) and all(
                canonical is None or self.profile.is_code(canonical) for _, canonical, _ in values
            ) and any(canonical is not None for _, canonical, _ in values)
            if named_table or shaped:
                entries = []
                for k, v in (keyed if named_table else code_keys):
                    key = str_value(k)
                    if key is None:
                        continue
                    ok, canonical, ref = self._mapping_value(v)
                    if not ok:
                        continue
                    entries.append(MappingEntry(legacy=key, canonical=canonical, line=k.lineno, canonical_ref=ref,
                                                value_span=_span(v) if canonical else None))
                return MappingFact(name=name, line=line, entries=entries)
        if len(code_keys) >= self.min_codes and 2 * len(code_keys) >= len(keyed):
            codes = []
            for k, v in code_keys:
                found = self.code_of_call(v) if isinstance(v, ast.Call) else None
                codes.append(CodeDef(
                    code=str_value(k) or "",
                    line=k.lineno,
                    declared_layer=found.declared_layer if found else None,
                    declared_type=found.declared_type if found else None,
                    text=found.text if found else (str_value(v) or "")[:500],
                ))
            return RegistryFact(name=name, line=line, style="dict", codes=codes)
        return None

    def mapping_item(self, target: ast.Subscript, value: ast.expr) -> MappingEntry | None:
        """`TABLE["OLD"] = "NEW"` adds one entry to a mapping table."""
        key = str_value(target.slice)
        if key is None:
            return None
        ok, canonical, ref = self._mapping_value(value)
        if not ok:
            return None
        return MappingEntry(legacy=key, canonical=canonical, line=target.lineno, canonical_ref=ref,
                            value_span=_span(value) if canonical else None)

    def from_class(self, node: ast.ClassDef) -> tuple[RegistryFact | None, set[int]]:
        """A class or Enum whose attributes define codes; also the ids of the defining statements."""
        codes: list[CodeDef] = []
        used: set[int] = set()
        members = node.name in self.profile.member_registries
        for stmt in node.body:
            if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1:
                target, value = stmt.targets[0], stmt.value
            elif isinstance(stmt, ast.AnnAssign) and stmt.value is not None:
                target, value = stmt.target, stmt.value
            else:
                continue
            if not isinstance(target, ast.Name):
                continue
            if members and target.id.startswith("_") and target.id.endswith("_"):
                continue   # Enum settings such as `_ignore_`, not members
            found: CodeDef | None = None
            if members:   # an Enum whose members are the codes: the string value, else the member name
                found = CodeDef(code=str_value(value) or target.id, line=value.lineno)
            elif isinstance(value, ast.Call):
                found = self.code_of_call(value)
            else:
                text = str_value(value)
                if text is not None and self.profile.is_code(text):
                    found = CodeDef(code=text, line=value.lineno)
            if found:
                found.attr = target.id
                found.line = stmt.lineno
                codes.append(found)
                used.add(id(stmt))
        if len(codes) < (1 if members else self.min_codes):
            return None, set()
        bases = {last_name(b) for b in node.bases}
        style = "enum" if bases & ENUM_BASES else "class"
        known_bases = not (bases - ENUM_BASES - {"object", "str", "int"}) and not node.keywords
        return RegistryFact(name=node.name, line=node.lineno, style=style, codes=codes,
                            names=sorted(_bound_names(node)) if known_bases else None), used
