"""Reading expressions and statements of one module, without scope: literals, dict shapes and texts, the
tests of ifs, exception clauses, and how a value flows from a function's parameters.

Pure functions of `ast` nodes; `extract.FactsExtractor` walks a module and asks these.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable, Iterator
from typing import Any, TypeGuard

from .registries import dotted_name, last_name, str_value
from .walking import children, source_text, walk

BROAD_EXCEPTIONS = frozenset({"Exception", "BaseException"})
_NOT_CLASSES = frozenset({"Optional", "Union", "None", "Any", "Callable", "Type", "ClassVar", "Final", "Annotated"})
TEXT_TESTS = frozenset({"startswith", "endswith", "find", "index", "count", "__contains__"})
FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_CONSTANT_NAME = re.compile(r"^_?[A-Z][A-Z0-9_]*$")
_NEWLINE = re.compile(rb"\r\n|\r|\n")
_ONE_STRING = re.compile(rb"""[rRuU]?(?:"[^"'\\\r\n]*"|'[^"'\\\r\n]*')""")


def _iter_block(body: list[ast.stmt]) -> Iterator[ast.stmt]:
    """Statements of a block, recursively, but not inside nested defs and classes."""
    stack = list(reversed(body))
    while stack:
        stmt: Any = stack.pop()   # its kind decides which blocks it has
        yield stmt
        kind = type(stmt)
        if kind in _LOOPS_AND_IFS:
            stack.extend(reversed(stmt.orelse))
            stack.extend(reversed(stmt.body))
        elif kind in _WITHS:
            stack.extend(reversed(stmt.body))
        elif kind in _TRIES:
            stack.extend(reversed(stmt.finalbody))
            stack.extend(reversed(stmt.orelse))
            for handler in reversed(stmt.handlers):
                stack.extend(reversed(handler.body))
            stack.extend(reversed(stmt.body))
        elif kind is ast.Match:
            for case in reversed(stmt.cases):
                stack.extend(reversed(case.body))


_LOOPS_AND_IFS = frozenset({ast.If, ast.For, ast.AsyncFor, ast.While})
_WITHS = frozenset({ast.With, ast.AsyncWith})
_TRIES = frozenset({ast.Try, getattr(ast, "TryStar", ast.Try)})


def _lf_only(source: bytes) -> bytes:
    """SOURCE with every line ending as `\n`, so counting `\n` counts lines as `ast` does (CR-only files too)."""
    if b"\r" not in source:
        return source
    return source.replace(b"\r\n", b"\n").replace(b"\r", b"\n")


def _is_main_guard(stmt: ast.stmt) -> bool:
    """`if __name__ == "__main__":`"""
    test = stmt.test if isinstance(stmt, ast.If) else None
    return isinstance(test, ast.Compare) and isinstance(test.left, ast.Name) and test.left.id == "__name__" \
        and any(str_value(c) == "__main__" for c in test.comparators)


def _is_type_checking(test: ast.expr) -> bool:
    return dotted_name(test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")


def _module_names(body: list[ast.stmt]) -> tuple[set[str], dict[str, str]]:
    """Names a module binds at run time at its top level (also inside top-level if/try blocks, not under
    `if TYPE_CHECKING:`), and its import aliases (`from m import x as y`: y -> x)."""
    names: set[str] = set()
    aliases: dict[str, str] = {}
    stack = list(reversed(body))
    while stack:
        stmt = stack.pop()
        if isinstance(stmt, ast.If) and _is_type_checking(stmt.test):
            stack.extend(reversed(stmt.orelse))
            continue
        if isinstance(stmt, (*FUNCTIONS, ast.ClassDef)):
            names.add(stmt.name)
            continue
        if isinstance(stmt, ast.Import):
            for a in stmt.names:
                names.add((a.asname or a.name).split(".")[0])
                if a.asname:
                    aliases[a.asname] = a.name
        elif isinstance(stmt, ast.ImportFrom):
            for a in stmt.names:
                names.add(a.asname or a.name)
                if a.asname:
                    aliases[a.asname] = a.name
        elif isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
            for target in targets:
                names.update(n.id for n in walk(target) if isinstance(n, ast.Name))
        if isinstance(stmt, _BLOCKS):
            for block in ("finalbody", "orelse", "body"):
                stack.extend(reversed(getattr(stmt, block, []) or []))
            for handler in reversed(getattr(stmt, "handlers", []) or []):
                stack.extend(reversed(handler.body))
    return names, aliases


# (name, (callee, kind, line), whether it binds whatever the name held, whether it is a construction)
BindingStep = tuple[str, tuple[str, str, int], bool, bool]


def fold_bindings(steps: Iterable[BindingStep], constructions: set[tuple[str, int]]) -> dict[str, tuple[str, str, int]]:
    """var -> (callee, kind, line) after STEPS: an annotation (of a parameter or a variable) and `with ... as x`
    bind whatever the name held, an assignment from a call only a name no annotation bound. The class-like
    callees of the assignments that bind are added to CONSTRUCTIONS as (callee, line)."""
    out: dict[str, tuple[str, str, int]] = {}
    for name, value, always, construction in steps:
        if always or out.get(name, ("", ""))[1] != "annotation":
            out[name] = value
            if construction:
                constructions.add((value[0], value[2]))
    return out


def top_level_functions(body: list[ast.stmt]) -> tuple[list[str], dict[str, list[str]]]:
    """The names of the functions BODY defines (in order, a name again when defined again) and their parameters
    (as `signature` lists them; the last definition's)."""
    defs = [s for s in body if isinstance(s, FUNCTIONS)]
    return [s.name for s in defs], {s.name: [a.arg for a in (*s.args.posonlyargs, *s.args.args, *s.args.kwonlyargs)]
                                    for s in defs}


# the statements whose blocks run in the scope around them (a match's cases are not read)
_BLOCKS = (ast.If, ast.For, ast.AsyncFor, ast.While, ast.With, ast.AsyncWith, ast.Try, ast.TryStar)


_SCOPES = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)


def _local_names(node: ast.FunctionDef | ast.AsyncFunctionDef) -> set[str]:
    """Every name a function binds in its own scope (not in nested functions or classes)."""
    args = node.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names.update(a.arg for a in (args.vararg, args.kwarg) if a is not None)
    stack: list[ast.AST] = list(node.body)
    while stack:
        sub = stack.pop()
        if isinstance(sub, ast.Name):   # the commonest node first
            if not isinstance(sub.ctx, ast.Load):
                names.add(sub.id)
            continue
        if isinstance(sub, _SCOPES):
            names.add(sub.name)
            continue
        if isinstance(sub, ast.Lambda):
            continue
        if isinstance(sub, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in sub.names)
        elif isinstance(sub, ast.ExceptHandler) and sub.name:
            names.add(sub.name)
        elif isinstance(sub, (ast.Global, ast.Nonlocal)):
            names.update(sub.names)
        elif isinstance(sub, (ast.MatchAs, ast.MatchStar)) and sub.name:
            names.add(sub.name)
        elif isinstance(sub, ast.MatchMapping) and sub.rest:
            names.add(sub.rest)
        stack.extend(children(sub))
    return names


def _top_calls(body: list[ast.stmt]) -> dict[str, list[Any]]:
    """`name = Callee(...)` statements of a function's top block: name -> [callee, line] (the first one)."""
    out: dict[str, list[Any]] = {}
    for stmt in body:
        if isinstance(stmt, ast.Assign) and len(stmt.targets) == 1 and isinstance(stmt.targets[0], ast.Name) \
                and isinstance(stmt.value, ast.Call):
            callee = _callee(stmt.value)
            if callee:
                out.setdefault(stmt.targets[0].id, [callee, stmt.lineno])
    return out


def _literal_kind(node: ast.expr) -> str:
    """true | false | none | str | text | other: the kind of value a dict key holds (for flags, error keys and
    type keywords). `text` is a string built at run time (an f-string, `str(...)`, a concatenation with a
    literal): never None, and in practice never empty; `other` may be anything, None included."""
    kind, value = _describe(node)
    if kind == "bool":
        return "true" if value else "false"
    if kind in ("none", "str"):
        return str(kind)
    if kind == "fstring" or (kind == "call" and value == "str") or _is_text(node):
        return "text"
    return "other"


def _is_text(node: ast.expr) -> bool:
    """`"a" + x`, `x + f"..."`, `"%s" % x`, `"{}".format(x)`: a string however it is built."""
    if isinstance(node, ast.BoolOp) and isinstance(node.op, ast.Or):   # `reason or "no reason given"`
        last = node.values[-1]
        return isinstance(last, ast.JoinedStr) or _is_text(last) or (isinstance(last, ast.Constant) \
            and isinstance(last.value, str) and bool(last.value))
    if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Mod)):
        return any(isinstance(side, ast.JoinedStr) or (isinstance(side, ast.Constant) and isinstance(side.value, str))
                   for side in (node.left, node.right))
    return isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "format" \
        and isinstance(node.func.value, ast.Constant) and isinstance(node.func.value.value, str)


