"""Copies of facts records moved by a number of lines, so that what one version of a file said of a statement can
be said again where the statement sits in another version.

Every field that holds a line number is named here (`LINES`), with how it holds it: a line (`line`), a span
`[line, col, end_line, end_col]` (`span`), a map of names to lines (`line_values`), a map of names to
`[callee, line]` (`line_pairs`), or an index into the file's calls (`call_index`, moved by a number of calls).
`NOT_LINES` names every other field that holds a number. A field holding a number that neither table names is
an error the first time its class is copied, so a field added to the model cannot be carried over unmoved.
A copy shares no list or dict with its original: a record once kept is never changed by a file read later.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import is_dataclass
from functools import cache
from typing import Any, cast, get_args, get_origin

from ..record_class import record
from .model import (
    BuilderFact,
    CallFact,
    CodeDef,
    CodeLiteral,
    EnvelopeFact,
    FactoryFact,
    HandlerFact,
    ImportFact,
    MappingEntry,
    MappingFact,
    MessageUse,
    RegistrationFact,
    RegistryFact,
    ReturnFact,
    Signature,
    WrapperFact,
    _member,
    _plan,
)

# (class, field) -> how the field holds lines
LINES: dict[tuple[type, str], str] = {
    (CodeDef, "line"): "line",
    (RegistryFact, "line"): "line",
    (MappingEntry, "line"): "line",
    (MappingEntry, "value_span"): "span",
    (MappingFact, "line"): "line",
    (BuilderFact, "line"): "line",
    (BuilderFact, "methods"): "line_values",
    (FactoryFact, "line"): "line",
    (CallFact, "line"): "line",
    (CallFact, "end_line"): "line",
    (CallFact, "except_line"): "line",
    (ReturnFact, "line"): "line",
    (ReturnFact, "end_line"): "line",
    (ReturnFact, "value_span"): "span",
    (ReturnFact, "call"): "call_index",
    (RegistrationFact, "line"): "line",
    (HandlerFact, "line"): "line",
    (HandlerFact, "end_line"): "line",
    (HandlerFact, "first_line"): "line",
    (HandlerFact, "top_calls"): "line_pairs",
    (CodeLiteral, "line"): "line",
    (CodeLiteral, "end_line"): "line",
    (ImportFact, "line"): "line",
    (MessageUse, "line"): "line",
    (EnvelopeFact, "line"): "line",
}

# fields that hold numbers which are no lines (columns, levels); WrapperFact is never moved (its text cites a line)
NOT_LINES: frozenset[tuple[type, str]] = frozenset({
    (CallFact, "col"), (CallFact, "end_col"), (ReturnFact, "col"), (ReturnFact, "end_col"),
    (ReturnFact, "shape"),   # [kind, value] per key: a literal's value, not a place
    (CodeLiteral, "col"), (CodeLiteral, "end_col"), (ImportFact, "level"), (MessageUse, "col"),
    (MappingFact, "sites"),  # read from mapping files only, never from a module
})

MOVABLE: tuple[type, ...] = (RegistryFact, CodeDef, MappingFact, MappingEntry, BuilderFact, Signature, FactoryFact,
                             CallFact, HandlerFact, ReturnFact, RegistrationFact, CodeLiteral, ImportFact, MessageUse,
                             EnvelopeFact)
UNMOVABLE: tuple[type, ...] = (WrapperFact,)


class OutsideTheStatement(ValueError):
    """A record cites a line (or call) outside the statement it was read from: it cannot be moved with it."""


@record(frozen=True, slots=True)
class Within:
    """The lines and calls a record may cite when it is kept: its statement's (after the move)."""

    last_line: int
    calls: int


def moved(record: Any, lines: int, calls: int = 0, within: Within | None = None) -> Any:
    """A copy of RECORD (one of `MOVABLE`) LINES lines lower (higher when negative), its call indexes CALLS
    further on; with WITHIN, `OutsideTheStatement` when the copy cites a line before 1 or after WITHIN's last,
    or a call outside WITHIN's."""
    cls: type = type(record)
    return _mover(cls)(record, lines, calls, within)


