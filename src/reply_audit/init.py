"""`reply-audit init`: a starter `[tool.reply-audit]` section written from what the code shows.

One `ast` walk per file collects the evidence a profile needs: which decorators sit on
functions that look like tool handlers, which calls register functions by name, which
dicts dispatch by name, which functions build replies (and where their code argument is),
which Enum classes or `Literal[...]` aliases hold codes, which classes are returned as
envelopes, whether returns carry an IAR reflection, and whether codes look canonical.
Only the code that runs is read (init_scope: no tests, examples, backups, vendored trees or
copies). A key needs two signs: a reply function or envelope class is proposed only when a
handler returns it, a code list only when its members are passed where a code goes. `propose`
turns the evidence into profile keys, each with a comment saying what it rests on; init_vet
then checks the text before anyone sees it.
"""

from __future__ import annotations

import ast
import json
import re
from collections import Counter, defaultdict
from dataclasses import field
from functools import cache
from pathlib import Path
from typing import cast

from .discovery import discover
from .errors import UserError
from .facts.registries import ENUM_BASES, dotted_name, last_name, str_value
from .init_scope import Scope, scope
from .profile import load_profile
from .record_class import record

HANDLER_WORDS = re.compile(r"(?:^|[._])(?:tool|action|handler|endpoint)s?(?:$|[._])", re.IGNORECASE)
# a dispatch table is named for what it dispatches: TOOLS, ACTION_HANDLERS, COMMANDS, ROUTES (not LOOKUP_EXECUTORS)
TABLE_WORDS = re.compile(r"(?:^|_)(?:tool|action|handler|endpoint|command|route|dispatch)(?:s|es|er|ers)?(?:$|_)",
                         re.IGNORECASE)
# a function that dispatches tool calls says so by its name or its decorator (`call_tool`, `@app.call_tool()`)
DISPATCH_WORDS = re.compile(r"^_?(?:call_tools?|tools?_call|(?:dispatch|handle|route|run)_tools?(?:_call)?|"
                            r"tools?_(?:dispatch|router))s?$", re.IGNORECASE)
# command-line frameworks: their decorators mark commands, not tool handlers
CLI_MODULES = frozenset({"click", "typer", "argparse", "fire", "cli", "app.cli"})
NOT_HANDLERS = frozenset({"property", "staticmethod", "classmethod", "dataclass", "lru_cache", "cache",
                          "cached_property", "wraps", "abstractmethod", "contextmanager", "overload", "override",
                          "pytest.fixture", "fixture", "functools.wraps", "functools.lru_cache"})
# how other conventions spell a reply kind in a function's name, beside the spec's own method names
KIND_SYNONYMS = {"ok": "success", "failure": "error"}
CODE_NAME = re.compile(r"code|error", re.IGNORECASE)



@record(frozen=True)
class Vocabulary:
    """The spec's words init looks for, read from the built-in canonical profile rather than written here: the
    builder methods and the type each builds (a forbidden method builds its replacement's), and what a
    canonical code looks like."""

    kind_type: dict[str, str]
    builder_name: re.Pattern[str]
    code_pattern: str
    types: frozenset[str]
    methods: frozenset[str]   # the canonical builder methods

    def looks_canonical(self, text: str) -> bool:
        """TEXT is a code in the canonical spelling with one of the canonical types (`WA-RES-I-001`)."""
        match = re.match(self.code_pattern, text)
        return match is not None and match.groupdict().get("type", "") in self.types


@cache
def vocabulary() -> Vocabulary:
    canonical = load_profile("canonical")
    kinds = dict(canonical.builder_methods)
    kinds |= {m: kinds[r] for m, r in canonical.forbidden_methods.items() if r in kinds}
    kinds |= {word: kinds[meaning] for word, meaning in KIND_SYNONYMS.items() if meaning in kinds}
    words = "|".join(sorted(kinds, key=lambda w: (-len(w), w)))
    return Vocabulary(
        kind_type=kinds,
        builder_name=re.compile(rf"^_?(?:make_|build_|create_)?(?P<kind>{words})_?(?:response|reply|result)?$",
                                re.IGNORECASE),
        code_pattern=canonical.section("codes")["pattern"],
        types=frozenset(canonical.builder_methods.values()),
        methods=frozenset(canonical.builder_methods))