def _dict_pairs(value: ast.expr | None) -> tuple[list[tuple[str | None, ast.expr]], bool] | None:
    """The (key, value) pairs of a `{...}` or `dict(...)` (a key None when not a literal string) and whether
    it has keys not known statically (`**spread`, `dict(base, ...)`); None for anything else."""
    if isinstance(value, ast.Dict):
        return ([(str_value(k), v) for k, v in zip(value.keys, value.values) if k is not None],
                any(k is None for k in value.keys))
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id == "dict":
        return ([(kw.arg, kw.value) for kw in value.keywords if kw.arg],
                bool(value.args) or any(kw.arg is None for kw in value.keywords))
    return None


def _dict_branches(value: ast.expr | None) -> list[str] | None:
    """For a conditional expression that is a dict on every branch, the literal keys of its dict literals; None
    otherwise. A branch is a dict when it is a dict literal, such a conditional itself, or the very name the test
    checks with `isinstance(name, dict)` (`result if isinstance(result, dict) else {"success": False, ...}`)."""
    if not isinstance(value, ast.IfExp):
        return None
    test, negated = value.test, False
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        test, negated = test.operand, True
    checked = None
    if isinstance(test, ast.Call) and isinstance(test.func, ast.Name) and test.func.id == "isinstance" \
            and len(test.args) == 2 and isinstance(test.args[0], ast.Name) and isinstance(test.args[1], ast.Name) \
            and test.args[1].id == "dict":
        checked = test.args[0].id
    keys: list[str] = []
    for branch, is_dict_when_named in ((value.body, not negated), (value.orelse, negated)):
        pairs = _dict_pairs(branch)
        if pairs is not None:
            keys += [k for k, _ in pairs[0] if k is not None and k not in keys]
        elif isinstance(branch, ast.Name) and branch.id == checked and is_dict_when_named:
            continue
        elif (nested := _dict_branches(branch)) is not None:
            keys += [k for k in nested if k not in keys]
        else:
            return None
    return keys