def _holds_number(tp: Any) -> bool:
    tp = _member(tp)
    if tp is int or tp is Any:
        return True
    if isinstance(tp, type) and is_dataclass(tp):
        return False   # (its own fields are classified where it is copied)
    return any(_holds_number(arg) for arg in get_args(tp) if arg is not type(None) and arg is not Ellipsis)


def moved_line(value: int, lines: int, within: Within | None = None) -> int:
    """Line VALUE moved LINES lines; with WITHIN, `OutsideTheStatement` when it leaves WITHIN's lines."""
    value += lines
    if within is not None and not 1 <= value <= within.last_line:
        raise OutsideTheStatement(f"line {value} is outside lines 1 to {within.last_line}")
    return value


def _copied(value: Any) -> Any:
    """VALUE with every list and dict in it copied."""
    if type(value) is list:
        return [_copied(v) for v in value]
    if type(value) is dict:
        return {k: _copied(v) for k, v in value.items()}
    return value


@cache
def _mover(tp: type) -> Callable[[Any, int, int, Within | None], Any]:
    """The copier of one record class: a function written for its fields, once (history moves hundreds of
    thousands of records)."""
    if tp in UNMOVABLE:
        raise TypeError(f"{tp.__name__} cites its lines in its text: it is read anew, never moved")
    env: dict[str, Any] = {"_tp": tp, "_line": moved_line, "_call": _call, "_copied": _copied}
    parts = []
    for i, (name, ftype) in enumerate(_plan(tp)):
        kind = LINES.get((tp, name))
        if kind is None and _holds_number(ftype) and (tp, name) not in NOT_LINES:
            raise TypeError(f"{tp.__name__}.{name} holds a number that relocate names neither a line nor not one")
        parts.append(_expression(f"r.{name}", ftype, kind, env, f"_m{i}"))
    code = f"def move(r, lines, calls, w):\n    return _tp({', '.join(parts)})\n"
    exec(compile(code, f"<relocate {tp.__name__}>", "exec"), env)
    return cast(Callable[[Any, int, int, "Within | None"], Any], env["move"])


def _expression(value: str, ftype: Any, kind: str | None, env: dict[str, Any], helper: str) -> str:
    """The expression that carries one field's VALUE into the copy (`lines`, `calls` and `w`, the Within or None,
    are the mover's parameters; v, k and x its scratch names)."""
    if kind == "line":   # 0 and None say "no line"
        return f"((v + lines if w is None else _line(v, lines, w)) if (v := {value}) else v)"
    if kind == "span":
        return (f"(None if (v := {value}) is None else [v[0] + lines, v[1], v[2] + lines, v[3]] if w is None "
                f"else [_line(v[0], lines, w), v[1], _line(v[2], lines, w), v[3]])")
    if kind == "line_values":
        return f"{{k: (x + lines if w is None else _line(x, lines, w)) for k, x in {value}.items()}}"
    if kind == "line_pairs":
        return f"{{k: [x[0], (x[1] + lines if w is None else _line(x[1], lines, w))] for k, x in {value}.items()}}"
    if kind == "call_index":
        return f"(None if (v := {value}) is None else v + calls if w is None else _call(v + calls, w))"
    inner = _member(ftype)
    origin, args = get_origin(inner), get_args(inner)
    if isinstance(inner, type) and is_dataclass(inner):
        env[helper] = _mover(inner)
        return f"(None if (v := {value}) is None else {helper}(v, lines, calls, w))"
    if origin is list and args and isinstance(args[0], type) and is_dataclass(args[0]):
        env[helper] = _mover(args[0])
        return f"[{helper}(x, lines, calls, w) for x in {value}]"
    if origin is dict and len(args) == 2 and isinstance(args[1], type) and is_dataclass(args[1]):
        env[helper] = _mover(args[1])
        return f"{{k: {helper}(x, lines, calls, w) for k, x in {value}.items()}}"
    if origin in (list, dict):
        flat = all(a in (str, int, bool, float) for a in args)   # a copy of the container is a copy of it all
        return f"(None if (v := {value}) is None else v.copy())" if flat else f"_copied({value})"
    return value


def _call(index: int, within: Within | None) -> int:
    if within is not None and not 0 <= index < within.calls:
        raise OutsideTheStatement(f"call {index} is outside the statement's {within.calls}")
    return index
