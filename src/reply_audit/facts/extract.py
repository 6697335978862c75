"""One pass over one module's `ast` tree that yields its `FileFacts` (the expressions it reads: `expressions`).

The walk follows statements recursively and looks into expressions only for
what can be there (a cheap byte search of the source decides whether a file
can contain codes, builder-method calls or `.message` at all). Scopes are
tracked so that a call `rb.invalid(...)` knows what `rb` was bound from
(an assignment from a class or factory, an annotation, `self.X` set in a
method, a class name, or a configured receiver name), whether it is the
returned value, whether it is inside an `except` and how broad that is, and
which function and handler enclose it.
"""

from __future__ import annotations

import ast
import fnmatch
import hashlib
import re
from bisect import bisect_left
from collections.abc import Callable, Iterator, Sequence
from typing import Any, TypeVar, cast

from ..names import Names
from ..profile import Profile
from .builders import BuilderReader
from .envelopes import EnvelopeReader
from .expressions import (
    _CONSTANT_NAME,
    _NEWLINE,
    _ONE_STRING,
    FUNCTIONS,
    GUARD_DEPTH,
    TEXT_TESTS,
    BindingStep,
    _annotation_class,
    _bound_calls,
    _branch_key_values,
    _callee,
    _constructed,
    _derived_from,
    _dict_branches,
    _dict_pairs,
    _except_kind,
    _except_types,
    _guard_text,
    _has_unknown_keys,
    _is_main_guard,
    _iter_block,
    _key_values,
    _lf_only,
    _literal_kind,
    _literal_type,
    _local_names,
    _module_names,
    _reads_fixed_keys,
    _texts,
    _top_calls,
    class_like,
    fold_bindings,
    param_reads,
    top_level_functions,
)
from .line_probe import LineProbe
from .model import (
    CallFact,
    CodeLiteral,
    FactoryFact,
    FileFacts,
    HandlerFact,
    ImportFact,
    MappingFact,
    MessageUse,
    RegistrationFact,
    RegistryFact,
    ReturnFact,
)
from .registrations_reader import RegistrationReader
from .registries import RegistryReader, dotted_name, last_name, str_value
from .result_shapes import ResultShapeReader
from .scopes import Looked, Tally, Watched, _Class, _Ctx, _Function
from .signatures import read_wrapper
from .versions import VersionReader
from .walking import children, nodes_of, source_text, walk

_T = TypeVar("_T")
_CODING = re.compile(rb"^[ \t\f]*#.*?coding[:=]")   # as the tokenizer finds a declaration (PEP 263)
_POSITION_HOLDERS = (ast.Call, ast.Dict, ast.Compare)   # the nodes that may hold a place where a code goes
_CALLS, _RAISES, _NAMES, _FSTRINGS = (ast.Call,), (ast.Raise,), (ast.Name,), (ast.JoinedStr,)   # (for `nodes_of`)
TEXTS_KEPT = 10_000   # across versions: results kept by text (cleared when full; versions come in order)


def _frozen(sets: tuple[set[str], set[str]]) -> tuple[frozenset[str], frozenset[str]]:
    return frozenset(sets[0]), frozenset(sets[1])


# The method `_stmt` hands each kind of statement to; a class the parser does not make (a subclass) is tested in
# this order, and any other statement's expressions are read by `_other`.
_STATEMENT_KINDS: tuple[tuple[type | tuple[type, ...], str], ...] = (
    (FUNCTIONS, "_function"), (ast.ClassDef, "_class"), ((ast.Assign, ast.AnnAssign), "_assign"),
    (ast.Return, "_return"), (ast.If, "_if"), ((ast.Try, ast.TryStar), "_try"),
    ((ast.Import, ast.ImportFrom), "_import"), ((ast.For, ast.AsyncFor), "_for"), (ast.While, "_while"),
    ((ast.With, ast.AsyncWith), "_with"), (ast.Match, "_match"), (ast.Assert, "_assert"),
)
_STATEMENTS: dict[type, str] = {kind: name for types, name in _STATEMENT_KINDS
                                for kind in (types if isinstance(types, tuple) else (types,))}
_STATEMENTS.update(dict.fromkeys((ast.Expr, ast.AugAssign, ast.Raise, ast.Delete, ast.Pass, ast.Break, ast.Continue,
                                  ast.Global, ast.Nonlocal), "_other"))


