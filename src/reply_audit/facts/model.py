"""The facts record of one file: plain, serializable dataclasses.

Extraction (`facts.extract`) fills a `FileFacts` from one syntax tree; the
cross-file index (`index`) joins many of them. Nothing here holds a tree or a
profile, so a record can be cached, sent to another process and compared.
Lines are 1-based, columns 0-based, as in `ast`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import field, fields, is_dataclass
from functools import cache
from typing import Any, cast, get_args, get_origin, get_type_hints

from ..record_class import record


@record(slots=True)
class CodeDef:
    """One code defined by a registry."""

    code: str
    line: int
    attr: str | None = None            # attribute / member name in class, enum or constants style
    declared_layer: str | None = None  # a `layer=` keyword, when literal
    declared_type: str | None = None   # a `reply_type=` keyword, when literal
    text: str = ""                     # the entry's other literal strings: its message key, its description


@record(slots=True)
class RegistryFact:
    """A collection of code definitions: dict, list, class, enum, constants or Literal."""

    name: str
    line: int
    style: str  # dict | list | tuple | class | enum | constants | literal
    codes: list[CodeDef] = field(default_factory=list)
    names: list[str] | None = None  # class and enum: every name its body binds; None: inherits from an unknown base


@record(slots=True)
class MappingEntry:
    legacy: str
    canonical: str | None  # None: retired explicitly (None, "", or a retired marker) or a reference
    line: int
    canonical_ref: str | None = None  # `Codes.X` when the value is a reference, resolved by the index
    value_span: list[int] | None = None  # [line, col, end_line, end_col] of a literal value (code tables only)


@record(slots=True)
class MappingFact:
    """A legacy → canonical table (a dict in code or a mapping file)."""

    name: str
    line: int
    entries: list[MappingEntry] = field(default_factory=list)
    tools: dict[str, dict[str, str]] = field(default_factory=dict)  # handler -> builder method -> code (files only)
    sites: list[dict[str, Any]] = field(default_factory=list)  # [[tools.HANDLER.sites]]: per-site type and code
                                                               # (files only)


@record(slots=True)
class Signature:
    """A def's parameters (without self/cls for methods) and its return annotation, as written."""

    params: list[str] = field(default_factory=list)       # positional-or-keyword parameters, in order
    required: list[str] = field(default_factory=list)     # parameters without a default (keyword-only too)
    keyword_only: list[str] = field(default_factory=list)
    var_positional: bool = False
    var_keyword: bool = False
    returns: str | None = None

    def accepts(self, keyword: str) -> bool:
        return keyword in self.params or keyword in self.keyword_only or self.var_keyword


@record(slots=True)
class WrapperFact:
    """A safety decorator defined in this file, and what it does with a result that is not a reply."""

    name: str
    line: int
    behaviour: str                 # passthrough | autowrap | reject | unknown (facts.signatures)
    detail: str = ""
    evidence_line: int = 0
    requires: str | None = None    # the return type its parameter's annotation demands (`Callable[..., Reply]`)


@record(slots=True)
class BuilderFact:
    """A class with builder methods (instance builder or Reply class factory)."""

    name: str
    qualname: str
    line: int
    kind: str                                  # "builder" (instance methods) | "factory" (classmethods)
    methods: dict[str, int] = field(default_factory=dict)  # builder-ish method -> line
    nested_in: str | None = None               # enclosing function, when defined inside one
    validates_format: bool = False
    validates_layer: bool = False
    type_ignored_by: str | None = None         # `helper(param)`: passed the reply type, never reads it
    frozen_after_terminal: bool = False
    init: Signature | None = None              # the constructor (`__init__`), when the class defines one
    signatures: dict[str, Signature] = field(default_factory=dict)  # builder method -> its signature


@record(slots=True)
class FactoryFact:
    """A function that returns `SomeClass(...)`: it may hand out a builder."""

    name: str
    line: int
    returns: str