@record
class Evidence:
    files: int = 0
    unparseable: int = 0
    decorators: Counter[str] = field(default_factory=Counter)
    decorator_at: dict[str, str] = field(default_factory=dict)
    register_calls: Counter[str] = field(default_factory=Counter)
    register_at: dict[str, str] = field(default_factory=dict)
    register_name_positions: dict[str, Counter[int]] = field(default_factory=lambda: defaultdict(Counter))
    register_args: dict[str, list[tuple[int, str | None]]] = field(
        default_factory=lambda: defaultdict(list))  # (position, name)
    functions: set[str] = field(default_factory=set)   # names of every function defined in the tree
    dispatch_tables: dict[str, str] = field(default_factory=dict)
    builders: dict[str, tuple[str, str, int]] = field(default_factory=dict)  # name -> (letter, code kw, pos)
    builder_at: dict[str, str] = field(default_factory=dict)
    enums: dict[str, str] = field(default_factory=dict)
    envelope_classes: dict[str, str] = field(default_factory=dict)
    envelope_codes: dict[str, str] = field(default_factory=dict)   # class -> its code keyword
    reflection_returns: int = 0
    canonical_codes: int = 0
    builder_methods: int = 0
    code_refs: set[str | None] = field(default_factory=set)  # names whose members are passed at code positions
    code_strings: set[str] = field(default_factory=set)    # literal strings passed at code positions
    member_values: dict[str, set[str]] = field(default_factory=dict)   # Enum or Literal alias -> its string values
    returned_by: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # callee -> functions
                                                                                        # returning it
    decorated: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))  # decorator -> functions it is on
    table_targets: set[str] = field(default_factory=set)   # functions dispatch tables name
    plain_codes: dict[str, str] = field(default_factory=dict)   # "path::Class" of string constants named like codes
    dispatchers: dict[str, tuple[str, int]] = field(default_factory=dict)   # function -> (where, literal branches)
    dispatched: dict[str, set[str]] = field(default_factory=lambda: defaultdict(set))   # dispatcher -> functions called
    scope: Scope | None = None


def _code_like(node: ast.AST) -> bool:
    """An argument that looks like a code: `ErrorCode.X`, `Codes.X`, or a string such as "NOT_FOUND"."""
    if isinstance(node, ast.Attribute):
        return bool(CODE_NAME.search(dotted_name(node) or ""))
    text = str_value(node)
    return text is not None and re.fullmatch(r"[A-Za-z][A-Za-z0-9]*(?:[_-][A-Za-z0-9]+)+", text) is not None \
        and (text.isupper() or text.islower())


def _key(name: str) -> str:
    """NAME as a TOML key: bare when it can be, quoted otherwise."""
    return name if re.fullmatch(r"[A-Za-z0-9_-]+", name) else '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _where(path: str, node: ast.AST) -> str:
    return f"{_comment_text(path)}:{getattr(node, 'lineno', 0)}"