def _branch_key_values(value: ast.expr | None) -> dict[str, str]:
    """For a conditional of dicts (`_dict_branches`), the keys and kinds of value of its dict literals, so the run-time
    plan knows a branch may refuse (`{"allowed": False, ...}`)."""
    out: dict[str, str] = {}
    if isinstance(value, ast.IfExp):
        for branch in (value.body, value.orelse):
            for k, kind in (_key_values(branch) if _dict_pairs(branch) is not None
                            else _branch_key_values(branch)).items():
                out.setdefault(k, kind)
    return out


def _dispatched(call: ast.Call) -> tuple[str, int] | None:
    """The handler a dispatch branch returns the result of: the call itself (`handle_search(args)`,
    `self.search(args)`), or, when it is a module's function wrapping another call (`json.dumps(export_tool(a))`),
    the call inside."""
    func = call.func
    local = isinstance(func, ast.Name) or (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                                          and func.value.id in ("self", "cls"))
    if local:
        return dotted_name(func), call.lineno   # type: ignore[return-value]
    inner = next((a for a in call.args if isinstance(a, ast.Call)), None)
    if inner is not None:
        return _dispatched(inner)
    ref = dotted_name(func)
    return (ref, call.lineno) if ref else None


def _tested_name(test: ast.expr) -> str | None:
    """The variable a dispatch test compares (`name` in `name == "a"` or `"a" == name`)."""
    if isinstance(test, ast.Compare):
        return next((n.id for n in (test.left, *test.comparators) if isinstance(n, ast.Name)), None)
    return None


