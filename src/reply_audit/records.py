"""The inventory's records: what the index hands the rules, the codemods and the reports, one frozen dataclass per
kind. The JSON report serializes them whole (`report.json_text.as_dict`, as `dataclasses.asdict`), so a field here
is a key of schema `reply-audit/1` (docs/json-schema.md).

The record kinds move here from plain dicts one at a time; those still dicts are typed `dict[str, Any]` on
`index.Inventory`.
"""

from __future__ import annotations

from dataclasses import fields
from functools import cache
from typing import Any, TypeVar, cast

from .record_class import record

_Record = TypeVar("_Record")


def copied(cls: type[_Record], fact: object, **joined: Any) -> _Record:
    """A CLS record of FACT: each field is the fact's attribute of the same name, unless JOINED gives it (what only
    the index knows: the file, the builder a call resolves to, a return's kind)."""
    names, positional = _field_names(cast(Any, cls))
    if positional:   # (the index copies tens of thousands of facts: a call by position is the cheaper)
        return cls(*[joined[name] if name in joined else getattr(fact, name) for name in names])
    return cls(**{name: joined[name] if name in joined else getattr(fact, name) for name in names})


@cache
def _field_names(cls: Any) -> tuple[tuple[str, ...], bool]:
    """CLS's field names, and whether its constructor takes them all by position, in that order."""
    found = fields(cls)
    return tuple(f.name for f in found), all(f.init and not f.kw_only for f in found)


@record(frozen=True)
class Duplicate:
    """A code defined more than once in one registry."""

    registry: str            # `path::name`
    code: str
    count: int
    lines: list[int]


@record(frozen=True)
class SharedCode:
    """A code defined in more than one active registry."""

    code: str
    registries: list[str]    # `path::name` of each


@record(frozen=True)
class KeyNotLegacy:
    """A mapping key that no legacy registry defines."""

    legacy: str
    path: str
    line: int
    mapping: str


@record(frozen=True)
class Marker:
    """A `# reply-audit: default-code` (or default-reflection) comment `migrate` left for a human."""

    path: str
    line: int
    marker: str


@record(frozen=True)
class MessageBranch:
    """Code that branches on a reply's message text (`if "denied" in reply.message`)."""

    path: str
    line: int
    col: int
    kind: str                # compare | contains | test | call
    text: str
    function: str | None
    owner_binding: str | None


@record(frozen=True)
class RegistryImport:
    """An import of a registry module: where, what, and whether it runs in production."""

    path: str
    line: int
    module: str
    names: list[str]
    registry_path: str
    roles: list[str]
    scope: str               # module | function
    via: str | None          # the package `__init__` it goes through, if any
    type_checking: bool
    in_tests: bool
    runtime: bool


@record(frozen=True)
class Registration:
    """A handler registered by a call (`register_action("name", fn)`) or listed in a dispatch table, and the
    function it resolves to."""

    path: str
    line: int
    name: str | None         # the name it is registered under, when literal
    target: str              # the function as written
    via: str                 # the register call's name, or the dispatch table's name
    kind: str                # call | table
    handler: str | None      # `path::qualname` of the function it names; None: not found in the tree


@record(frozen=True)
class Unparseable:
    """A file the scan could not read or parse, with where and why."""

    path: str
    line: int
    col: int
    message: str


@record(frozen=True)
class SkippedLines:
    """Lines of a file this Python rejects, left out by the fallback parser (the rest of the file was read)."""

    line: int
    col: int
    message: str


@record(frozen=True)
class Fallback:
    """A file read statement by statement (`parsing`), and the lines it had to leave out."""

    path: str
    skipped: list[SkippedLines]


@record(frozen=True)
class CodeLiteral:
    """A string spelled like a code, where it stands and in which function."""

    path: str
    line: int
    col: int
    code: str
    function: str | None
    end_line: int
    end_col: int
    plain: bool              # one string literal (not part of an f-string or an implicit concatenation)


