"""Handlers named by registration rather than by decorator: register calls (`register_action("search", fn)`),
dispatch functions (an if/elif chain or `match` on the tool's name) and dispatch tables (`TOOLS = {"name": fn}`).

A part of the one walk (`extract.FactsExtractor` derives from it); it records `RegistrationFact`s.
"""

from __future__ import annotations

import ast

from .expressions import _assigned_names, _dispatched, _names_matched, _names_tested, _tested_name, class_like
from .model import FileFacts, RegistrationFact
from .registries import dotted_name, str_value
from .scopes import _Ctx


class RegistrationReader:
    """The registration half of the walk; the extractor sets these settings from the profile's [handlers]."""

    facts: FileFacts
    register_function_keywords: frozenset[str]
    register_function_position: int
    register_name_keywords: frozenset[str]
    register_name_position: int

    def _registration(self, node: ast.Call, via: str, ctx: _Ctx) -> None:
        """`register_action("name", fn)`: the function at the configured place is a handler. A wrapped
        function (`register_action("x", trace(fn))`) is unwrapped; a parameter passed on (a registry's own
        forwarding method) is no registration."""
        target = None
        for kw in node.keywords:
            if kw.arg in self.register_function_keywords:
                target = kw.value
        if target is None and 0 <= self.register_function_position < len(node.args):
            target = node.args[self.register_function_position]
        name_node = node.args[self.register_name_position] \
            if 0 <= self.register_name_position < len(node.args) else None
        for kw in node.keywords:
            if kw.arg in self.register_name_keywords:
                name_node = kw.value
        for _ in range(3):
            if isinstance(target, ast.Call) and target.args and not isinstance(target.func, ast.Call):
                target = target.args[0]
        ref = dotted_name(target) if target is not None else None
        fn = ctx.function
        if ref and fn is not None and fn.args is not None and "." not in ref and ref in {
                a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)}:
            return
        if ref is None and isinstance(target, ast.Lambda):
            ref = "<lambda>"
        receiver = None
        if ref and "." in ref and ref.split(".")[0] not in ("self", "cls"):
            head = ref.split(".")[0]
            bound = next((scope.bindings[head] for scope in reversed(ctx.functions) if head in scope.bindings), None)
            if bound is not None:
                receiver = bound[0] if class_like(bound[0]) else ""
            elif any(head in _assigned_names(scope.body) for scope in ctx.functions):
                receiver = ""   # bound in the function to something that is not a construction
        if ref:
            self.facts.registrations.append(RegistrationFact(name=str_value(name_node), target=ref,
                                                             line=node.lineno, via=via,
                                                             scope=fn.qualname if fn is not None else None,
                                                             receiver=receiver))

    def _dispatch_branches(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """`if name == "search": return await handle_search(args)` (an if/elif chain or a `match` on a name, in a
        [handlers] dispatch-functions function): the branch's returned call is a handler registered under the
        literal name. A branch that returns no call registers nothing."""
        params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)} - {"self", "cls"}
        stack = list(node.body)   # the function's own statements, and the elif/else of its chains: never a test
        subject = None            # nested inside a branch (`if mode == "fast"` there dispatches nothing); the
        while stack:              # first parameter tested is the name dispatched on (`elif mode == …` is not)
            sub = stack.pop(0)
            if isinstance(sub, ast.If):
                names = _names_tested(sub.test, {subject} if subject else params)
                if names:
                    subject = subject or _tested_name(sub.test)
                    self._dispatch_branch(node.name, names, sub.body)
                stack[:0] = sub.orelse
            elif isinstance(sub, ast.Match) and isinstance(sub.subject, ast.Name) \
                    and sub.subject.id in ({subject} if subject else params):
                subject = sub.subject.id
                for case in sub.cases:
                    self._dispatch_branch(node.name, _names_matched(case.pattern), case.body)
            elif isinstance(sub, (ast.Try, ast.With, ast.AsyncWith)):
                stack[:0] = sub.body

    def _dispatch_branch(self, via: str, names: list[str], body: list[ast.stmt]) -> None:
        for stmt in body:
            value = stmt.value if isinstance(stmt, ast.Return) else None
            if isinstance(value, ast.Await):
                value = value.value
            target = _dispatched(value) if isinstance(value, ast.Call) else None
            if target is not None and names:
                ref, line = target
                for name in names:
                    self.facts.registrations.append(RegistrationFact(name=name, target=ref, line=line,
                                                                     via=via, kind="table"))
                return

    def _dispatch_table(self, table: str, value: ast.expr, line: int) -> bool:
        """`TOOLS = {"name": fn, ...}`: every function value is a handler."""
        if not isinstance(value, ast.Dict):
            return False
        for k, v in zip(value.keys, value.values):
            ref = dotted_name(v)
            if k is not None and ref:
                self.facts.registrations.append(RegistrationFact(name=str_value(k), target=ref, line=v.lineno,
                                                                 via=table, kind="table"))
        return True
