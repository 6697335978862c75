"""What the code says a migration may write: function signatures and what a safety wrapper does.

`signature(fn)` reads a def's parameters and return annotation, so a codemod
can check a call before writing it (does `ReplyBuilder.__init__` require
`trace_info`? does `success()` take `message=`? what type does it return?).

`read_wrapper(fn, ...)` classifies a safety decorator by what it does with a
handler result that is not a reply (plan 001 phase 1):

* `passthrough`: returns it as it is;
* `autowrap`: wraps it in a Success (plan 001's legacy auto-wrap, `MCP-SYS-S-900`);
* `reject`: turns it into an Error or Invalid (or raises): a handler that still returns raw
  dicts fails on every call once wrapped;
* `unknown`: nothing conclusive (the result is used without a check, or the branch is opaque).

The evidence is the branch taken when `isinstance(result, ReplyClass)` is false
(or `isinstance(result, dict)` is true): the reply types its builder calls,
reply constructions and code literals name, and whether it raises.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Container, Iterator

from .model import Signature, WrapperFact
from .registries import dotted_name, last_name, str_value
from .walking import source_text, walk

FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_DICT_ANNOTATION = re.compile(r"^(?:typing\.)?(?:dict|Dict|Mapping|MutableMapping)\b")


def is_dict_annotation(annotation: str | None) -> bool:
    """Does a return annotation (as written) say the function returns a dict?"""
    return annotation is not None and _DICT_ANNOTATION.match(annotation.strip("'\"")) is not None


def signature(fn: ast.FunctionDef | ast.AsyncFunctionDef, method: bool) -> Signature:
    """The parameters of FN (without `self`/`cls` when METHOD) and its return annotation as written."""
    args = fn.args
    positional = [*args.posonlyargs, *args.args]
    if method and positional and not _is_static(fn):
        positional = positional[1:]
    defaults = len(args.defaults)
    required = [a.arg for a in positional[:len(positional) - defaults]] if defaults else [a.arg for a in positional]
    required += [a.arg for a, d in zip(args.kwonlyargs, args.kw_defaults) if d is None]
    return Signature(params=[a.arg for a in positional], required=required,
                     keyword_only=[a.arg for a in args.kwonlyargs],
                     var_positional=args.vararg is not None, var_keyword=args.kwarg is not None,
                     returns=source_text(fn.returns) if fn.returns is not None else None)


def _is_static(fn: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(last_name(d) == "staticmethod" for d in fn.decorator_list)


def read_wrapper(fn: ast.FunctionDef | ast.AsyncFunctionDef, reply_classes: Container[str],
                 method_type: Callable[[str], str | None], code_type: Callable[[str], str | None]) -> WrapperFact:
    """Classify the decorator FN by what it does with a non-reply result of the function it wraps."""
    fact = WrapperFact(name=fn.name, line=fn.lineno, behaviour="unknown",
                       requires=_required_return(fn.args.args[0].annotation) if fn.args.args else None)
    wrapped = fn.args.args[0].arg if fn.args.args else None
    inner = next((s for s in walk(fn) if isinstance(s, FUNCTIONS) and s is not fn), None)
    scope = inner if inner is not None else fn
    if wrapped is None:
        fact.detail = "it takes no function argument"
        return fact
    if any(isinstance(s, ast.Return) and isinstance(s.value, ast.Name) and s.value.id == wrapped for s in fn.body):
        fact.behaviour, fact.detail = "passthrough", f"it returns {wrapped} itself"
        return fact
    results = _result_names(scope, wrapped)
    if not results and not _returns_call_of(scope, wrapped):
        fact.detail = f"it never calls {wrapped}()"
        return fact
    for node, after in _ifs(scope):
        checked = _isinstance_test(node.test, results)
        if checked is None:
            continue
        cls, negated = checked
        if cls in ("dict", "Mapping", "MutableMapping"):
            branch = node.orelse if negated else node.body
        elif cls in reply_classes or cls[:1].isupper():
            branch = node.body if negated else node.orelse
        else:
            continue
        if not branch and _ends(node.body if branch is node.orelse else node.orelse):
            branch = after   # `if isinstance(result, Reply): return ...` then the other case below it
        fact.evidence_line = node.lineno
        types = _branch_types(branch, reply_classes, method_type, code_type)
        if not branch:
            fact.behaviour, fact.detail = "unknown", f"line {node.lineno}: the check on the result has no branch " \
                                                     "for other values"
        elif types & {"I", "D", "E"} or types == {"raise"}:
            fact.behaviour = "reject"
            fact.detail = f"line {node.lineno}: a result that is not a {cls} becomes " + \
                ("an exception" if types == {"raise"} else "a reply of type " + "/".join(sorted(types - {"raise"})))
        elif types == {"S"}:
            fact.behaviour, fact.detail = "autowrap", f"line {node.lineno}: a result that is not a {cls} is " \
                                                      "wrapped as a Success"
        elif _returns_name(branch, results):
            fact.behaviour, fact.detail = "passthrough", f"line {node.lineno}: a result that is not a {cls} is " \
                                                         "returned as it is"
        else:
            fact.detail = f"line {node.lineno}: cannot tell what becomes of a result that is not a {cls}"
        return fact
    if _returns_call_of(scope, wrapped) or (_returns_name(scope.body, results, deep=True) \
            and not _used_as_object(scope, results)):
        fact.behaviour, fact.detail = "passthrough", "the result is returned without a check"
    else:
        fact.detail = "the result is used without a check of its type"
    return fact


def _required_return(annotation: ast.expr | None) -> str | None:
    """`Callable[..., Reply]` / `Callable[P, Reply]` -> "Reply"; None when any return type is accepted."""
    if not isinstance(annotation, ast.Subscript) or last_name(annotation.value) != "Callable":
        return None
    parts = annotation.slice.elts if isinstance(annotation.slice, ast.Tuple) else []
    if len(parts) != 2:
        return None
    name = source_text(parts[1]).strip("'\"")
    return None if name in ("Any", "typing.Any", "object") else name


def _ifs(scope: ast.AST) -> Iterator[tuple[ast.If, list[ast.stmt]]]:
    """Every `if` statement in SCOPE with the statements that follow it in its block."""
    for node in walk(scope):
        for name in ("body", "orelse", "finalbody"):
            block = getattr(node, name, None)
            if isinstance(block, list):
                for i, stmt in enumerate(block):
                    if isinstance(stmt, ast.If):
                        yield stmt, block[i + 1:]
        for handler in getattr(node, "handlers", []):
            for i, stmt in enumerate(handler.body):
                if isinstance(stmt, ast.If):
                    yield stmt, handler.body[i + 1:]


def _ends(block: list[ast.stmt]) -> bool:
    """Does the block always leave (its last statement returns or raises)?"""
    return bool(block) and isinstance(block[-1], (ast.Return, ast.Raise))


def _result_names(scope: ast.AST, wrapped: str) -> set[str]:
    """Names assigned from a call of the wrapped function: `result = func(*args, **kwargs)`."""
    out: set[str] = set()
    for node in walk(scope):
        if isinstance(node, ast.Assign) and isinstance(node.value, (ast.Call, ast.Await)):
            call = node.value.value if isinstance(node.value, ast.Await) else node.value
            if isinstance(call, ast.Call) and dotted_name(call.func) == wrapped:
                out.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return out


def _returns_call_of(scope: ast.AST, wrapped: str) -> bool:
    for node in walk(scope):
        if isinstance(node, ast.Return) and node.value is not None:
            value = node.value.value if isinstance(node.value, ast.Await) else node.value
            if isinstance(value, ast.Call) and dotted_name(value.func) == wrapped:
                return True
    return False


def _returns_name(body: list[ast.stmt], names: set[str], deep: bool = False) -> bool:
    nodes = (n for stmt in body for n in walk(stmt)) if deep else (
        n for stmt in body for n in walk(stmt) if not isinstance(n, FUNCTIONS))
    return any(isinstance(n, ast.Return) and isinstance(n.value, ast.Name) and n.value.id in names for n in nodes)


def _used_as_object(scope: ast.AST, names: set[str]) -> bool:
    """Is a result read as a reply (an attribute, or handed to `replace()`)? A dict would fail there."""
    for node in walk(scope):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id in names:
            return True
        if isinstance(node, ast.Call) and last_name(node.func) == "replace" and node.args \
                and isinstance(node.args[0], ast.Name) and node.args[0].id in names:
            return True
    return False


def _isinstance_test(test: ast.expr, names: set[str]) -> tuple[str, bool] | None:
    """(class name, negated) of `isinstance(result, C)` / `not isinstance(...)` on a result name."""
    negated = False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    if isinstance(test, ast.Call) and last_name(test.func) == "isinstance" and len(test.args) == 2 \
            and isinstance(test.args[0], ast.Name) and test.args[0].id in names:
        cls = last_name(test.args[1]) if not isinstance(test.args[1], ast.Tuple) else \
            last_name(test.args[1].elts[0]) if test.args[1].elts else None
        return (cls, negated) if cls else None
    return None


def _branch_types(branch: list[ast.stmt], reply_classes: Container[str], method_type: Callable[[str], str | None],
                  code_type: Callable[[str], str | None]) -> set[str]:
    """The reply types a branch builds (from methods, reply constructions and code literals), and "raise"."""
    found: set[str] = set()
    for stmt in branch:
        for node in walk(stmt):
            if isinstance(node, ast.Raise):
                found.add("raise")
            elif isinstance(node, ast.Call):
                name = last_name(node.func)
                kind = method_type(name) if isinstance(node.func, ast.Attribute) and name else None
                if kind:
                    found.add(kind)
                elif name in reply_classes and node.args and str_value(node.args[0]) is not None:
                    letter = str_value(node.args[0])
                    if letter and len(letter) == 1:
                        found.add(letter)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                kind = code_type(node.value)
                if kind:
                    found.add(kind)
    return found