@record(frozen=True)
class Envelope:
    """A Reply class's serializer and the fields it emits (dotted: `meta.trace_id`)."""

    path: str
    line: int
    cls: str                 # serialized as "class"
    method: str
    fields: list[str]

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "class": self.cls, "method": self.method,
                "fields": list(self.fields)}


@record(frozen=True)
class LegacyCode:
    """A legacy code and what became of it (docs/spec.md, Legacy): mapped, identical, retired, unmapped, mapped to
    an unknown or a forbidden code."""

    code: str
    cls: str                 # serialized as "class"
    target: str | None       # the canonical code it maps to
    mapping: str | None      # where the mapping is (a table or a file)
    reason: str | None       # why it is retired
    registries: list[str]    # `path::name` of the registries defining it

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "class": self.cls, "target": self.target, "mapping": self.mapping,
                "reason": self.reason, "registries": list(self.registries)}


@record(frozen=True)
class RegistryCode:
    """One code a registry defines, split by the profile's code pattern (None: a part the pattern lacks or the code
    does not match)."""

    code: str
    line: int
    layer: str | None
    area: str | None
    type: str | None
    number: int | None
    attr: str | None             # the attribute or member name, in class, enum and constants registries
    declared_layer: str | None   # a literal `layer=` beside the code
    declared_type: str | None    # a literal `reply_type=` beside the code
    text: str                    # the entry's other literal strings: its message key, its description


@record(frozen=True)
class Registry:
    """A registry of codes and its role: canonical, legacy, test (in test files) or other."""

    path: str
    line: int
    name: str
    style: str                   # dict | list | tuple | class | enum | constants | literal
    role: str
    definitions: int
    distinct: int
    codes: list[RegistryCode]
    names: list[str] | None      # class and enum: every name the body binds; None: an unknown base

    @property
    def ident(self) -> str:
        return f"{self.path}::{self.name}"


@record(frozen=True)
class MappingEntry:
    """One `LEGACY: CANONICAL` pair of a mapping table or file, classified."""

    legacy: str
    canonical: str | None        # None: retired explicitly
    line: int
    value_span: list[int] | None  # [line, col, end_line, end_col] of a literal value (code tables only)
    cls: str                     # serialized as "class": mapped | mapped_to_unknown | mapped_to_forbidden | retired
    legacy_known: bool           # a legacy registry defines the key

    def to_json(self) -> dict[str, object]:
        return {"legacy": self.legacy, "canonical": self.canonical, "line": self.line,
                "value_span": self.value_span, "class": self.cls, "legacy_known": self.legacy_known}


@record(frozen=True)
class Mapping:
    """A legacy-to-canonical mapping: a table in the code or a mapping file."""

    path: str
    line: int
    name: str
    source: str                  # code | file
    entries: list[MappingEntry]

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "line": self.line, "name": self.name, "source": self.source,
                "entries": [e.to_json() for e in self.entries]}


@record(frozen=True)
class ForbiddenTarget:
    """What RA111 hands the codemod that fixes it: the entry whose target breaks the layer rules, and its table."""

    mapping: Mapping
    entry: MappingEntry


@record(frozen=True)
class Place:
    """A line of a file."""

    path: str
    line: int


@record(frozen=True)
class Builder:
    """A reply builder class ("builder": instance methods) or a Reply class whose classmethods build replies
    ("factory"), and what it enforces."""

    path: str
    line: int
    name: str
    qualname: str
    kind: str                    # builder | factory
    nested_in: str | None        # the enclosing function, when defined inside one
    methods: list[str]
    forbidden_methods: list[str]
    missing_methods: list[str]
    validates_format: bool
    validates_layer: bool
    type_ignored_by: str | None  # `helper(param)`: passed the reply type, never reads it
    frozen_after_terminal: bool
    instantiated_at: list[Place]
    calls: int                   # the builder calls made through it

    @property
    def ident(self) -> str:
        return f"{self.path}::{self.qualname}"