def _names_tested(test: ast.expr, params: set[str]) -> list[str]:
    """The literal names an if-test compares one of PARAMS with: `name == "a"`, `"a" == name`,
    `name in ("a", "b")`."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and len(test.comparators) == 1):
        return []
    left, right, op = test.left, test.comparators[0], test.ops[0]
    if isinstance(op, ast.Eq):
        for a, b in ((left, right), (right, left)):
            if isinstance(a, ast.Name) and a.id in params and (text := str_value(b)) is not None:
                return [text]
    if isinstance(op, ast.In) and isinstance(left, ast.Name) and left.id in params \
            and isinstance(right, (ast.Tuple, ast.List, ast.Set)):
        texts = [str_value(e) for e in right.elts]
        return [t for t in texts if t is not None] if all(t is not None for t in texts) else []
    return []


def _names_matched(pattern: ast.pattern) -> list[str]:
    """The literal names a `case` matches: `case "a":`, `case "a" | "b":`."""
    if isinstance(pattern, ast.MatchValue) and (text := str_value(pattern.value)) is not None:
        return [text]
    if isinstance(pattern, ast.MatchOr):
        found = [_names_matched(p) for p in pattern.patterns]
        return [n for names in found for n in names] if all(found) else []
    return []


def _literal_node(value: Any) -> ast.expr:
    """A TOML value as the literal that writes it (`fills` of a result helper: a string, a number, a table)."""
    if isinstance(value, dict):
        return ast.Dict(keys=[ast.Constant(str(k)) for k in value], values=[_literal_node(v) for v in value.values()])
    if isinstance(value, list):
        return ast.List(elts=[_literal_node(v) for v in value], ctx=ast.Load())
    return ast.Constant(value)


def _has_unknown_keys(value: ast.expr | None) -> bool:
    found = _dict_pairs(value)
    return found is not None and (found[1] or any(k is None for k, _ in found[0]))


def _texts(value: ast.expr | None) -> dict[str, str]:
    """For a returned `{...}` or `dict(...)`: each literal key whose value is a short literal string (or an
    f-string's literal words), also as the last operand of an `or`."""
    found = _dict_pairs(value)
    out = {}
    for k, v in (found[0] if found else []):
        if k is None:
            continue
        if isinstance(v, ast.BoolOp) and isinstance(v.op, ast.Or):   # `err.message or f"Path not found: {p}"`:
            v = v.values[-1]                                         # the words it falls back to
        if isinstance(v, ast.Constant) and isinstance(v.value, str) and len(v.value) <= 200:
            out[k] = v.value
        elif isinstance(v, ast.JoinedStr):   # an f-string: its literal words, with … where values go
            out[k] = "".join(str(p.value) if isinstance(p, ast.Constant) else "…" for p in v.values)[:200]
    return out


def _key_values(value: ast.expr | None) -> dict[str, str]:
    """For a returned `{...}` or `dict(...)`: each literal key and what kind of value it holds."""
    found = _dict_pairs(value)
    return {k: _literal_kind(v) for k, v in found[0] if k is not None} if found else {}


def _describe(node: ast.expr) -> list[Any]:
    """[kind, literal value] of one value in a returned dict: str | bool | number | none | fstring | dict |
    list | call | name | other (the value is kept for literals, the callee or name for calls and names)."""
    if isinstance(node, ast.Constant):
        value = node.value
        if value is None:
            return ["none", None]
        if isinstance(value, bool):
            return ["bool", value]
        if isinstance(value, (int, float)):
            return ["number", value] if value == value and abs(value) != float("inf") else ["other", None]
        if isinstance(value, str):
            return ["str", value]
        return ["other", None]
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and isinstance(node.operand, ast.Constant) \
            and isinstance(node.operand.value, (int, float)) and not isinstance(node.operand.value, bool):
        return ["number", -node.operand.value]
    if isinstance(node, ast.JoinedStr):
        return ["fstring", None]
    if isinstance(node, ast.Dict) or (isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
                                      and node.func.id == "dict"):
        return ["dict", None]
    if isinstance(node, (ast.List, ast.Tuple, ast.ListComp)):
        return ["list", None]
    if isinstance(node, ast.Call):
        return ["call", dotted_name(node.func)]
    if isinstance(node, (ast.Name, ast.Attribute)):
        return ["name", dotted_name(node)]
    return ["other", None]


def class_like(name: str | None) -> TypeGuard[str]:
    """`ReplyBuilder`, `_ReplyBuilder`: a name spelt like a class."""
    return name is not None and name.lstrip("_")[:1].isupper()


def _constructed(node: ast.AST | None) -> ast.Call | None:
    """The call a value constructs, through `C() if t else None`, `x or C()` and `(x := C())`: the first, left to
    right. Without recursion, so that how deep the caller is never decides it (a chain of a thousand `if`s)."""
    stack = [node]
    while stack:
        node = stack.pop()
        if isinstance(node, ast.Call):
            return node
        if isinstance(node, ast.IfExp):
            stack += (node.orelse, node.body)
        elif isinstance(node, ast.BoolOp):
            stack += reversed(node.values)
        elif isinstance(node, ast.NamedExpr):
            stack.append(node.value)
    return None


def _bound_calls(stmt: ast.stmt, walrus: bool = True) -> list[tuple[str, ast.Call]]:
    """(name, call) for every name STMT binds to a construction: `rb = C(...)`, `rb = C(...) if t else None`,
    `rb = given or C(...)`, `a, rb = x, C(...)`, and walrus bindings `(rb := C(...))` anywhere in it (looked for
    only when WALRUS: a file whose source has no `:=` has none)."""
    out: list[tuple[str, ast.Call]] = []
    if isinstance(stmt, ast.Assign):
        for target in stmt.targets:
            if isinstance(target, ast.Name):
                call = _constructed(stmt.value)
                if call is not None:
                    out.append((target.id, call))
            elif isinstance(target, (ast.Tuple, ast.List)) and isinstance(stmt.value, (ast.Tuple, ast.List)) \
                    and len(target.elts) == len(stmt.value.elts):
                for name, value in zip(target.elts, stmt.value.elts):
                    call = _constructed(value) if isinstance(name, ast.Name) else None
                    if call is not None and isinstance(name, ast.Name):
                        out.append((name.id, call))
    if not walrus or isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return out
    for node in _own_nodes(stmt):
        if isinstance(node, ast.NamedExpr) and isinstance(node.target, ast.Name):
            call = _constructed(node.value)
            if call is not None:
                out.append((node.target.id, call))
    return out


def _own_nodes(stmt: ast.stmt) -> Iterator[ast.AST]:
    """The expression nodes of STMT itself, not of the statements nested in its blocks."""
    stack: list[ast.AST] = [stmt]
    while stack:
        node = stack.pop()
        for name, value in ast.iter_fields(node):
            if name in ("body", "orelse", "finalbody", "handlers", "cases"):
                continue
            items = value if isinstance(value, list) else [value]
            for item in items:
                if isinstance(item, ast.AST) and not isinstance(item, ast.stmt):
                    yield item
                    stack.append(item)


def _callee(call: ast.Call) -> str | None:
    """The class or factory a call constructs: `X(...)`, `m.X(...)`, `X.create(...)`."""
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        if isinstance(func.value, ast.Name) and class_like(func.value.id) and not class_like(func.attr):
            return func.value.id
        return func.attr
    return None


def _annotation_class(node: ast.AST | None) -> str | None:
    """The first class-like name in an annotation (`X`, `X | None`, `Optional[X]`, "X")."""
    if node is None:
        return None
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            node = ast.parse(node.value, mode="eval").body
        except SyntaxError:
            return None
    for sub in walk(node):
        name = last_name(sub)
        if class_like(name) and name not in _NOT_CLASSES:
            return name
    return None


GUARD_DEPTH = 4


def _guard_text(test: ast.expr, negated: bool) -> str:
    text = source_text(test)
    if len(text) > 120:
        text = text[:117] + "..."
    return f"not ({text})" if negated else text


def _except_types(handler: ast.ExceptHandler) -> tuple[str, ...]:
    if handler.type is None:
        return ()
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return tuple(name for t in types if (name := last_name(t)))


def _assigned_names(body: list[ast.stmt]) -> set[str]:
    """Names a function body assigns in its own scope (not in nested defs or classes)."""
    out: set[str] = set()
    for stmt in _iter_block(body):
        for node in walk(stmt) if isinstance(stmt, (ast.Assign, ast.AnnAssign, ast.AugAssign)) else ():
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
                out.add(node.id)
    return out


def _literal_type(value: ast.AST | None) -> str:
    """The type of a returned literal that is no dict (`tuple` for `return {...}, 400`), or ""."""
    if isinstance(value, ast.Tuple):
        return "tuple"
    if isinstance(value, (ast.List, ast.ListComp)):
        return "list"
    if isinstance(value, (ast.JoinedStr,)) or (isinstance(value, ast.Constant) and isinstance(value.value, str)):
        return "str"
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        return "bool"
    if isinstance(value, ast.Constant) and isinstance(value.value, (int, float)):
        return "number"
    return ""


def param_reads(node: ast.AST, strong: set[str], weak: frozenset[str] | set[str] = frozenset()) -> str:
    """How NODE reads the caller's values: "direct" when it reads one of STRONG itself (`int(limit)`, `Kind(tag)`,
    `tags.split()`, `x > 0`, `x[0]`); "indirect" when only through the system's own work (an argument of a plain
    function or of another object's method, `fetch_price(item)`, `store.read(name)`; a key into the system's
    data, `LOANS[loan_id]`) or through one of WEAK (a local that may be the system's own value:
    `raw = limit or "10"`); "" when it reads none. A builtin or a class (a capitalised name) converts the value
    itself, wherever it stands."""
    found = ""

    def walk(node: ast.AST, inside: bool) -> None:
        nonlocal found
        if found == "direct":
            return
        if isinstance(node, ast.Name):
            if isinstance(node.ctx, ast.Load) and (node.id in strong or node.id in weak):
                found = "indirect" if inside or node.id in weak else "direct"
            return
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            return
        if isinstance(node, ast.Subscript):   # `LOANS[loan_id]`: the system's data, looked up by the caller's key
            walk(node.value, inside)
            walk(node.slice, True)
            return
        if isinstance(node, ast.Call):
            func = node.func
            converts = isinstance(func, ast.Name) and (func.id in _BUILTIN_NAMES or func.id[:1].isupper())
            own_method = isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) \
                and func.value.id in strong
            walk(func, inside)
            for arg in (*node.args, *(k.value for k in node.keywords)):
                walk(arg, False if converts else (inside if own_method else True))
            return
        for child in children(node):
            walk(child, inside)

    walk(node, False)
    return found


