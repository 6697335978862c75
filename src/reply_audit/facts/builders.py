"""Recognising builder classes and what they enforce.

A builder is a class with at least `[builder] min-methods` canonical builder
methods (a logger's `info`/`error`/`warn` is not a builder); its forbidden
methods are recorded beside them. Instance methods make a `builder`; classmethods or
staticmethods only (a Reply class with factories) make a `factory`. For each we
read, from the class body alone: which methods exist, whether it references a
code-format or layer-ownership validator (names from the profile, or an
explicit `layer == "WA" and type == "D"` style test) — not when a method of the
class is passed the reply type (`self._check(code, "D")`) and never reads that
parameter: the check then cannot compare the code with the reply it builds —
and whether it has a frozen terminal state (a terminal method sets `self.X` and some method raises
under a test on `self.X`).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping

from ..profile import Profile
from .model import BuilderFact
from .signatures import signature
from .walking import walk

FACTORY_DECORATORS = frozenset({"classmethod", "staticmethod"})


def _decorator_names(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    out = set()
    for dec in fn.decorator_list:
        target = dec.func if isinstance(dec, ast.Call) else dec
        if isinstance(target, ast.Name):
            out.add(target.id)
        elif isinstance(target, ast.Attribute):
            out.add(target.attr)
    return out


def type_dropped(node: ast.ClassDef, letters: frozenset[str]) -> str | None:
    """`helper(param)` when a method of class NODE is called as `self.helper(..., "D")` with a reply-type letter
    and never reads the parameter that receives it (the reply's type is dropped on the way to validation)."""
    defs = {s.name: s for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
    for sub in walk(node):
        if not (isinstance(sub, ast.Call) and (name := _self_attr(sub.func)) in defs):
            continue
        fn = defs[name]
        params = [a.arg for a in (*fn.args.posonlyargs, *fn.args.args)][1:]   # after self
        passed = [(params[i] if i < len(params) else None, v) for i, v in enumerate(sub.args)]
        passed += [(kw.arg, kw.value) for kw in sub.keywords]
        read = {n.id for n in walk(fn) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
        for param, value in passed:
            if param and isinstance(value, ast.Constant) and value.value in letters and param not in read:
                return f"{name}({param})"
    return None


def _self_attr(node: ast.AST) -> str | None:
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "self":
        return node.attr
    return None


class BuilderReader:
    def __init__(self, profile: Profile) -> None:
        self.profile = profile
        self.method_names = profile.all_builder_methods
        self.min_methods = int(profile.setting("builder", "min_methods"))
        self.format_markers = frozenset(profile.builder_list("format_validators"))
        self.layer_markers = frozenset(profile.builder_list("layer_validators"))
        self.layer_names = frozenset(profile.layers)
        self.type_letters = frozenset(profile.type_letters)
        self.terminal_methods = frozenset(
            m for m in self.method_names if profile.method_type(m) in profile.terminal_types
        )

    def canonical_count(self, methods: Mapping[str, object]) -> int:
        """Only canonical method names make a builder: a logger's info/error/warn does not."""
        return sum(1 for name in methods if name in self.profile.builder_methods)

    def methods_of(self, node: ast.ClassDef) -> dict[str, ast.FunctionDef | ast.AsyncFunctionDef]:
        return {
            s.name: s
            for s in node.body
            if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name in self.method_names
        }

    def is_builder(self, node: ast.ClassDef) -> bool:
        return self.canonical_count(self.methods_of(node)) >= self.min_methods

    def read(self, node: ast.ClassDef, qualname: str, nested_in: str | None) -> BuilderFact | None:
        methods = self.methods_of(node)
        if self.canonical_count(methods) < self.min_methods:
            return None
        factory = all(_decorator_names(fn) & FACTORY_DECORATORS for fn in methods.values())
        refs: set[str] = set()
        explicit_layer_test = False
        frozen_attrs: set[str] = set()
        guarded_attrs: set[str] = set()
        for sub in walk(node):
            if isinstance(sub, ast.Name):
                refs.add(sub.id)
            elif isinstance(sub, ast.Attribute):
                refs.add(sub.attr)
            elif isinstance(sub, ast.BoolOp) and isinstance(sub.op, ast.And):
                consts = {
                    c.value
                    for cmp in sub.values if isinstance(cmp, ast.Compare)
                    for c in [cmp.left, *cmp.comparators]
                    if isinstance(c, ast.Constant) and isinstance(c.value, str)
                }
                if consts & self.layer_names and consts & self.type_letters:
                    explicit_layer_test = True
            elif isinstance(sub, ast.If) and any(isinstance(s, ast.Raise) for s in walk(sub)):
                guarded_attrs.update(a for t in walk(sub.test) if (a := _self_attr(t)))
        dropped = type_dropped(node, self.type_letters)
        for name in self.terminal_methods & set(methods):
            for sub in walk(methods[name]):
                if isinstance(sub, ast.Assign) and not (
                    isinstance(sub.value, ast.Constant) and sub.value.value in (None, False)
                ):
                    frozen_attrs.update(a for t in sub.targets if (a := _self_attr(t)))
        return BuilderFact(
            name=node.name,
            qualname=qualname,
            line=node.lineno,
            kind="factory" if factory else "builder",
            methods={name: fn.lineno for name, fn in sorted(methods.items())},
            nested_in=nested_in,
            validates_format=bool(refs & self.format_markers),
            validates_layer=(bool(refs & self.layer_markers) or explicit_layer_test) and dropped is None,
            type_ignored_by=dropped,
            frozen_after_terminal=bool(frozen_attrs & guarded_attrs),
            init=next((signature(s, method=True) for s in node.body
                       if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef)) and s.name == "__init__"), None),
            signatures={name: signature(fn, method=True) for name, fn in sorted(methods.items())},
        )