class FactsExtractor(EnvelopeReader, ResultShapeReader, RegistrationReader):
    """Builds the `FileFacts` of one parsed module for one profile."""

    def __init__(self, profile: Profile, across_versions: bool = False) -> None:
        """ACROSS_VERSIONS: the extractor reads many versions of the same files (`history`), so what a function's
        own text decides (its local names, the locals passed on from its parameters) is worked out once per
        text and kept across files (`_by_text`)."""
        self.profile = profile
        # each kind of statement's method, bound once (a block looks one up per statement)
        self._handlers: dict[type, Callable[[Any, _Ctx], None]] = {
            kind: getattr(self, name) for kind, name in _STATEMENTS.items()}
        self._texts: dict[tuple[str, bytes], Any] | None = {} if across_versions else None
        # across versions: each file read a top-level statement at a time, those an earlier version shared moved
        self.versions = VersionReader(self) if across_versions else None
        self.registries = RegistryReader(profile)
        self.builders = BuilderReader(profile)
        self.methods = profile.all_builder_methods
        self.receiver_names = frozenset(profile.builder_list("receiver_names"))
        self.reply_classes = Names(profile.builder_list("reply_classes"))
        self.code_keyword = profile.code_keyword
        # names that say "a code goes here": as a keyword, a dict key, or the name a comparison reads
        self.code_names = frozenset({"code", "error_code", "reply_code", "result_code", self.code_keyword,
                                     *profile.setting("registries", "code_keywords"),
                                     *(str(spec["code_keyword"]) for spec in profile.builder_functions.values()),
                                     *(profile.method_code_argument(m)[0] for m in profile.builder_methods)})
        self.code_position = profile.code_position
        self.decorators = profile.handler_decorators
        self.safety = profile.safety_decorator
        self.safety_name = self.safety.rpartition(".")[2]
        self.serializers = frozenset(profile.setting("envelope", "serializers"))
        self.message_attrs = profile.message_attributes
        self.functions = profile.builder_functions
        self.function_names = profile.builder_function_names   # a key may be a glob: `"*Response" = { … }`
        handlers = profile.section("handlers")
        self.register_calls = frozenset(handlers.get("register_calls", []))
        self.register_name_position = int(handlers.get("register_name_position", 0))
        self.register_function_position = int(handlers.get("register_function_position", 1))
        self.register_function_keywords = frozenset(handlers.get("register_function_keywords", []))
        self.register_name_keywords = frozenset(handlers.get("register_name_keywords", []))
        self.dispatch_tables = frozenset(handlers.get("dispatch_tables", []))
        self.name_patterns = tuple(handlers.get("name_patterns", []))
        self.dispatch_functions = frozenset(handlers.get("dispatch_functions", []))
        # Undecorated functions may be handlers when a registration elsewhere names them.
        self.candidates = bool(self.register_calls or self.dispatch_tables or self.dispatch_functions)
        result = profile.section("result")
        self.result_shapes = bool(result.get("required_keys"))
        self.result_helpers = {name: spec for name, spec in result.get("helpers", {}).items()
                               if isinstance(spec, dict)}
        # a key's older name -> the name the profile checks (dotted: `"iar" = "reflection"`)
        self.key_aliases = {str(k): str(v) for k, v in result.get("key_aliases", {}).items()}
        method_alt = "|".join(sorted(re.escape(m) for m in self.methods)) or "(?!)"
        function_alt = "|".join(p for p in (self.function_names.pattern(),
                                            "|".join(re.escape(f) for f in sorted(self.register_calls)))
                                if p and p != "(?!)") or "(?!)"
        # `.error(` and `error_response(`, probed apart: a pattern opening with `\.` is found by a fast scan for
        # the dot, one opening with an alternative that may be empty is tried at every byte (30 times slower)
        self._call_probes = [LineProbe(re.compile(rb"\.(?:" + method_alt.encode() + rb")\s*\("))]
        if function_alt != "(?!)":
            self._call_probes.append(LineProbe(re.compile(rb"\b(?:" + function_alt.encode() + rb")\s*\(")))
        self._code_probe = LineProbe(profile.code_search_re)
        self._message_probe = LineProbe(re.compile(
            rb"\.(?:" + ("|".join(re.escape(a) for a in sorted(self.message_attrs)) or "(?!)").encode() + rb")\b"
        ))

    # ------------------------------------------------------------------ entry
    def extract(self, tree: ast.Module, source: bytes, facts: FileFacts) -> FileFacts:
        self.begin(source, facts)
        self.module_context(tree.body, *_module_names(tree.body))
        self.read_part(tree.body, more_after=False)
        self.finish(any(_is_main_guard(s) for s in tree.body), *top_level_functions(tree.body))
        return facts

    # A file is read in three steps, so that `facts.versions` can read it a top-level statement at a time and take
    # the statements an earlier version shared from what it kept of them: `begin` (the file's bytes), then
    # `module_context` (what every statement may look up: the module's names, import aliases and bindings), then
    # `read_part` for each run of top-level statements, in order, then `finish`.
    def begin(self, source: bytes, facts: FileFacts) -> None:
        """Start on a file: its bytes and the lines the probes find."""
        self.facts = facts
        self.source = source
        self.walrus = b":=" in source   # a file without the bytes has no assignment expression
        self._lines: list[bytes] | None = None
        self._coding: bytes | None = None   # read by `_by_text`, across versions only
        self.hot_lines: list[int] = []
        probed = _lf_only(source)
        self.want_codes = self._probe(self._code_probe, probed)
        self.want_calls = any([self._probe(probe, probed) for probe in self._call_probes])   # (each notes lines)
        self.want_messages = self._probe(self._message_probe, probed)
        self.hot_lines.sort()
        self.call_ids: dict[int, int] = {}
        self.mapping_by_name: dict[str, MappingFact] = {}
        self.tally = Tally()
        self._bare: tuple[int, bool] = (0, False)
        self._assigned: tuple[int, str, _Function] | None = None   # the last `name = call(...)` in a function
        self._reads_of: dict[int, frozenset[str]] = {}
        self._guard_texts: dict[tuple[int, bool], str] = {}     # by the guard's id: the file's tree outlives them
        self._guard_read: dict[int, tuple[_Function | None, str]] = {}
        # function -> its locals passed on from params; one file's only, so no tree outlives its file
        self._derived_cache: dict[int, tuple[_Function, tuple[frozenset[str], frozenset[str]]]] = {}

    def module_context(self, body: list[ast.stmt] | None, names: set[str], aliases: dict[str, str],
                       bindings: dict[str, tuple[str, str, int]] | None = None,
                       constructions: set[tuple[str, int]] | None = None) -> None:
        """What a statement may look up outside itself: the module's top-level NAMES and import ALIASES, and the
        names its top-level statements bind to a call (`rb = ReplyBuilder()`). The BINDINGS are worked out from
        BODY when first asked for, or given with the CONSTRUCTIONS (class, line) among them."""
        self.aliases = aliases
        self.facts.bound_names = sorted(names)
        self.facts.import_aliases = dict(sorted(aliases.items()))
        self._module_body = body
        self._module_map = bindings
        self._module_made = constructions if constructions is not None else set()

    def read_part(self, body: list[ast.stmt], more_after: bool) -> None:
        """Read top-level statements (MORE_AFTER: the module has statements after them)."""
        if self.want_codes:
            self.code_positions = self._code_positions(body)
        else:
            self.code_positions = set()
        # `raise ToolError(...)`: an exception, never a reply, whatever a glob of reply functions matches
        self._raised = {id(n.exc) for n in nodes_of(body, _RAISES) if isinstance(n.exc, ast.Call)} \
            if self.want_calls and self.function_names.globs else set()
        self._block(body, _Ctx(), more_after)

    def read_alone(self, body: list[ast.stmt], text: bytes, spots: list[int], more_after: bool) \
            -> tuple[FileFacts, Tally, Looked] | None:
        """Read top-level statements of the file parsed alone from TEXT, their lines counted from its first, as
        `read_part` would in the file, into facts and a tally of their own (lines counted from TEXT's first, call
        indexes from 0), and say which names of the module's context the reading looked up; SPOTS are the lines
        of TEXT the file's probes found. None when reading them alone cannot say what reading them in the file
        does: they define the safety decorator (its text cites lines) or add entries to a mapping table defined
        above them."""
        touched = self.tally.module_touched
        bindings = self._module_bindings()   # (worked out now if need be: that is no reading's look-up)
        self.tally.module_touched = touched
        kept = (self.facts, self.source, self._lines, self._coding, self.hot_lines, self.tally, self.mapping_by_name,
                self.aliases, self._module_map)
        above = {name: MappingFact(name=m.name, line=m.line) for name, m in self.mapping_by_name.items()}
        looked = Looked(Watched(self.aliases), Watched(bindings), Watched(above))
        self.facts = FileFacts(path=kept[0].path, is_test=kept[0].is_test)
        # (the file has no coding declaration: `facts.top_level` reads no piece of one that has)
        self.source, self._lines, self._coding, self.hot_lines, self.tally = text, None, b"", spots, Tally()
        self.aliases, self._module_map, self.mapping_by_name = looked.aliases, looked.bindings, looked.tables
        try:
            self.read_part(body, more_after)
            alone = self.facts, self.tally, looked
        finally:
            (self.facts, self.source, self._lines, self._coding, self.hot_lines, self.tally, self.mapping_by_name,
             self.aliases, self._module_map) = kept
        if alone[0].wrappers or any(m.entries for m in above.values()):
            return None
        return alone

    def finish(self, script: bool, functions: list[str], params: dict[str, list[str]]) -> None:
        """The module-wide facts, once every statement is read: SCRIPT (a main guard at top level), the names of
        the top-level FUNCTIONS (a name twice when defined twice) and their PARAMS."""
        facts = self.facts
        facts.script = script
        facts.functions = sorted(functions)
        facts.function_params = params
        tally = self.tally
        facts.position_refs = sorted(tally.position_refs)
        if tally.module_touched:   # every construction bound at top level counts, once the bindings were read
            tally.instantiated |= self._module_made
            bindings = self._module_bindings()
            for name in tally.module_reads:
                callee, kind, line = bindings[name]
                if kind == "assign":
                    tally.instantiated.add((callee, line))
        self._finish_constants()
        facts.instantiations = sorted(tally.instantiated, key=lambda t: (t[1], t[0]))

    def _module_bindings(self) -> dict[str, tuple[str, str, int]]:
        """The module's top-level bindings (`module_context`), worked out on first use."""
        self.tally.module_touched = True
        if self._module_map is None:
            self._module_map = fold_bindings(self.binding_steps(self._module_body or [], None), self._module_made)
        return self._module_map

    def _read_names(self, fn: _Function) -> frozenset[str]:
        """The names a function's body reads anywhere (nested functions included: a closure may read them)."""
        key = id(fn.body)
        if key not in self._reads_of:
            _names_read(fn.body, self._reads_of)
        return self._reads_of[key]

    def _code_positions(self, body: list[ast.stmt]) -> set[int]:
        """The string constants of TREE in a place where a code goes: a builder method's or reply function's code
        argument, a keyword or dict key naming a code (`error_code=`, `{"code": ...}`), a comparison with a name
        naming a code (`result.code == "NOT_FOUND"`), either side of `x or "CODE"` and `a if t else "CODE"` there."""
        found: list[ast.AST] = []
        names = self.code_names
        for node in nodes_of(body, _POSITION_HOLDERS):
            if isinstance(node, ast.Call):
                found += [kw.value for kw in node.keywords if kw.arg in names]
                name = last_name(node.func)
                if isinstance(node.func, ast.Attribute) and node.func.attr in self.methods:
                    position = self.profile.method_code_argument(node.func.attr)[1]
                elif (key := self.function_names.key(name or "")) and not self.functions[key].get("code"):
                    position = int(self.functions[key]["code_position"])
                else:
                    continue
                if 0 <= position < len(node.args):
                    found.append(node.args[position])
            elif isinstance(node, ast.Dict):
                found += [v for k, v in zip(node.keys, node.values) if str_value(k) in names]
            elif isinstance(node, ast.Compare) and len(node.comparators) == 1:
                sides = [node.left, node.comparators[0]]
                if any((dotted_name(side) or "").rpartition(".")[2] in names for side in sides):
                    found += sides
        out: set[int] = set()
        refs: list[str] = []
        while found:
            part = found.pop()
            if isinstance(part, ast.Constant):
                out.add(id(part))
            elif isinstance(part, ast.Attribute) and (ref := dotted_name(part)):
                refs.append(ref)   # `ErrorCodes.BAD_INPUT`: a registry used where a code goes
            elif isinstance(part, ast.IfExp):
                found += [part.body, part.orelse]
            elif isinstance(part, ast.BoolOp):
                found += part.values
            elif isinstance(part, (ast.Tuple, ast.List, ast.Set)):   # `code in ("A", "B")`
                found += part.elts
        self.tally.position_refs.update(refs)
        return out

    def _by_text(self, what: str, first: int, last: int, work: Callable[[], _T]) -> _T:
        """WORK's result, when WORK reads nothing of the file but the syntax written on lines FIRST to LAST (and
        WHAT names the rest it depends on): computed, or (across versions) taken from the last time those lines,
        with the same coding declaration, were read."""
        if self._texts is None:
            return work()
        if self._lines is None:
            self._lines = _NEWLINE.split(self.source)
        if self._coding is None:   # a coding declaration (on one of the first two lines) changes what bytes say
            head = self._lines[:2]
            self._coding = b"\n".join(head) if any(_CODING.search(line) for line in head) else b""
        text = b"\n".join(self._lines[first - 1:last])
        key = (what, hashlib.blake2b(self._coding + b"\0" + text, digest_size=16).digest())
        if key not in self._texts:
            if len(self._texts) >= TEXTS_KEPT:
                self._texts.clear()
            self._texts[key] = work()
        return cast(_T, self._texts[key])

    def _line(self, number: int) -> bytes:
        if self._lines is None:
            self._lines = _NEWLINE.split(self.source)
        return self._lines[number - 1] if 0 < number <= len(self._lines) else b""

    def _plain(self, node: ast.Constant) -> bool:
        """Is this string constant one literal in the source (not `"A-" "B"`), so it can be edited as one?"""
        if node.end_lineno != node.lineno:
            return False
        return _ONE_STRING.fullmatch(self._line(node.lineno)[node.col_offset:node.end_col_offset]) is not None

    def _inline_body(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
        first = node.body[0]
        return bool(self._line(first.lineno)[:first.col_offset].strip())

    def _probe(self, probe: LineProbe, source: bytes) -> bool:
        """Note the lines where PROBE's pattern matches; expressions elsewhere need no walk."""
        lines = probe.lines(source)
        self.hot_lines += lines
        return bool(lines)

    def _is_hot(self, node: ast.AST) -> bool:
        start = getattr(node, "lineno", None)
        if start is None:
            return True
        i = bisect_left(self.hot_lines, start)
        return i < len(self.hot_lines) and self.hot_lines[i] <= (getattr(node, "end_lineno", None) or start)

    # --------------------------------------------------------------- bindings
    def _bindings(self, body: list[ast.stmt], args: ast.arguments | None) -> dict[str, tuple[str, str, int]]:
        return fold_bindings(self.binding_steps(body, args), self.tally.instantiated)

    def binding_steps(self, body: list[ast.stmt], args: ast.arguments | None) -> Iterator[BindingStep]:
        """What each parameter and statement of a body binds a name to, in order (see `fold_bindings`)."""
        if args is not None:
            for arg in (*args.posonlyargs, *args.args, *args.kwonlyargs):
                cls = _annotation_class(arg.annotation)
                if cls:
                    yield arg.arg, (cls, "annotation", arg.lineno), True, False
        for stmt in _iter_block(body):
            for name, call in _bound_calls(stmt, self.walrus):
                callee = _callee(call)
                if callee:   # (a construction, used or only passed on, when the name takes it)
                    yield name, (callee, "assign", call.lineno), False, class_like(callee)
            if isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
                cls = _annotation_class(stmt.annotation)
                if cls:
                    yield stmt.target.id, (cls, "annotation", stmt.lineno), True, False
            elif isinstance(stmt, (ast.With, ast.AsyncWith)):
                for item in stmt.items:
                    if isinstance(item.optional_vars, ast.Name) and isinstance(item.context_expr, ast.Call):
                        callee = _callee(item.context_expr)
                        if callee:
                            yield item.optional_vars.id, (callee, "assign", stmt.lineno), True, False

    def _self_bindings(self, node: ast.ClassDef) -> dict[str, tuple[str, int]]:
        out: dict[str, tuple[str, int]] = {}
        for stmt in node.body:
            if not isinstance(stmt, FUNCTIONS):
                continue
            for sub in _iter_block(stmt.body):
                if isinstance(sub, ast.Assign) and isinstance(sub.value, ast.Call):
                    callee = _callee(sub.value)
                    for target in sub.targets:
                        if (isinstance(target, ast.Attribute) and isinstance(target.value, ast.Name)
                                and target.value.id == "self" and callee):
                            out[target.attr] = (callee, sub.lineno)
        return out

    def _resolve_receiver(self, node: ast.AST, ctx: _Ctx) -> tuple[str, str | None, str] | None:
        """(receiver text, binding, binding kind) or None when it is no builder receiver."""
        if isinstance(node, ast.Name):
            for scope in reversed(ctx.functions):
                if node.id in scope.bindings:
                    callee, kind, line = scope.bindings[node.id]
                    if kind == "assign":
                        self.tally.instantiated.add((callee, line))
                    return node.id, callee, kind
            module = self._module_bindings()
            if node.id in module:
                callee, kind, _ = module[node.id]
                self.tally.module_reads.add(node.id)   # (its construction counts: `finish`)
                return node.id, callee, kind
            if class_like(node.id):
                return node.id, node.id, "class"
            if node.id in self.receiver_names:
                return node.id, None, "name"
            return None
        if isinstance(node, ast.Attribute):
            if isinstance(node.value, ast.Name) and node.value.id == "self" and ctx.cls is not None:
                bound = ctx.cls.self_bindings.get(node.attr)
                if bound:
                    self.tally.instantiated.add(bound)
                    return f"self.{node.attr}", bound[0], "self_attr"
                if node.attr in self.receiver_names:
                    return f"self.{node.attr}", None, "name"
                return None
            if class_like(node.attr):
                return dotted_name(node) or node.attr, node.attr, "class"
            if node.attr in self.receiver_names:
                return dotted_name(node) or node.attr, None, "name"
            return None
        if isinstance(node, ast.Call):
            made_of = _callee(node)
            if made_of:
                self.tally.instantiated.add((made_of, node.lineno))
                return f"{made_of}(...)", made_of, "assign"
        return None

    # ------------------------------------------------------------- statements
    def _block(self, body: list[ast.stmt], ctx: _Ctx, more_after: bool = False) -> None:
        last = len(body) - (0 if more_after else 1)
        handlers = self._handlers
        for i, stmt in enumerate(body):
            if type(stmt) is ast.Expr and type(stmt.value) is ast.Call:
                # a call whose value is dropped: `rb.denied(...)` as a statement
                self._bare = (id(stmt.value), i < last)
            elif type(stmt) is ast.Assign and type(stmt.value) is ast.Call and len(stmt.targets) == 1 \
                    and type(stmt.targets[0]) is ast.Name and ctx.function is not None:
                # `err = error_response(...)`: unused if err is never read (asked only of a reply call)
                self._assigned = (id(stmt.value), stmt.targets[0].id, ctx.function)
            # by the exact class: one look-up, not a dozen isinstance tests (a subclass: `_stmt`)
            (handlers.get(type(stmt)) or self._stmt)(stmt, ctx)

    def _stmt(self, stmt: ast.stmt, ctx: _Ctx) -> None:
        """STMT handed to its kind's method: a subclass of a kind by the order of `_STATEMENT_KINDS`."""
        handler = self._handlers.get(type(stmt))
        if handler is None:
            handler = getattr(self, next((n for types, n in _STATEMENT_KINDS if isinstance(stmt, types)), "_other"))
        handler(stmt, ctx)

    def _for(self, stmt: ast.For | ast.AsyncFor, ctx: _Ctx) -> None:
        self._expr(stmt.target, ctx)
        self._expr(stmt.iter, ctx)
        self._block(stmt.body, ctx)
        self._block(stmt.orelse, ctx)

    def _while(self, stmt: ast.While, ctx: _Ctx) -> None:
        self._expr(stmt.test, ctx, condition=True)
        self._block(stmt.body, ctx)
        self._block(stmt.orelse, ctx)

    def _with(self, stmt: ast.With | ast.AsyncWith, ctx: _Ctx) -> None:
        for item in stmt.items:
            self._expr(item.context_expr, ctx)
        self._block(stmt.body, ctx)

    def _match(self, stmt: ast.Match, ctx: _Ctx) -> None:
        self._expr(stmt.subject, ctx, condition=True)
        for case in stmt.cases:
            if case.guard is not None:
                self._expr(case.guard, ctx, condition=True)
            self._block(case.body, ctx)

    def _assert(self, stmt: ast.Assert, ctx: _Ctx) -> None:
        self._expr(stmt.test, ctx, condition=True)
        if stmt.msg is not None:
            self._expr(stmt.msg, ctx)

    def _other(self, stmt: ast.stmt, ctx: _Ctx) -> None:
        if not self._is_hot(stmt):   # (nor is any expression inside it: `_expr` would read none)
            return
        for child in children(stmt):
            if isinstance(child, ast.expr):
                self._expr(child, ctx)

    def _if(self, stmt: ast.If, ctx: _Ctx) -> None:
        self._expr(stmt.test, ctx, condition=True)
        guarded = dotted_name(stmt.test) in ("TYPE_CHECKING", "typing.TYPE_CHECKING")
        fn = ctx.function
        if (fn is None or fn.handler is None) and not self._is_hot(stmt):
            # the guards are read by the calls a probe found and by a handler's returns: neither is in here
            self._block(stmt.body, ctx.but(type_checking=True) if guarded and not ctx.type_checking else ctx)
            self._block(stmt.orelse, ctx)
            return
        self._block(stmt.body, ctx.but(type_checking=ctx.type_checking or guarded,
                                       guards=(*ctx.guards, (stmt.test, False))))
        self._block(stmt.orelse, ctx.but(guards=(*ctx.guards, (stmt.test, True))))

    def _try(self, stmt: ast.Try | ast.TryStar, ctx: _Ctx) -> None:
        self._block(stmt.body, ctx)
        # how the try block reads the parameters: only a handler's own returns in its excepts say it
        in_handler = ctx.function is not None and ctx.function.handler is not None
        try_reads = self._reads(list(stmt.body), ctx) if in_handler and stmt.handlers else ""
        try_fixed_keys = in_handler and bool(stmt.handlers) and _reads_fixed_keys(stmt.body)
        for handler in stmt.handlers:
            if handler.type is not None:
                self._expr(handler.type, ctx)
            self._block(handler.body, ctx.but(except_kind=_except_kind(handler), except_line=handler.lineno,
                                              except_types=_except_types(handler),
                                              try_reads=try_reads, try_fixed_keys=try_fixed_keys))
        self._block(stmt.orelse, ctx)
        self._block(stmt.finalbody, ctx)

    @staticmethod
    def _qualname(name: str, ctx: _Ctx) -> str:
        return f"{ctx.prefix}.{name}" if ctx.prefix else name

    def _handler_decorators(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> list[str]:
        """The handler and safety decorators of a function, or [] when it is no handler."""
        found, handler = [], False
        for dec in node.decorator_list:
            name = dotted_name(dec.func if isinstance(dec, ast.Call) else dec)
            if not name:
                continue
            head, _, rest = name.partition(".")
            if head in self.aliases:  # `from safety import mcp_safe_tool as safe`: @safe is @mcp_safe_tool
                name = self.aliases[head] + (f".{rest}" if rest else "")
            if any(name == d or name.endswith("." + d) for d in self.decorators):
                found.append(name)
                handler = True
            elif self.safety and (name == self.safety or name.endswith("." + self.safety)):
                found.append(name)
        return found if handler else []

    def _function(self, node: ast.FunctionDef | ast.AsyncFunctionDef, ctx: _Ctx) -> None:
        for dec in node.decorator_list:
            self._expr(dec, ctx)
        if node.name == self.safety_name and not ctx.functions and ctx.cls is None:
            self.facts.wrappers.append(read_wrapper(node, self.reply_classes, self.profile.method_type,
                                                    self.profile.code_type))
        qualname = self._qualname(node.name, ctx)
        decorators = self._handler_decorators(node)
        handler = None
        outer = not ctx.functions and (ctx.cls is None or ctx.prefix == ctx.cls.qualname)
        named = outer and any(fnmatch.fnmatchcase(node.name, p) for p in self.name_patterns)
        if node.name in self.dispatch_functions:
            self._dispatch_branches(node)
        candidate = not decorators and not named and self.candidates and not ctx.functions
        if decorators or named or candidate:
            handler = HandlerFact(name=node.name, qualname=qualname, line=node.lineno, decorators=decorators,
                                  candidate=candidate,
                                  end_line=node.end_lineno or node.lineno, top_calls=_top_calls(node.body),
                                  inline_body=self._inline_body(node),
                                  asynchronous=isinstance(node, ast.AsyncFunctionDef),
                                  annotation=source_text(node.returns) if node.returns is not None else None,
                                  first_line=min([d.lineno for d in node.decorator_list] + [node.lineno]))
            self.facts.handlers.append(handler)
        is_method = ctx.cls is not None and ctx.prefix == ctx.cls.qualname
        returns = None if is_method else _annotation_class(node.returns)
        if returns:
            self.facts.factories.append(FactoryFact(name=node.name, line=node.lineno, returns=returns))
        scope = _Function(qualname=qualname, body=node.body, args=node.args, extractor=self, handler=handler,
                          factory_seen=bool(returns) or is_method)
        # The class stays visible inside its methods and their closures (for `self.X` receivers).
        self._block(node.body, _Ctx((*ctx.functions, scope), ctx.cls, None, ctx.type_checking, qualname))
        # dict-returns needs them; result profiles (where candidates abound) use result-envelope, which does not
        if handler is not None and not (handler.candidate and self.result_shapes):
            # only the conversion to replies needs them
            handler.local_names = list(self._by_text("local names", node.lineno, node.end_lineno or node.lineno,
                                                     lambda: tuple(sorted(_local_names(node)))))

    def _class(self, node: ast.ClassDef, ctx: _Ctx) -> None:
        for expr in (*node.bases, *node.decorator_list):
            self._expr(expr, ctx)
        qualname = self._qualname(node.name, ctx)
        nested_in = ctx.function.qualname if ctx.function else None
        builder = self.builders.read(node, qualname, nested_in)
        if builder is not None:
            self.facts.builders.append(builder)
        registry, used = self.registries.from_class(node) if not ctx.functions else (None, set())
        if registry is not None:
            self.facts.registries.append(registry)
        info = _Class(name=node.name, qualname=qualname, read_self_bindings=lambda: self._self_bindings(node),
                      is_builder=builder is not None)
        self._envelope(node)
        inner = _Ctx(ctx.functions, info, None, ctx.type_checking, qualname)
        for stmt in node.body:
            if id(stmt) not in used:
                self._stmt(stmt, inner)

    def _assign(self, stmt: ast.Assign | ast.AnnAssign, ctx: _Ctx) -> None:
        value = stmt.value
        targets = stmt.targets if isinstance(stmt, ast.Assign) else [stmt.target]
        if ctx.functions and type(stmt) is ast.Assign:
            # every construction of a class bound in a function is an instantiation, even one only passed on
            # (`rb = ReplyBuilder(...)`, then `helper(rb=rb)`); the index keeps those of builder classes
            for _, call in _bound_calls(stmt, self.walrus):
                callee = _callee(call)
                if class_like(callee):
                    self.tally.instantiated.add((callee, call.lineno))
        if self.dispatch_tables and value is not None and len(targets) == 1:
            target = targets[0]
            name = last_name(target)
            if name is not None and name in self.dispatch_tables and self._dispatch_table(name, value, stmt.lineno):
                return
            table, handler = (last_name(target.value), dotted_name(value)) if isinstance(target, ast.Subscript) \
                else (None, None)
            if isinstance(target, ast.Subscript) and table and table in self.dispatch_tables and handler:
                self.facts.registrations.append(RegistrationFact(
                    name=str_value(target.slice), target=handler, line=stmt.lineno, via=table, kind="table"))
                return
        if self.result_shapes and value is not None and len(targets) == 1 and ctx.function is not None \
                and ctx.function.handler is not None:
            self._grow_result(targets[0], value, ctx.function)
        at_top = not ctx.functions
        if value is not None and at_top and len(targets) == 1:
            target = targets[0]
            if isinstance(target, ast.Name):
                found = self.registries.from_value(target.id, value, stmt.lineno)
                if isinstance(found, RegistryFact):
                    self.facts.registries.append(found)
                    return
                if isinstance(found, MappingFact):
                    self.facts.mappings.append(found)
                    self.mapping_by_name[found.name] = found
                    return
                text = str_value(value)
                if (ctx.cls is None and text is not None and self.profile.is_code(text)
                        and _CONSTANT_NAME.match(target.id)):
                    self.tally.constants.append((target.id, stmt.lineno, value.lineno, value.col_offset, text))
                    return
            elif isinstance(target, ast.Subscript):
                table = dotted_name(target.value)
                if table in self.mapping_by_name or table in self.profile.mapping_table_names:
                    entry = self.registries.mapping_item(target, value)
                    if entry is not None:
                        mapping = self.mapping_by_name.get(table)
                        if mapping is None:
                            mapping = MappingFact(name=table, line=stmt.lineno)
                            self.facts.mappings.append(mapping)
                            self.mapping_by_name[table] = mapping
                        mapping.entries.append(entry)
                        return
        if isinstance(stmt, ast.AnnAssign):
            self._expr(stmt.annotation, ctx)
        if value is not None:
            self._expr(value, ctx)
            self._note_value_kind(targets, value, ctx)

    def _note_value_kind(self, targets: Sequence[ast.expr], value: ast.expr, ctx: _Ctx) -> None:
        """Remember what a local name holds, so `return reply` can be classified."""
        fn = ctx.function
        if fn is None or fn.handler is None or len(targets) != 1 or not isinstance(targets[0], ast.Name):
            return
        kind = self._value_kind(value)
        name = targets[0].id
        if self.result_shapes:
            shape = self._shape(value) if kind[0] == "dict" else {}
            if name in fn.value_shapes and fn.value_shapes[name] != shape:
                shape = {"?": ["other", None]}   # assigned different things on different paths: unknown
            fn.value_shapes[name] = shape
        if name in fn.value_kinds and fn.value_kinds[name][0] != kind[0]:
            kind = ("other", None, [])
        fn.value_kinds[name] = kind

    def _value_kind(self, value: ast.expr | None) -> tuple[str, int | None, list[str]]:
        if value is None or (isinstance(value, ast.Constant) and value.value is None):
            return "none", None, []
        if isinstance(value, ast.Call) and id(value) in self.call_ids:
            return "call", self.call_ids[id(value)], []
        pairs = _dict_pairs(value)
        if pairs is not None:
            return "dict", None, [k for k, _ in pairs[0] if k is not None]
        branches = _dict_branches(value)
        if branches is not None:   # `result if isinstance(result, dict) else {"success": False, ...}`
            return "dict", None, branches
        if isinstance(value, ast.Call):
            if last_name(value.func) in self.reply_classes:
                return "reply", None, []
        return "other", None, []

    def _return(self, stmt: ast.Return, ctx: _Ctx) -> None:
        value = stmt.value
        if value is not None:
            if self._is_hot(value):   # (else `_expr` reads nothing of it)
                # every call in the returned expression is returned: `return replace(rb.error(...), ...)` too
                returned = {id(sub) for sub in nodes_of([value], _CALLS)}
                self._expr(value, ctx, returned)
            made = _constructed(value)
            made_of = _callee(made) if made is not None else None
            if made is not None and class_like(made_of):   # `return ReplyBuilder(...)`: a construction too
                self.tally.instantiated.add((made_of, made.lineno))
        fn = ctx.function
        if fn is None:
            return
        if isinstance(value, ast.Call) and not fn.factory_seen:
            callee = _callee(value)
            if class_like(callee) and id(value) not in self.call_ids:
                fn.factory_seen = True
                self.facts.factories.append(FactoryFact(name=fn.qualname.rsplit(".", 1)[-1], line=stmt.lineno,
                                                        returns=callee))
        if fn.handler is None:
            return
        literal = False
        shape: dict[str, list[Any]] = {}
        callee = None
        if self.result_shapes:
            if isinstance(value, ast.Name):
                shape = dict(fn.value_shapes.get(value.id, {}))
            elif isinstance(value, ast.Call) and last_name(value.func) not in self.result_helpers:
                callee = dotted_name(value.func)
            if not shape and value is not None:
                shape = self._shape(value)
        if isinstance(value, ast.Name) and value.id in fn.value_kinds:
            kind, call, keys = fn.value_kinds[value.id]
            keys = list(keys)
        else:
            kind, call, keys = self._value_kind(value)
            literal = kind == "dict" and _dict_pairs(value) is not None   # not a conditional of dicts
        span = None if value is None else [value.lineno, value.col_offset, value.end_lineno or value.lineno,
                                           value.end_col_offset or value.col_offset]
        code_value = None
        pairs = _dict_pairs(value) if literal else None
        if pairs is not None:
            code_value = next((str_value(v) for k, v in pairs[0] if k == self.code_keyword), None)
        fn.handler.returns.append(ReturnFact(line=stmt.lineno, kind=kind, call=call, keys=keys, code=code_value,
                                             in_except=ctx.except_kind is not None, except_kind=ctx.except_kind,
                                             col=stmt.col_offset, end_line=stmt.end_lineno or stmt.lineno,
                                             end_col=stmt.end_col_offset or stmt.col_offset,
                                             literal=literal, value_span=span,
                                             key_values=_key_values(value) if literal else
                                             _branch_key_values(value) if kind == "dict" else {},
                                             shape=shape, callee=callee,
                                             texts=_texts(value) if literal else {},
                                             except_types=list(ctx.except_types),
                                             spread=literal and _has_unknown_keys(value),
                                             guards=self._guards(ctx),
                                             cites_params=literal and self._cites_params(value, ctx),
                                             literal_type=_literal_type(value),
                                             names_params=literal and self._names_params(value, ctx),
                                             try_reads=ctx.try_reads,
                                             try_fixed_keys=ctx.try_fixed_keys,
                                             guard_reads=self._guard_reads(ctx)))

    def _import(self, stmt: ast.Import | ast.ImportFrom, ctx: _Ctx) -> None:
        in_function = bool(ctx.functions)
        if isinstance(stmt, ast.Import):
            for alias in stmt.names:
                self.facts.imports.append(ImportFact(module=alias.name, level=0, names=[], line=stmt.lineno,
                                                     in_function=in_function, type_checking=ctx.type_checking))
        else:
            self.facts.imports.append(ImportFact(
                module=stmt.module or "", level=stmt.level or 0, names=[a.name for a in stmt.names],
                line=stmt.lineno, in_function=in_function, type_checking=ctx.type_checking,
            ))

    # ------------------------------------------------------------ expressions
    def _expr(self, node: ast.AST, ctx: _Ctx, returned: set[int] | None = None, condition: bool = False) -> None:
        if not self._is_hot(node):
            return
        fn = ctx.function
        function = fn.qualname if fn else None
        in_fstring: set[int] = set()
        for sub in walk(node):
            if isinstance(sub, ast.JoinedStr):
                in_fstring.update(id(v) for v in sub.values)
            elif isinstance(sub, ast.Constant):
                if self.want_codes and isinstance(sub.value, str) and self.profile.is_code(sub.value):
                    self.facts.code_literals.append(CodeLiteral(sub.value, sub.lineno, sub.col_offset, function,
                                                                sub.end_lineno or sub.lineno,
                                                                sub.end_col_offset or sub.col_offset,
                                                                id(sub) not in in_fstring and self._plain(sub),
                                                                id(sub) in self.code_positions))
            elif isinstance(sub, ast.Call):
                func = sub.func
                if self.want_calls and isinstance(func, ast.Attribute) and func.attr in self.methods \
                        and self._call(sub, func, ctx, returned, function):
                    pass
                elif self.want_calls and (callee := self.aliases.get(last_name(func) or "", last_name(func))) \
                        is not None and (callee in self.function_names or callee in self.register_calls) \
                        and id(sub) not in self._raised:
                    if callee in self.function_names:
                        self._function_call(sub, callee, ctx, returned, function)
                    else:
                        self._registration(sub, callee, ctx)
        if self.want_messages:
            self._message_branches(node, ctx, function, condition)

    def _message_branches(self, node: ast.AST, ctx: _Ctx, function: str | None, condition: bool) -> None:
        """Every `.message` read that decides something: a text test called on it (`.startswith()`), any
        operand of a comparison that reads it (`(r.message or "")[:4] == …`, `len(r.message) > 0`), and any read
        inside a condition (`if re.search(p, r.message):`, a ternary's or a comprehension's test, or the whole of
        NODE when CONDITION: an if, while, assert, match subject or case guard). One use per comparison."""
        seen: set[int] = set()

        def messages(expr: ast.AST) -> list[ast.Attribute]:
            return [a for a in walk(expr) if isinstance(a, ast.Attribute) and a.attr in self.message_attrs]

        def record(attr: ast.Attribute, at: ast.expr | ast.stmt, kind: str, text: str) -> None:
            seen.add(id(attr))
            self.facts.message_uses.append(MessageUse(at.lineno, at.col_offset, kind, text, function,
                                                      self._owner_binding(attr, ctx)))

        tests: list[ast.AST] = [node] if condition else []
        for sub in walk(node):
            if isinstance(sub, ast.Call) and isinstance(sub.func, ast.Attribute) and sub.func.attr in TEXT_TESTS \
                    and isinstance(sub.func.value, ast.Attribute) and sub.func.value.attr in self.message_attrs \
                    and id(sub.func.value) not in seen:
                record(sub.func.value, sub, "method", f"{dotted_name(sub.func.value) or ''}.{sub.func.attr}()")
            elif isinstance(sub, ast.Compare):
                read = [a for operand in (sub.left, *sub.comparators) for a in messages(operand)]
                fresh = [a for a in read if id(a) not in seen]
                if fresh:
                    contains = any(isinstance(op, (ast.In, ast.NotIn)) for op in sub.ops)
                    record(fresh[0], sub, "contains" if contains else "compare",
                           dotted_name(fresh[0]) or "." + fresh[0].attr)
                seen.update(id(a) for a in read)
            elif isinstance(sub, ast.IfExp):
                tests.append(sub.test)
            elif isinstance(sub, ast.comprehension):
                tests.extend(sub.ifs)
        for test in tests:
            for attr in messages(test):
                if id(attr) not in seen:
                    record(attr, attr, "test", dotted_name(attr) or "." + attr.attr)

    @staticmethod
    def _code_argument(node: ast.Call, keyword: str, position: int) -> tuple[str | None, str | None, bool]:
        """(literal code, `Codes.X` reference, whether a code is passed) of a reply call, the code being the
        KEYWORD argument or the one at POSITION (-1: never positional)."""
        arg = next((kw.value for kw in reversed(node.keywords) if kw.arg == keyword), None)
        if arg is None and 0 <= position < len(node.args):
            arg = node.args[position]
        if arg is None:   # `**options` or `*args` may carry it: no finding without evidence
            has_code = any(kw.arg is None for kw in node.keywords) or any(isinstance(a, ast.Starred)
                                                                           for a in node.args)
            return None, None, has_code
        if isinstance(arg, ast.Constant) and arg.value is None:
            return None, None, False
        code = str_value(arg)
        return code, dotted_name(arg) if code is None else None, True

    def _function_call(self, node: ast.Call, name: str, ctx: _Ctx, returned: set[int] | None,
                       function: str | None) -> None:
        """`error_response("...", error_code=ErrorCode.X)`: a reply built by a function ([builder.functions])."""
        spec = self.functions[self.function_names.key(name) or name]
        code, code_ref, has_code = self._code_argument(node, spec["code_keyword"], int(spec["code_position"]))
        if spec.get("code"):   # a helper that always emits one code (`validation_error(msg)`)
            code, code_ref, has_code = str(spec["code"]), None, True
        letter = spec.get("type")
        keyword = spec.get("type_keyword")
        if keyword:
            value = next((kw.value for kw in node.keywords if kw.arg == keyword), None)
            if value is not None:
                kind = _literal_kind(value)
                literal = str_value(value) if kind == "str" else kind
                letter = spec.get("type_values", {}).get(literal, letter)
        self._record_call(node, ctx, returned, function, receiver="", binding=None, kind="function",
                          method=name, code=code, code_ref=code_ref, reply_type=letter, has_code=has_code)

    def _call(self, node: ast.Call, func: ast.Attribute, ctx: _Ctx, returned: set[int] | None,
              function: str | None) -> bool:
        receiver = self._resolve_receiver(func.value, ctx)
        if receiver is None:
            return False
        text, binding, kind = receiver
        code, code_ref, has_code = self._code_argument(node, *self.profile.method_code_argument(func.attr))
        self._record_call(node, ctx, returned, function, receiver=text, binding=binding, kind=kind,
                          method=func.attr, code=code, code_ref=code_ref, has_code=has_code)
        return True

    def _record_call(self, node: ast.Call, ctx: _Ctx, returned: set[int] | None, function: str | None, *,
                     receiver: str, binding: str | None, kind: str, method: str, code: str | None,
                     code_ref: str | None, reply_type: str | None = None, has_code: bool = True) -> None:
        message = next((str_value(kw.value) for kw in node.keywords if kw.arg in self.message_attrs), None)
        fn = ctx.function
        self.call_ids[id(node)] = len(self.facts.calls)
        self.facts.calls.append(CallFact(
            line=node.lineno, col=node.col_offset,
            end_line=node.end_lineno or node.lineno, end_col=node.end_col_offset or node.col_offset,
            receiver=receiver, binding=binding, binding_kind=kind, method=method,
            code=code, code_ref=code_ref, reply_type=reply_type, has_code=has_code,
            returned=returned is not None and id(node) in returned,
            in_except=ctx.except_kind is not None, except_kind=ctx.except_kind, except_line=ctx.except_line,
            function=fn.qualname if fn else function,
            in_builder=bool(ctx.cls and ctx.cls.is_builder),
            guards=self._guards(ctx),
            message=message,
            guard_on_params=self._guard_on_params(ctx),
            cites_params=self._cites_params(node, ctx),
            bare=self._bare[0] == id(node),
            followed=self._bare[0] == id(node) and self._bare[1],
            in_generator=self._bare[0] == id(node) and fn is not None and fn.is_generator,
            unused=(assigned := self._assigned) is not None and assigned[0] == id(node)
            and assigned[1] not in self._read_names(assigned[2]),
        ))

    # -------------------------------------------------------------- envelope
    @staticmethod
    def _owner_binding(attr: ast.Attribute, ctx: _Ctx) -> str | None:
        """`reply.message`: the callee `reply` was assigned from, if known."""
        owner = attr.value
        if isinstance(owner, ast.Name):
            for scope in reversed(ctx.functions):
                if owner.id in scope.bindings:
                    return scope.bindings[owner.id][0]
        return None

    @staticmethod
    def _params(ctx: _Ctx) -> set[str]:
        fn = ctx.function
        if fn is None or fn.args is None:
            return set()
        return {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)} - {"self", "cls"}

    def _guards(self, ctx: _Ctx) -> list[str]:
        """The texts of the innermost guards around a statement (each written once per file: the returns of one
        branch share them)."""
        out = []
        for test, negated in ctx.guards[-GUARD_DEPTH:]:
            key = (id(test), negated)
            if key not in self._guard_texts:
                self._guard_texts[key] = _guard_text(test, negated)
            out.append(self._guard_texts[key])
        return out

    def _guard_reads(self, ctx: _Ctx) -> str:
        """How the innermost guard reads the function's parameters (`_reads`), once per guard and function."""
        if not ctx.guards:
            return ""
        test = ctx.guards[-1][0]
        known = self._guard_read.get(id(test))
        if known is None or known[0] is not ctx.function:   # (a guard around a nested function is read anew)
            known = self._guard_read[id(test)] = (ctx.function, self._reads([test], ctx))
        return known[1]

    def _reads(self, nodes: list[ast.AST], ctx: _Ctx) -> str:
        """How NODES (a try block, an if-test) read the function's parameters, or locals passed on from them
        (`parts = tags.split(",")`): "direct", "indirect" or "" (`param_reads`)."""
        params = self._params(ctx)
        if not params or ctx.function is None:
            return ""
        if any(param_reads(node, params) == "direct" for node in nodes):
            return "direct"   # the parameters themselves read: the locals passed on from them change nothing
        key = id(ctx.function)
        if key not in self._derived_cache:   # (the entry keeps the node alive, so its id stays its own)
            body = ctx.function.body
            # the body's walk takes in the decorators of its first statement, written above it
            first = min([body[0].lineno, *(d.lineno for d in getattr(body[0], "decorator_list", ()))])
            derived = self._by_text(f"derived {sorted(params)}", first, body[-1].end_lineno or 0,
                                    lambda: _frozen(_derived_from(params, body)))
            self._derived_cache[key] = (ctx.function, derived)
        strong, weak = self._derived_cache[key][1]
        reads = [param_reads(node, params | strong, weak) for node in nodes]
        return "direct" if "direct" in reads else ("indirect" if "indirect" in reads else "")

    @classmethod
    def _cites_params(cls, node: ast.AST | None, ctx: _Ctx) -> bool:
        """Does an f-string in NODE interpolate a parameter of the function (`f"Playset '{name}' not found"`)?"""
        params = cls._params(ctx)
        if not params or node is None:
            return False
        return any(isinstance(part, ast.FormattedValue) and any(n.id in params for n in nodes_of([part.value], _NAMES))
                   for sub in nodes_of([node], _FSTRINGS) for part in sub.values)

    @classmethod
    def _names_params(cls, value: ast.expr | None, ctx: _Ctx) -> bool:
        """Does a literal text of the returned dict name a parameter of the function as a word ("timeout must be
        positive" in a function taking `timeout`)?"""
        params = cls._params(ctx)
        if not params:
            return False
        said = {w.lower() for text in _texts(value).values() for w in re.findall(r"[A-Za-z][A-Za-z0-9]*", text)}
        # `timeout` in "Timeout must be positive", `max_rows` in "Too many rows": any word of three letters or more
        # of a parameter's name, any case
        return any(w in said for name in params for w in name.lower().split("_") if len(w) >= 3)

    @staticmethod
    def _guard_on_params(ctx: _Ctx) -> bool:
        fn = ctx.function
        if not ctx.guards or fn is None or fn.args is None:
            return False
        params = {a.arg for a in (*fn.args.posonlyargs, *fn.args.args, *fn.args.kwonlyargs)} - {"self", "cls"}
        return any(n.id in params for n in nodes_of([ctx.guards[-1][0]], _NAMES))

    # ------------------------------------------------------------- constants
    def _finish_constants(self) -> None:
        """Module constants holding codes form a registry when there are enough of them."""
        constants = self.tally.constants
        if not constants:
            return
        if len(constants) >= self.registries.min_codes:
            from .model import CodeDef

            codes = [CodeDef(code=text, line=line, attr=name) for name, line, _, _, text in constants]
            self.facts.registries.append(RegistryFact(name="(module constants)", line=codes[0].line,
                                                      style="constants", codes=codes))
        else:
            for _name, _line, value_line, value_col, text in constants:   # a constant is a definition: where
                self.facts.code_literals.append(CodeLiteral(text, value_line, value_col, None,  # it goes decides
                                                            at_position=False))


def _names_read(body: list[ast.stmt], reads_of: dict[int, frozenset[str]]) -> None:
    """Keep in READS_OF, by `id(body)`, the names BODY and the body of every function nested in it read (a
    nested function's reads count for the functions around it too: a closure may read them). One walk for all
    of them, without recursion."""
    reads: dict[int, set[str]] = {id(body): set()}
    stack: list[tuple[ast.AST, tuple[int, ...]]] = [(stmt, (id(body),)) for stmt in body]
    while stack:
        node, owners = stack.pop()
        if isinstance(node, FUNCTIONS):
            inner = {id(stmt) for stmt in node.body}
            reads.setdefault(id(node.body), set())
            stack.extend((stmt, (*owners, id(node.body))) for stmt in node.body)
            stack.extend((child, owners) for child in children(node) if id(child) not in inner)
            continue
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
            for owner in owners:
                reads[owner].add(node.id)
        stack.extend((child, owners) for child in children(node))
    for owner, names in reads.items():
        reads_of.setdefault(owner, frozenset(names))