_BUILTIN_NAMES = frozenset(dir(__import__("builtins")))


def _reads_fixed_keys(body: list[ast.stmt]) -> bool:
    """Does BODY look up a fixed key (`resp["price"]`, `os.environ["KEY"]`): data that may lack a key the system
    names itself?"""
    return any(isinstance(n, ast.Subscript) and isinstance(n.slice, ast.Constant) and isinstance(n.slice.value, str)
               for stmt in body for n in walk(stmt))


def _passes_on(value: ast.AST, known: set[str]) -> bool:
    """Is VALUE one of the KNOWN names passed on as it is, or a view or conversion of it (`x`, `x[0]`, `x.attr`,
    `x.strip()`, `[x, y]`, `float(x)`, `sorted(set(x))`, `[t.strip() for t in x.split(",")]`)? A call of the
    system's own (`run(x)`) is not: its result is the system's work."""
    if isinstance(value, ast.Name):
        return value.id in known
    if isinstance(value, (ast.Subscript, ast.Starred, ast.Attribute)):
        return _passes_on(value.value, known)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute):
        return _passes_on(value.func.value, known)
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and (
            value.func.id in _BUILTIN_NAMES or value.func.id[:1].isupper()):
        return any(_passes_on(a, known) for a in value.args)
    if isinstance(value, (ast.List, ast.Tuple, ast.Set)):
        return any(_passes_on(v, known) for v in value.elts)
    if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp)):
        return _passes_on(value.generators[0].iter, known)
    return False


