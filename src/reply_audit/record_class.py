"""`record`: the class decorator of this package's data classes. It is `dataclasses.dataclass`, except that a
class's `__eq__`, `__hash__` and `__repr__` are made from its fields by shared code instead of being written out as
source and compiled for that class.

Why: Python 3.11 compiles each method a dataclass generates, about a tenth of a millisecond per method. A scan
imports about a hundred data classes and four hundred such methods: a tenth of a second, a fifth of a rescan
after one file changed. Equality, hashing and the repr are more than half of it.

They behave as the dataclass's own:
- `==` compares the tuples of the fields with `compare=True` of two instances of exactly the same class, and
  answers `NotImplemented` for any other object;
- a frozen class hashes the tuple of its hashed fields (`hash=True`, or `compare=True` when `hash` is unset), so
  the hash is the dataclass's; a mutable class is unhashable;
- the repr is `Name(field=value, ...)` over the fields with `repr=True`, and `...` for an instance met again
  while its own repr is being made;
- a method the class body defines is kept, with the dataclass's rule for `__hash__` (a body that defines
  `__eq__` alone does not keep a hash).

Everything else (`__init__`, frozen assignment, slots, `fields`, `replace`, `asdict`, pickling) is the dataclass's,
and type checkers read a record as a dataclass (`dataclass_transform`, with `field` as its field specifier: mypy
checks `kw_only=True` and `init=False` fields as it does a dataclass's). Only introspection differs:
`__dataclass_params__` says `eq=False, repr=False`, and the shared methods' qualified names are their makers'.
`tests/test_record_class.py` compares every behaviour above with `dataclass` itself, mypy's errors included.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import MISSING, Field, dataclass, field, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform, overload

_Class = TypeVar("_Class", bound=type)


@overload
def record(cls: _Class, /) -> _Class: ...
@overload
def record(*, frozen: bool = False, slots: bool = False) -> Callable[[_Class], _Class]: ...


@dataclass_transform(field_specifiers=(field, Field))   # so type checkers read `field(kw_only=True)`
def record(cls: Any = None, /, *, frozen: bool = False, slots: bool = False) -> Any:
    """`@dataclass`, `@dataclass(frozen=True)` or `@dataclass(slots=True)`, with shared `__eq__`, `__hash__` and
    `__repr__` (see the module's docstring)."""
    def wrap(kind: type) -> type:
        own = kind.__dict__
        own_hash = own.get("__hash__", MISSING)
        hash_given = not (own_hash is MISSING or (own_hash is None and "__eq__" in own))
        made: type = dataclass(kind, frozen=frozen, slots=slots, eq=False, repr=False)
        every = fields(made)
        if "__repr__" not in own:
            made.__repr__ = _repr([f.name for f in every if f.repr])   # type: ignore[assignment]
        if "__eq__" not in own:
            made.__eq__ = _eq(_getter([f.name for f in every if f.compare]))   # type: ignore[assignment]
        if not hash_given:
            hashed = [f.name for f in every if (f.compare if f.hash is None else f.hash)]
            made.__hash__ = _hash(_getter(hashed)) if frozen else None   # type: ignore[assignment]
        return made

    return wrap if cls is None else wrap(cls)


def _getter(names: list[str]) -> Callable[[object], tuple[Any, ...]]:
    """The tuple of NAMES' values of an object: always a tuple, as the dataclass compares and hashes."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _eq(values: Callable[[object], tuple[Any, ...]]) -> Callable[[object, object], Any]:
    def __eq__(self: object, other: object) -> Any:
        if other.__class__ is self.__class__:
            return values(self) == values(other)
        return NotImplemented
    return __eq__


def _hash(values: Callable[[object], tuple[Any, ...]]) -> Callable[[object], int]:
    def __hash__(self: object) -> int:
        return hash(values(self))
    return __hash__


def _repr(names: list[str]) -> Callable[[object], str]:
    @recursive_repr()
    def __repr__(self: object) -> str:
        shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in names)
        return f"{self.__class__.__qualname__}({shown})"
    return __repr__