@record(slots=True)
class CallFact:
    """A call `receiver.method(...)` where method is a builder method name."""

    line: int
    col: int
    end_line: int
    end_col: int
    receiver: str
    binding: str | None        # the class or factory the receiver was bound from
    binding_kind: str          # assign | annotation | class | self_attr | name | function ([builder.functions])
    method: str
    code: str | None           # the code literal, if a string constant
    code_ref: str | None       # `Codes.X` when the code is an attribute reference
    returned: bool             # the call is the returned value itself
    in_except: bool
    except_kind: str | None    # bare | broad | narrow
    function: str | None       # enclosing function qualname
    in_builder: bool           # enclosing class is itself a builder
    guards: list[str] = field(default_factory=list)  # tests of the enclosing ifs, outermost first (shortened)
    message: str | None = None  # a literal `message=` argument
    guard_on_params: bool = False  # the innermost if-test reads a parameter of the function (input checking)
    cites_params: bool = False  # an f-string among the call's arguments interpolates a parameter
    bare: bool = False         # the call is the whole of an expression statement (its value is dropped)
    followed: bool = False     # ... and more statements follow that statement in its block
    unused: bool = False       # bound to a name its function never reads (`err = error_response(...)`, then nothing)
    in_generator: bool = False  # ... in a function that yields (a returned reply would be lost)
    reply_type: str | None = None  # function builders: the TYPE letter, when the call itself decides it
    has_code: bool = True      # a code argument is present (a literal, a reference or any expression)
    except_line: int | None = None  # the line of the enclosing `except` clause (one block, however many calls)


@record(slots=True)
class ReturnFact:
    line: int
    kind: str                  # call | reply | dict | none | other (index turns call into builder/other)
    call: int | None = None    # index into FileFacts.calls for kind "call"
    keys: list[str] = field(default_factory=list)  # literal keys of a returned dict
    in_except: bool = False
    except_kind: str | None = None  # bare | broad | narrow, inside an except
    col: int = 0
    end_line: int = 0
    end_col: int = 0
    literal: bool = False      # the dict is written in the return itself (`{...}` or `dict(...)`), not a name
    value_span: list[int] | None = None  # [line, col, end_line, end_col] of the returned expression
    key_values: dict[str, str] = field(default_factory=dict)  # literal key -> true|false|none|str|other
    code: str | None = None    # the literal value of the dict's code key ([builder] code_keyword), if any
    shape: dict[str, list[Any]] = field(default_factory=dict)  # profiles with [result]: dotted key -> [kind, value]
    callee: str | None = None  # the function a returned call calls (`return make_result(...)`)
    texts: dict[str, str] = field(default_factory=dict)  # literal key -> its value, for short string values
    except_types: list[str] = field(default_factory=list)  # the classes the enclosing except names
    spread: bool = False       # the literal dict has keys not known statically (`**base`, a computed key)
    guards: list[str] = field(default_factory=list)  # tests of the enclosing ifs, outermost first (shortened)
    cites_params: bool = False  # an f-string in the literal dict interpolates a parameter of the function
    try_reads: str = ""          # in an except, how its try block reads the function's parameters: "direct",
                                 # "indirect" (only through the system's own work) or ""
    try_fixed_keys: bool = False  # …: the try block also reads a fixed key of other data (`resp["price"]`)
    literal_type: str = ""       # a returned literal that is no dict: tuple, list, str, bool, number
    names_params: bool = False   # a literal text of the dict names a parameter as a word ("timeout must be …")
    guard_reads: str = ""        # how the innermost if-test reads the parameters: "direct", "indirect" or ""


@record(slots=True)
class RegistrationFact:
    """A handler registered by a call (`register_action("name", fn)`) or listed in a dispatch table."""

    name: str | None           # the name it is registered under, when literal
    target: str                # the function as written: `fn`, `module.fn`, `self.fn`, `Class.fn`
    line: int
    via: str                   # the register call's name, or the dispatch table's name
    kind: str = "call"         # call | table
    scope: str | None = None   # the qualname of the function the registration is made in
    receiver: str | None = None  # `obj.fn` with obj bound in that function: what obj was built from (`Tools`),
                                 # "" when bound to something unknown; it shadows a module of the same name


@record(slots=True)
class HandlerFact:
    name: str
    qualname: str
    line: int
    decorators: list[str] = field(default_factory=list)
    returns: list[ReturnFact] = field(default_factory=list)
    end_line: int = 0
    first_line: int = 0        # the first decorator's line (the def line when there is none)
    inline_body: bool = False  # the body starts on the line of the def's colon (`def f(): return {...}`)
    asynchronous: bool = False  # `async def`
    local_names: list[str] = field(default_factory=list)  # names the function binds (params, targets, imports)
    top_calls: dict[str, list[Any]] = field(default_factory=dict)  # `name = Callee(...)` in the top block:
                                                                   # [callee, line]
    annotation: str | None = None  # the return annotation as written (`dict`, `Dict[str, Any]`, `Reply`)
    candidate: bool = False    # not decorated: a handler only if a registration names it (profiles with
                               # [handlers] register_calls or dispatch_tables)