class _Collector:
    def __init__(self, evidence: Evidence, path: str) -> None:
        self.ev = evidence
        self.path = path

    def module(self, tree: ast.Module) -> None:
        functions = {n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
        self.ev.functions |= functions
        spec = vocabulary()
        # functions a decorator can make handlers of: the module's own and its classes' methods, not closures
        outer = [n for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
        outer += [m for c in tree.body if isinstance(c, ast.ClassDef) for m in c.body
                  if isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef))]
        tops = {id(n) for n in outer}
        for fn in ast.walk(tree):
            if isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for node in ast.walk(fn):
                    if isinstance(node, ast.Return) and node.value is not None:
                        for call in _returned_calls(node.value):
                            self.ev.returned_by[call].add(fn.name)
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                self._function(node, id(node) in tops)
            elif isinstance(node, ast.ClassDef):
                self._class(node)
            elif isinstance(node, ast.Call):
                self._call(node)
            elif isinstance(node, ast.Assign) and len(node.targets) == 1:
                self._assign(node, functions)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and spec.looks_canonical(node.value):
                self.ev.canonical_codes += 1
            elif isinstance(node, ast.Return) and isinstance(node.value, ast.Dict):
                if any(str_value(k) == "reflection" for k in node.value.keys if k is not None):
                    self.ev.reflection_returns += 1

    def _dispatcher(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        """A function whose own if/elif chain (or `match`) tests one parameter against two or more literal names,
        each branch returning a call: it dispatches tools by name ([handlers] dispatch-functions)."""
        params = {a.arg for a in (*node.args.posonlyargs, *node.args.args, *node.args.kwonlyargs)}
        branches = 0
        stack = list(node.body)
        while stack:
            sub = stack.pop(0)
            if isinstance(sub, ast.If):
                test = sub.test
                sides = (test.left, *test.comparators) if isinstance(test, ast.Compare) else ()
                literal = any(str_value(n) is not None or (isinstance(n, (ast.Tuple, ast.List, ast.Set))
                              and all(str_value(e) is not None for e in n.elts)) for n in sides)
                if literal and any(isinstance(n, ast.Name) and n.id in params for n in sides):
                    called = [c for b in sub.body if isinstance(b, ast.Return) and b.value is not None
                              for c in _returned_calls(b.value)]
                    branches += bool(called)
                    self.ev.dispatched[node.name].update(called)
                stack[:0] = sub.orelse
            elif isinstance(sub, ast.Match) and isinstance(sub.subject, ast.Name) and sub.subject.id in params:
                for case in sub.cases:
                    called = [c for b in case.body if isinstance(b, ast.Return) and b.value is not None
                              for c in _returned_calls(b.value)]
                    if isinstance(case.pattern, (ast.MatchValue, ast.MatchOr)) and called:
                        branches += 1
                        self.ev.dispatched[node.name].update(called)
        if branches >= 2:
            self.ev.dispatchers.setdefault(node.name, (_where(self.path, node), branches))

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, top: bool) -> None:
        if top:
            self._dispatcher(node)
        for dec in node.decorator_list if top else []:
            name = dotted_name(dec.func if isinstance(dec, ast.Call) else dec)
            if name and name not in NOT_HANDLERS and name.rsplit(".", 1)[0] not in CLI_MODULES:
                self.ev.decorators[name] += 1
                self.ev.decorator_at.setdefault(name, _where(self.path, node))
                self.ev.decorated[name].add(node.name)
        match = vocabulary().builder_name.match(node.name)
        if match and node.col_offset == 0:
            params = [a.arg for a in (*node.args.posonlyargs, *node.args.args)]
            keyword = next((p for p in params + [a.arg for a in node.args.kwonlyargs] if "code" in p.lower()), "")
            position = params.index(keyword) if keyword in params else -1
            letter = vocabulary().kind_type[match.group("kind").lower()]
            self.ev.builders.setdefault(node.name, (letter, keyword, position))
            self.ev.builder_at.setdefault(node.name, _where(self.path, node))

    def _class(self, node: ast.ClassDef) -> None:
        bases = {last_name(b) for b in node.bases}
        members = [s for s in node.body if isinstance(s, ast.Assign)]
        if bases & ENUM_BASES and len(members) >= 2 and CODE_NAME.search(node.name):
            self.ev.enums.setdefault(node.name, _where(self.path, node))
            self.ev.member_values.setdefault(node.name, set()).update(
                v for m in members if (v := str_value(m.value)) is not None)
        elif not node.bases and CODE_NAME.search(node.name) and len(members) >= 2 and all(
                str_value(m.value) is not None for m in members):   # class ErrorCodes: NOT_FOUND = "NOT_FOUND"
            self.ev.plain_codes.setdefault(f"{self.path}::{node.name}", _where(self.path, node))
            self.ev.member_values.setdefault(node.name, set()).update(cast(str, str_value(m.value)) for m in members)
        fields = {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
        if {"success", "error"} <= fields:
            self.ev.envelope_classes.setdefault(node.name, _where(self.path, node))
        methods = {s.name for s in node.body if isinstance(s, (ast.FunctionDef, ast.AsyncFunctionDef))}
        if len(methods & vocabulary().methods) >= 3:
            self.ev.builder_methods += 1

    def _call(self, node: ast.Call) -> None:
        name = last_name(node.func)
        if not name:
            return
        keywords = [kw.arg for kw in node.keywords if kw.arg]
        code_keyword = next((k for k in keywords if "code" in k.lower()), "")
        at_code = [kw.value for kw in node.keywords if kw.arg and "code" in kw.arg.lower()]
        if vocabulary().builder_name.match(name):
            at_code += list(node.args)
        for value in at_code:   # what is passed where a code goes: `code=ErrorCode.X`, `error_response(msg, E.X)`
            base = value.value if isinstance(value, ast.Attribute) and value.attr == "value" else value
            if isinstance(base, ast.Attribute):
                self.ev.code_refs.add(last_name(base.value))
            elif (text := str_value(value)) is not None:
                self.ev.code_strings.add(text)
        match = vocabulary().builder_name.match(name) if isinstance(node.func, ast.Name) else None
        position = next((i for i, a in enumerate(node.args) if _code_like(a)), -1)
        if match and name not in self.ev.builders:   # a reply function imported from elsewhere
            self.ev.builders[name] = (vocabulary().kind_type[match.group("kind").lower()], code_keyword, position)
            self.ev.builder_at[name] = _where(self.path, node)
        elif match:
            letter, keyword, known = self.ev.builders[name]
            self.ev.builders[name] = (letter, keyword or code_keyword, known if known >= 0 else position)
        if name[:1].isupper() and "success" in keywords:   # ToolResponse(success=..., error=...)
            self.ev.envelope_classes.setdefault(name, _where(self.path, node))
            if code_keyword:
                self.ev.envelope_codes[name] = code_keyword
        if not name.startswith("register") or len(node.args) < 2:
            return
        named = next((i for i, a in enumerate(node.args) if str_value(a) is not None), None)
        seen = False
        for i, arg in enumerate(node.args):
            target = arg.args[0] if isinstance(arg, ast.Call) and arg.args else arg
            if isinstance(target, (ast.Name, ast.Attribute)):
                seen = True
                self.ev.register_args[name].append((i, last_name(target)))
        if seen:
            self.ev.register_calls[name] += 1
            self.ev.register_at.setdefault(name, _where(self.path, node))
            if named is not None:
                self.ev.register_name_positions[name][named] += 1

    def _assign(self, node: ast.Assign, functions: set[str]) -> None:
        target = last_name(node.targets[0])
        value = node.value
        if target and isinstance(value, ast.Dict) and len(value.keys) >= 1 and TABLE_WORDS.search(target) \
                and all(
                str_value(k) is not None for k in value.keys) and all(
                isinstance(v, ast.Name) and v.id in functions for v in value.values):
            self.ev.dispatch_tables.setdefault(target, _where(self.path, node))
            self.ev.table_targets.update(v.id for v in value.values if isinstance(v, ast.Name))
        if isinstance(value, ast.Subscript) and last_name(value.value) == "Literal" and target \
                and CODE_NAME.search(target):
            self.ev.enums.setdefault(target, _where(self.path, node))
            values = value.slice.elts if isinstance(value.slice, ast.Tuple) else [value.slice]
            self.ev.member_values.setdefault(target, set()).update(
                v for e in values if (v := str_value(e)) is not None)


def _returned_calls(value: ast.expr) -> list[str]:
    """The callees a returned expression returns: `f(...)`, `await f(...)`, either branch of `a if t else b`,
    `x or f(...)`."""
    if isinstance(value, ast.Await):
        return _returned_calls(value.value)
    if isinstance(value, ast.Call):
        return [n] if (n := last_name(value.func)) else []
    if isinstance(value, ast.IfExp):
        return _returned_calls(value.body) + _returned_calls(value.orelse)
    if isinstance(value, ast.BoolOp):
        return [n for v in value.values for n in _returned_calls(v)]
    return []


def collect(root: Path) -> Evidence:
    builtin = load_profile("canonical")
    found = discover(root, ["*.py"], builtin.scan_list("exclude"))
    ev = Evidence()
    ev.scope = scope(found.files, found.root, builtin.scan_list("test_paths"))
    for rel in ev.scope.evidence:
        try:
            source = (found.root / rel).read_bytes()
            tree = ast.parse(source, rel)
        except (OSError, SyntaxError, ValueError, RecursionError):
            ev.unparseable += 1
            continue
        ev.files += 1
        _Collector(ev, rel).module(tree)
    return ev


def _writable(text: str) -> bool:
    """Can TEXT be written into a UTF-8 pyproject.toml (a path with undecodable bytes cannot)?"""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _literal_glob(path: str) -> str:
    """PATH as a glob that matches itself only (`[`, `*`, `?` in a folder name are escaped)."""
    return re.sub(r"([\[*?])", r"[\1]", path)


def _toml_string(value: str) -> str:
    """VALUE as a TOML basic string (a JSON string is one, escapes included)."""
    return json.dumps(value, ensure_ascii=False)


def _toml_list(values: list[str]) -> str:
    return "[" + ", ".join(_toml_string(v) for v in values) + "]"


def propose(ev: Evidence) -> str:
    """The starter section, every key with the evidence it rests on."""
    lines = ["# Written by `reply-audit init` from what it found in the code; check each key, then run",
             "# `reply-audit scan`. docs/profiles.md explains every key.", "[tool.reply-audit]"]
    base = base_profile(ev)
    lines.append(f'profile = "{base}"  # {ev.reflection_returns} returned dicts carry a "reflection", '
                 f"{ev.canonical_codes} strings look like LAYER-AREA-TYPE-NNN codes")
    safety = [name for name, _ in ev.decorators.most_common() if re.search(r"safe|guard", name, re.IGNORECASE)]
    handler_decorators = [name for name, n in ev.decorators.most_common()   # not `@app.call_tool()`: it marks
                          if HANDLER_WORDS.search(name) and name not in safety  # the dispatcher, not a handler
                          and not DISPATCH_WORDS.search(name.rpartition(".")[2])]
    handler_lines = []
    if handler_decorators:
        handler_lines.append(f"decorators = {_toml_list(handler_decorators)}  # " + "; ".join(
            f"{name} on {ev.decorators[name]} function(s), e.g. {ev.decorator_at[name]}"
            for name in handler_decorators[:4]))
        if safety:
            handler_lines.append(f'safety-decorator = "{safety[0]}"  # on {ev.decorators[safety[0]]} function(s), '
                                 f"e.g. {ev.decorator_at[safety[0]]}")
        elif base == "canonical":
            handler_lines.append('safety-decorator = ""  # none found; name yours to have RA308 check it')
    elif base == "iar":
        handler_lines.append("decorators = []  # no handler-like decorator found")
    # a register call counts when it is handed functions defined in the tree (not API keys or plugins' names)
    registers = [name for name, _ in ev.register_calls.most_common()
                 if any(target in ev.functions for _, target in ev.register_args[name])]
    if registers:
        top = registers[0]
        # the position that most often holds a function defined in the tree
        scores = Counter(i for i, target in ev.register_args[top] if target in ev.functions)
        position = scores.most_common(1)[0][0]
        handler_lines.append(f"register-calls = {_toml_list(registers)}  # " + "; ".join(
            f"{name} called {ev.register_calls[name]} time(s), e.g. {ev.register_at[name]}" for name in registers[:3]))
        handler_lines.append(f"register-function-position = {position}  # where the function is passed to {top}")
        if ev.register_name_positions[top]:
            named = ev.register_name_positions[top].most_common(1)[0][0]
            handler_lines.append(f"register-name-position = {named}  # where its name is passed")
    if ev.dispatch_tables:
        handler_lines.append(f"dispatch-tables = {_toml_list(sorted(ev.dispatch_tables))}  # " + "; ".join(
            f"{name} at {at}" for name, at in sorted(ev.dispatch_tables.items())[:3]))
    # a dispatcher needs a second sign: a decorator or a name that says it handles tool calls
    dispatchers = {name: found for name, found in ev.dispatchers.items()
                   if DISPATCH_WORDS.search(name) or any(DISPATCH_WORDS.search(d.rpartition(".")[2])
                                                         and name in ev.decorated[d] for d in ev.decorated)}
    if dispatchers:
        handler_lines.append(f"dispatch-functions = {_toml_list(sorted(dispatchers))}  # " + "; ".join(
            f"{name} at {at}: {n} branches on a name" for name, (at, n) in sorted(dispatchers.items())[:3]))
        if not handler_decorators and not safety and base == "canonical":
            handler_lines.append('safety-decorator = ""  # none found; name yours to have RA308 check it')
    scope_lines = _scope_lines(ev)
    if scope_lines:
        lines += ["", "[tool.reply-audit.scan]", *scope_lines]
    if handler_lines:
        lines += ["", "[tool.reply-audit.handlers]", *handler_lines]
    # the functions that are handlers by what init proposes: a reply function or class is one a handler returns
    handlers = {f for name in handler_decorators for f in ev.decorated[name]} | ev.table_targets | {
        target for name in registers for _, target in ev.register_args[name]} | {
        f for name in dispatchers for f in ev.dispatched[name]}
    not_proposed: list[str] = []
    # a code list is one whose members are passed where a code goes (a second sign besides its name)
    enums = {name: at for name, at in ev.enums.items()
             if name in ev.code_refs or ev.member_values.get(name, set()) & ev.code_strings}
    not_proposed += [f"{name} at {at}: named like a code list, but none of its members is passed where a code goes"
                     for name, at in sorted(ev.enums.items()) if name not in enums]
    plain = {ident: at for ident, at in ev.plain_codes.items() if ident.rsplit("::", 1)[1] in ev.code_refs
             and _writable(ident)}
    not_proposed += [f"{ident.rsplit('::', 1)[1]} at {at}: a class of strings named like codes, but none of them is "
                     "passed where a code goes" for ident, at in sorted(ev.plain_codes.items()) if ident not in plain]
    if enums or plain:
        values = {v for name in [*enums, *(i.rsplit("::", 1)[1] for i in plain)]
                  for v in ev.member_values.get(name, set())}
        lines += ["", "[tool.reply-audit.codes]"]
        if enums:
            lines.append(f"enums = {_toml_list(sorted(enums))}  # " + "; ".join(
                f"{name} at {at}" for name, at in sorted(enums.items())[:3]))
        lines.append(_pattern_line(values))
    if plain:
        lines += ["", "[tool.reply-audit.registries]",
                  f"canonical = {_toml_list(sorted(_literal_glob(i) for i in plain))}  # " + "; ".join(
                      f"{ident.rsplit('::', 1)[1]} at {at}, its members passed where a code goes"
                      for ident, at in sorted(plain.items())[:3])]
    functions: dict[str, str] = {}
    for name, (letter, keyword, position) in sorted(ev.builders.items()):
        if base == "iar" or ev.builder_methods:   # a builder class is there: replies come from its methods
            break
        if name in ev.envelope_classes:
            continue
        if not ev.returned_by.get(name, set()) & handlers:
            not_proposed.append(f"{name} at {ev.builder_at[name]}: named like a reply function, but no handler "
                                "returns what it builds")
            continue
        spec = f'{{ type = "{letter}"'
        spec += f', code-keyword = "{keyword}"' if keyword else ""
        spec += f", code-position = {position}"
        functions[name] = f"{_key(name)} = {spec} }}  # {ev.builder_at[name]}"
    for name, at in sorted(ev.envelope_classes.items()):
        if base == "iar":
            break
        if not ev.returned_by.get(name, set()) & handlers:
            not_proposed.append(f"{name} at {at}: built with success=..., but no handler returns it")
            continue
        code = f'code-keyword = "{ev.envelope_codes[name]}", ' if name in ev.envelope_codes else ""
        functions[name] = (f'{_key(name)} = {{ type-keyword = "success", type-values = {{ true = "S", false = "E" }}, '
                           f"{code}code-position = -1 }}  # constructed with success=..., {at}")
    if functions:
        lines += ["", "[tool.reply-audit.builder.functions]", *functions.values()]
        if not ev.builder_methods:
            lines += ["", "[tool.reply-audit.builder]",
                      'code-required = ["E"]  # replies built by functions; success replies usually carry no code']
    if not_proposed:
        lines += ["", "# Seen but not proposed (one sign is not enough):",
                  *(f"# - {why}" for why in not_proposed[:12])]
        if len(not_proposed) > 12:
            lines.append(f"# - … and {len(not_proposed) - 12} more")
    return "\n".join(lines) + "\n"


SPELLINGS = (("lower snake_case", r"^[a-z][a-z0-9]*(?:_[a-z0-9]+)*$"),
             ("UPPER_SNAKE_CASE", r"^[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)*$"))


def _pattern_line(values: set[str]) -> str:
    """`[codes] pattern` for the one spelling all the code lists' string VALUES share, or a hint to set it."""
    canonical = values and all(vocabulary().looks_canonical(v) for v in values)   # the built-in pattern already
    for spelling, pattern in SPELLINGS:
        if values and not canonical and all(re.match(pattern, v) for v in values):
            return f"pattern = '{pattern}'  # all {len(values)} string values of these code lists are {spelling}"
    return "# pattern = '...'  # set it to the spelling of your codes (docs/profiles.md)"


def _scope_lines(ev: Evidence) -> list[str]:
    """`[scan] exclude`: the built-in profile's entries plus the trees that hold no code of the project's own."""
    if ev.scope is None:
        return []
    builtin = load_profile("canonical").scan_list("exclude")
    added = [name for name in sorted(ev.scope.excludes) if name not in builtin]
    out = [f"exclude = {_toml_list(builtin + added)}"] if added else []
    out += [f"# {_comment_text(name)}: {_comment_text(ev.scope.excludes[name])}" for name in added]
    out += [f"# {_comment_text(copy)}/ is an identical copy of {_comment_text(original)}/ (every Python file, "
            "byte for byte): exclude the stale one" for copy, original in sorted(ev.scope.copies.items())[:12]]
    return out


def _comment_text(text: str) -> str:
    """TEXT safe inside a TOML comment: one line, no control characters."""
    return "".join(c if c.isprintable() else "?" for c in text)


def base_profile(ev: Evidence) -> str:
    """The built-in profile the tree looks written for: iar when its returns carry reflections more often than
    its strings look like canonical codes."""
    return "iar" if ev.reflection_returns > 0 and ev.reflection_returns >= ev.canonical_codes else "canonical"


def write_section(root: Path, text: str) -> Path:
    """Append TEXT to ROOT/pyproject.toml (created if missing); refuse when a section is already there."""
    import tomllib

    pyproject = root / "pyproject.toml"
    raw = pyproject.read_bytes() if pyproject.is_file() else b""
    try:
        current = raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise UserError(f"{pyproject} is not UTF-8; fix it before adding a section") from None
    crlf = b"\r\n" in raw
    current = current.replace("\r\n", "\n")
    try:
        existing = tomllib.loads(current)
    except tomllib.TOMLDecodeError as exc:
        raise UserError(f"{pyproject} is not valid TOML ({exc}); fix it before adding a section") from None
    if "reply-audit" in existing.get("tool", {}):
        raise UserError(f"{pyproject} already has a [tool.reply-audit] section; edit it, or print a proposal "
                        "with `reply-audit init` (without --write) and merge by hand")
    separator = "" if not current or current.endswith("\n\n") else ("\n" if current.endswith("\n") else "\n\n")
    combined = current + separator + text
    try:
        tomllib.loads(combined)
    except tomllib.TOMLDecodeError as exc:   # `tool = { black = {...} }` cannot take a [tool.reply-audit] table
        raise UserError(f"{pyproject}: the section cannot be appended ({exc}); print it with `reply-audit init` "
                        "and merge it by hand") from None
    data = combined.replace("\n", "\r\n") if crlf else combined
    pyproject.write_bytes(data.encode("utf-8"))
    return pyproject