@record(frozen=True)
class Call:
    """A reply builder call (`rb.invalid(code, ...)`) or a reply function call, and what surrounds it."""

    path: str
    line: int
    col: int
    end_line: int
    end_col: int
    builder: str | None          # `path::qualname` of the builder class it resolves to
    receiver: str                # as written: `rb`, `self.rb`, "" for a reply function
    method: str
    code: str | None             # the code literal, or the one a registry reference names
    code_ref: str | None         # `Codes.X` when the code is a reference
    returned: bool               # the call is the returned value itself
    in_except: bool
    except_kind: str | None      # bare | broad | narrow
    except_line: int | None      # the line of the enclosing `except` clause
    function: str | None         # the enclosing function's qualname
    in_builder: bool             # made inside a builder class (a builder delegating to Reply)
    guards: list[str]            # tests of the enclosing ifs, outermost first
    message: str | None          # a literal `message=` argument
    guard_on_params: bool        # the innermost test reads a parameter of the function
    cites_params: bool           # an f-string argument interpolates a parameter
    bare: bool                   # the call is a whole expression statement (its value is dropped)
    followed: bool               # ... and more statements follow it in its block
    in_generator: bool           # ... in a function that yields
    type: str | None             # function builders: the TYPE letter the call itself decides
    has_code: bool               # a code argument is present
    binding_kind: str            # assign | annotation | class | self_attr | name | function
    unused: bool                 # bound to a name its function never reads


@record(frozen=True)
class Return:
    """One `return` of a handler: what it returns and what surrounds it (the facts `migrate` decides from)."""

    line: int
    col: int
    end_line: int
    end_col: int
    kind: str                    # builder | reply | dict | none | other
    keys: list[str]              # literal keys of a returned dict
    in_except: bool
    except_kind: str | None      # bare | broad | narrow
    literal: bool                # the dict is written in the return itself
    value_span: list[int] | None  # [line, col, end_line, end_col] of the returned expression
    key_values: dict[str, str]   # literal key -> true | false | none | str | other
    code: str | None             # the literal value of the dict's code key
    shape: dict[str, list[Any]]  # profiles with [result]: dotted key -> [kind, value]
    callee: str | None           # the function a returned call calls
    texts: dict[str, str]        # literal key -> its value, for short strings
    except_types: list[str]      # the classes the enclosing except names
    spread: bool                 # the dict has keys not known statically
    guards: list[str]            # tests of the enclosing ifs, outermost first
    cites_params: bool           # an f-string in the dict interpolates a parameter
    try_reads: str               # in an except: how its try block reads the parameters (direct | indirect | "")
    guard_reads: str             # how the innermost test reads the parameters (direct | indirect | "")
    literal_type: str            # a returned literal that is no dict: tuple, list, str, bool, number
    names_params: bool           # a literal text of the dict names a parameter as a word
    try_fixed_keys: bool         # the try block also reads a fixed key of other data


@record(frozen=True)
class HandlerRegistration:
    """Where a handler is registered by name (`register_action("search", search)`)."""

    path: str
    line: int
    name: str | None
    via: str


@record(frozen=True)
class Handler:
    """A tool handler (decorated, named by a pattern, registered or dispatched) and its returns."""

    path: str
    line: int
    name: str
    qualname: str
    decorators: list[str]
    returns_by_kind: dict[str, int]
    returns: list[Return]
    end_line: int
    first_line: int              # the first decorator's line
    inline_body: bool            # the body starts on the def's line
    local_names: list[str]
    top_calls: dict[str, list[Any]]  # `name = Callee(...)` in the top block: name -> [callee, line]
    registered: list[HandlerRegistration]
    annotation: str | None       # the return annotation as written


@record(frozen=True)
class HandlerReturn:
    """A finding's subject about one return of one handler (RA306, RA601): what the codemods that fix it need."""

    handler: Handler
    ret: Return


# What a finding is about: the record a codemod reads to fix it (`Finding.subject`).
Subject = (Call | CodeLiteral | Handler | HandlerReturn | ForbiddenTarget | Marker | Registration | RegistryCode
           | Registry | Envelope | Builder)