@record(slots=True)
class CodeLiteral:
    """A code-shaped string outside registry and mapping definitions."""

    code: str
    line: int
    col: int
    function: str | None
    end_line: int = 0
    end_col: int = 0
    plain: bool = True         # one string literal (not part of an f-string or an implicit concatenation)
    at_position: bool = True   # where a code goes: a reply call's code argument, a `*code*` keyword or dict key,
                               # a comparison with a `*code*` name (False: anywhere else, `os.environ["API_TOKEN"]`)


@record(slots=True)
class ImportFact:
    module: str                # as written, without leading dots
    level: int                 # relative import level
    names: list[str]
    line: int
    in_function: bool
    type_checking: bool


@record(slots=True)
class MessageUse:
    """Branching on human text: a comparison or test on a `.message` attribute."""

    line: int
    col: int
    kind: str                  # compare | contains | method
    text: str
    function: str | None
    owner_binding: str | None = None  # what the owner variable was assigned from (a call's callee)


@record(slots=True)
class EnvelopeFact:
    """What a serializer method (`to_dict()` ...) of a class returns."""

    cls: str
    method: str
    line: int
    keys: list[str] = field(default_factory=list)          # top-level keys of the returned dict
    nested: dict[str, str] = field(default_factory=dict)   # key -> class whose serializer fills it
    fields: dict[str, str] = field(default_factory=dict)   # annotated class attributes: name -> class


@record(slots=True)
class ParseProblem:
    line: int
    col: int
    message: str


@record(slots=True)
class FileFacts:
    path: str                  # relative, POSIX separators
    is_test: bool = False
    parser: str = "ast"        # ast | fallback (read statement by statement, see parsing) | none
    problem: ParseProblem | None = None          # why it could not be parsed (parser == "none")
    skipped: list[ParseProblem] = field(default_factory=list)  # statements skipped in fallback
    registries: list[RegistryFact] = field(default_factory=list)
    mappings: list[MappingFact] = field(default_factory=list)
    builders: list[BuilderFact] = field(default_factory=list)
    factories: list[FactoryFact] = field(default_factory=list)
    instantiations: list[tuple[str, int]] = field(default_factory=list)  # (callee, line)
    calls: list[CallFact] = field(default_factory=list)
    handlers: list[HandlerFact] = field(default_factory=list)
    registrations: list[RegistrationFact] = field(default_factory=list)
    code_literals: list[CodeLiteral] = field(default_factory=list)
    imports: list[ImportFact] = field(default_factory=list)
    message_uses: list[MessageUse] = field(default_factory=list)
    envelopes: list[EnvelopeFact] = field(default_factory=list)
    wrappers: list[WrapperFact] = field(default_factory=list)  # the safety decorator, where it is defined
    script: bool = False       # runs as a script (`if __name__ == "__main__":`): no relative import may go in
    suppressions: dict[str, list[str]] = field(default_factory=dict)  # "line" -> rule ids ([] = all)
    markers: dict[str, list[str]] = field(default_factory=dict)  # "line" -> markers (`# reply-audit: default-code`)
    bound_names: list[str] = field(default_factory=list)  # names bound at module level (imports, defs, assignments)
    functions: list[str] = field(default_factory=list)    # functions defined at module level
    function_params: dict[str, list[str]] = field(default_factory=dict)  # module-level function -> parameter names
    import_aliases: dict[str, str] = field(default_factory=dict)  # `import x as y` / `from m import x as y`: y -> x
    position_refs: list[str] = field(default_factory=list)  # `ErrorCodes.BAD_INPUT` where a code goes (any call, a
                                                             # dict's code key, a comparison): it uses that registry
    lone_cr: bool = False      # has lines ended by a lone `\r` (old Mac), which libcst cannot reproduce exactly

    def to_row(self) -> list[Any]:
        """This record as nested JSON lists, each dataclass its fields' values in order (the facts cache's
        form: no key repeated in each of thousands of records, and rebuilt by position)."""
        return cast("list[Any]", _encoder(FileFacts)(self))

    @classmethod
    def from_row(cls, row: list[Any]) -> FileFacts:
        """The record `to_row` gave ROW (after a JSON round trip); ValueError or TypeError when ROW has
        another shape."""
        return cast(FileFacts, _decoder(FileFacts)(row))


@cache
def _plan(tp: type) -> tuple[tuple[str, Any], ...]:
    """(field name, its type) of a dataclass, resolved once per class."""
    hints = get_type_hints(tp)
    return tuple((f.name, hints[f.name]) for f in fields(tp))


