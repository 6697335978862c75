"""The scopes the walk keeps while it reads a module: the function and class it is in, the context of a
statement (enclosing tests, except clause, TYPE_CHECKING), and the tally it keeps besides the facts' lists."""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import field
from typing import Any, Protocol, cast

from ..record_class import record
from .expressions import FUNCTIONS
from .model import HandlerFact
from .walking import children


class BindingReader(Protocol):
    """What a function scope asks the extractor: what each variable of a body was bound from, and the bytes of
    the file being read."""

    source: bytes

    def _bindings(self, body: list[ast.stmt], args: ast.arguments | None) -> dict[str, tuple[str, str, int]]: ...


@record
class _Function:
    qualname: str
    body: list[ast.stmt]
    args: ast.arguments | None
    extractor: BindingReader
    handler: HandlerFact | None = None
    value_kinds: dict[str, tuple[str, int | None, list[str]]] = field(default_factory=dict)
    value_shapes: dict[str, dict[str, list[Any]]] = field(default_factory=dict)  # profiles with [result]
    factory_seen: bool = False  # True once known (or ruled out, for methods) as a factory
    _bindings: dict[str, tuple[str, str, int]] | None = None
    _generator: bool | None = None

    @property
    def is_generator(self) -> bool:
        """Does the function yield (in its own scope)? Computed on first use."""
        if self._generator is None and b"yield" not in self.extractor.source:
            self._generator = False   # (no file yields without the word)
        if self._generator is None:
            stack: list[ast.AST] = list(self.body)
            found = False
            while stack and not found:
                node = stack.pop()
                if isinstance(node, (ast.Yield, ast.YieldFrom)):
                    found = True
                elif not isinstance(node, (*FUNCTIONS, ast.ClassDef, ast.Lambda)):
                    stack.extend(children(node))
            self._generator = found
        return self._generator

    @property
    def bindings(self) -> dict[str, tuple[str, str, int]]:
        """var -> (callee, kind, line); computed on first use (most functions build no replies)."""
        if self._bindings is None:
            self._bindings = self.extractor._bindings(self.body, self.args)
        return self._bindings


@record
class _Class:
    name: str
    qualname: str
    read_self_bindings: Callable[[], dict[str, tuple[str, int]]]   # what its methods assign to `self.X`
    is_builder: bool
    _self_bindings: dict[str, tuple[str, int]] | None = None

    @property
    def self_bindings(self) -> dict[str, tuple[str, int]]:
        """attr -> (callee, line) of `self.attr = Callee(...)` in its methods; read on first use (a receiver
        `self.X` is resolved only in an expression a probe found)."""
        if self._self_bindings is None:
            self._self_bindings = self.read_self_bindings()
        return self._self_bindings


@record
class _Ctx:
    functions: tuple[_Function, ...] = ()
    cls: _Class | None = None
    except_kind: str | None = None
    type_checking: bool = False
    prefix: str = ""            # qualname of the innermost enclosing def or class
    guards: tuple[tuple[ast.expr, bool], ...] = ()  # enclosing if-tests (negated for else branches)
    except_types: tuple[str, ...] = ()  # the exception classes the enclosing except names
    try_reads: str = ""         # how the try block of the enclosing except reads the parameters (param_reads)
    try_fixed_keys: bool = False  # …and whether it reads a fixed key of other data (`resp["price"]`)
    except_line: int | None = None  # the line of the enclosing except clause

    def but(self, **changes: Any) -> _Ctx:
        """This context with CHANGES (field names): a copy, made without the constructor (one per block)."""
        unknown = changes.keys() - self.__dict__.keys()
        if unknown:
            raise TypeError(f"_Ctx has no field {sorted(unknown)[0]!r}")
        new = object.__new__(_Ctx)
        new.__dict__.update(self.__dict__)
        new.__dict__.update(changes)
        return new

    @property
    def function(self) -> _Function | None:
        return self.functions[-1] if self.functions else None


@record(slots=True)
class Tally:
    """What the statements read so far add up to, besides the facts' lists; made into facts when the file is
    done (`FactsExtractor.finish`). Lines are the file's."""

    instantiated: set[tuple[str, int]] = field(default_factory=set)   # (class, line) of each construction
    position_refs: set[str] = field(default_factory=set)   # `ErrorCodes.X` where a code goes
    module_reads: set[str] = field(default_factory=set)    # names a receiver was resolved by in the module's bindings
    module_touched: bool = False                            # the module's bindings were looked in
    # (name, line, value's line, value's column, code) of each module constant holding a code
    constants: list[tuple[str, int, int, int, str]] = field(default_factory=list)

    def add(self, other: Tally) -> None:
        """Take in what OTHER (statements read after these) adds up to."""
        self.instantiated |= other.instantiated
        self.position_refs |= other.position_refs
        self.module_reads |= other.module_reads
        self.module_touched = self.module_touched or other.module_touched
        self.constants += other.constants


class Watched(dict[str, Any]):
    """A dict that notes every key looked up in it (`in`, `get`, `[]`): what a reading depended on."""

    __slots__ = ("looked",)

    def __init__(self, data: dict[str, Any]) -> None:
        super().__init__(data)
        self.looked: set[str] = set()

    def __contains__(self, key: object) -> bool:
        self.looked.add(cast(str, key))
        return dict.__contains__(self, key)

    def get(self, key: str, default: Any = None) -> Any:
        self.looked.add(key)
        return dict.get(self, key, default)

    def __getitem__(self, key: str) -> Any:
        self.looked.add(key)
        return dict.__getitem__(self, key)


@record(slots=True)
class Looked:
    """The module's context as one reading of statements saw it, each part noting the names it was asked for:
    import aliases, top-level bindings, and the mapping tables defined above the statements."""

    aliases: Watched
    bindings: Watched
    tables: Watched