def _may_pass_on(value: ast.AST, known: set[str]) -> bool:
    """`x or DEFAULT`, `x if c else DEFAULT`, `normalise(x)`: computed from one of KNOWN, or maybe the system's
    own value."""
    if isinstance(value, ast.BoolOp):
        return any(_passes_on(v, known) or _may_pass_on(v, known) for v in value.values)
    if isinstance(value, ast.IfExp):
        return any(_passes_on(v, known) or _may_pass_on(v, known) for v in (value.body, value.orelse))
    if isinstance(value, ast.Call):
        return any(_passes_on(a, known) or _may_pass_on(a, known) for a in (*value.args,
                                                                           *(k.value for k in value.keywords)))
    return False


def _derived_from(params: set[str], body: list[ast.stmt]) -> tuple[set[str], set[str]]:
    """The local names of a function body assigned (`x = …`, `x: T = …`, `for x in …`) one of PARAMS, or of the
    names so found: (passed on as it is, `_passes_on`; maybe the system's own value instead, `_may_pass_on`)."""
    steps: list[tuple[list[str], ast.AST]] = []
    for stmt in body:   # each node once: a statement's walk covers the blocks nested in it
        for node in walk(stmt):
            if isinstance(node, ast.Assign):
                steps.append(([t.id for t in node.targets if isinstance(t, ast.Name)], node.value))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
                steps.append(([node.target.id], node.value))
            elif isinstance(node, (ast.For, ast.comprehension)) and isinstance(node.target, ast.Name):
                steps.append(([node.target.id], node.iter))
    strong, weak = set(params), set()
    changed = True
    while changed:
        changed = False
        for names, value in steps:
            for name in names:
                if name in strong:
                    continue
                if _passes_on(value, strong):
                    strong.add(name)
                    weak.discard(name)
                    changed = True
                elif name not in weak and (_may_pass_on(value, strong | weak) or _passes_on(value, weak)):
                    weak.add(name)
                    changed = True
    return strong - set(params), weak


def _except_kind(handler: ast.ExceptHandler) -> str:
    if handler.type is None:
        return "bare"
    types = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
    return "broad" if any(last_name(t) in BROAD_EXCEPTIONS for t in types) else "narrow"