@cache
def _plain(tp: Any) -> bool:
    """Is a value of type TP the same in JSON (no dataclass or tuple inside)?"""
    if is_dataclass(tp) or get_origin(tp) is tuple:   # JSON turns tuples into lists: rebuild them
        return False
    return all(_plain(arg) for arg in get_args(tp) if arg is not type(None) and arg is not Ellipsis)


def _same(value: Any) -> Any:
    return value


def _member(tp: Any) -> Any:
    """The type an `X | None` holds (TP itself when it is no union with None)."""
    args = get_args(tp)
    if args and type(None) in args and get_origin(tp) not in (list, tuple, dict):
        return next(a for a in args if a is not type(None))
    return tp


def _fixed(origin: Any, args: tuple[Any, ...]) -> list[Any] | None:
    """The item types of a tuple type of fixed length (`tuple[str, int]`), one per position; None for a list
    or a tuple of any length (`tuple[str, ...]`), whose items are all of one type."""
    if origin is tuple and not (len(args) == 2 and args[1] is Ellipsis):
        return list(args)
    return None


@cache
def _encoder(tp: Any) -> Callable[[Any], Any]:
    """A function that turns a value of type TP into its row form (see `FileFacts.to_row`), made once per type."""
    tp = _member(tp)
    if isinstance(tp, type) and is_dataclass(tp):
        parts: list[tuple[str, Callable[[Any], Any] | None]] = []

        def encode(value: Any) -> Any:
            if value is None:
                return None
            if not parts:   # resolved on first use, so a type may contain itself
                parts.extend((name, None if _plain(ftype) else _encoder(ftype)) for name, ftype in _plan(tp))
            return [getattr(value, name) if part is None else part(getattr(value, name)) for name, part in parts]
        return encode
    origin, args = get_origin(tp), get_args(tp)
    fixed = _fixed(origin, args)
    if fixed is not None and not all(_plain(a) for a in fixed):
        each = [_encoder(a) for a in fixed]
        return lambda value: None if value is None else [code(v) for code, v in zip(each, value)]
    if fixed is None and origin in (list, tuple) and not _plain(args[0]):
        item = _encoder(args[0])
        return lambda value: None if value is None else [item(v) for v in value]
    if origin is dict and len(args) == 2 and not _plain(args[1]):
        member = _encoder(args[1])
        return lambda value: None if value is None else {k: member(v) for k, v in value.items()}
    return _same


@cache
def _decoder(tp: Any) -> Callable[[Any], Any]:
    """A function that rebuilds a value of type TP from its row form, made once per type: a warm scan
    rebuilds every file's facts, so the type is read here once instead of at every value."""
    tp = _member(tp)
    if isinstance(tp, type) and is_dataclass(tp):
        return _dataclass_decoder(tp)
    origin, args = get_origin(tp), get_args(tp)
    fixed = _fixed(origin, args)
    if fixed is not None:
        each = [_decoder(a) for a in fixed]

        def positions(value: Any) -> Any:
            if value is None:
                return None
            if len(value) != len(each):
                raise ValueError(f"a tuple of {len(each)} items has {len(value)}")
            return tuple([code(v) for code, v in zip(each, value)])
        return positions
    if origin in (list, tuple):
        make: Callable[[Any], Any] = list if origin is list else tuple
        if _plain(args[0]):
            return lambda value: None if value is None else make(value)
        item = _decoder(args[0])
        return lambda value: None if value is None else make([item(v) for v in value])
    if origin is dict:
        member = _decoder(args[1]) if len(args) == 2 and not _plain(args[1]) else None
        return (lambda value: None if value is None else dict(value)) if member is None else \
            (lambda value: None if value is None else {k: member(v) for k, v in value.items()})
    return _same


def _dataclass_decoder(tp: type) -> Callable[[Any], Any]:
    width = -1                                             # the number of fields, once resolved
    rebuilt: list[tuple[int, Callable[[Any], Any]]] = []   # (position, decoder) of each field JSON changes

    def decode(value: Any) -> Any:
        nonlocal width
        if value is None:
            return None
        if width < 0:   # resolved on first use, so a type may contain itself
            plan = _plan(tp)
            rebuilt.extend((i, _decoder(ftype)) for i, (_, ftype) in enumerate(plan) if not _plain(ftype))
            width = len(plan)
        if type(value) is not list or len(value) != width:
            raise ValueError(f"a {tp.__name__} row has {width} fields")
        if rebuilt:
            value = value.copy()   # the caller's row is left as it was
            for i, part in rebuilt:
                value[i] = part(value[i])
        return tp(*value)
    return decode
