"""Indented JSON text, and records as JSON objects, for the reports that print JSON.

`dumps(value)` is `json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)`, character for character:
with an indent, the standard library encodes in Python, through a generator per container, and a report of
thousands of files spent seconds there. `as_dict(record)` is `dataclasses.asdict` for records of plain values,
without its deep copy of every string and number. The tests compare both with the standard library's.
"""

from __future__ import annotations

import copy
from dataclasses import fields, is_dataclass
from json.encoder import encode_basestring
from typing import Any

_FIELD_NAMES: dict[type, tuple[str, ...]] = {}
_ATOMS = frozenset({str, int, float, bool, type(None)})   # a deep copy of these is the value itself


def as_dict(record: Any) -> dict[str, Any]:
    """RECORD (a dataclass instance) as `dataclasses.asdict` makes it."""
    kind = type(record)
    names = _FIELD_NAMES.get(kind)
    if names is None:
        names = _FIELD_NAMES[kind] = tuple(f.name for f in fields(record))
    atoms = _ATOMS
    out = {}
    for name in names:
        value = getattr(record, name)
        out[name] = value if type(value) in atoms else _copied(value)   # (no call for a plain value)
    return out


def _copied(value: Any) -> Any:
    kind = type(value)
    if kind in _ATOMS:
        return value
    if is_dataclass(value) and not isinstance(value, type):
        return as_dict(value)
    if kind is list:
        return [v if type(v) in _ATOMS else _copied(v) for v in value]
    if isinstance(value, tuple) and hasattr(value, "_fields"):   # a named tuple, built field by field
        return kind(*[_copied(v) for v in value])
    if isinstance(value, (list, tuple)):
        return kind(_copied(v) for v in value)
    if isinstance(value, dict):
        return kind((_copied(k), _copied(v)) for k, v in value.items())
    return copy.deepcopy(value)


def dumps(value: Any) -> str:
    """VALUE as `json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False)` writes it."""
    out: list[str] = []
    _write(value, "\n", out)
    return "".join(out)


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == float("inf"):
        return "Infinity"
    if value == -float("inf"):
        return "-Infinity"
    return float.__repr__(value)


def _scalar(value: Any) -> str | None:
    """The text of a value that is no container, or None for a container."""
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    if isinstance(value, (list, tuple, dict)):
        return None
    raise TypeError(f"Object of type {value.__class__.__name__} is not JSON serializable")


def _key(key: Any) -> str:
    if isinstance(key, str):
        return encode_basestring(key)
    if isinstance(key, float):
        return encode_basestring(_float(key))
    if key is True or key is False or key is None:
        return f'"{str(key).lower() if key is not None else "null"}"'
    if isinstance(key, int):
        return f'"{int.__repr__(key)}"'
    raise TypeError(f"keys must be str, int, float, bool or None, not {key.__class__.__name__}")


_NAMES: dict[str, str] = {}   # a key's text, with its ": "
_SCALARS: dict[type, Any] = {str: encode_basestring, int: int.__repr__, float: _float,
                             bool: lambda b: "true" if b else "false", type(None): lambda _: "null"}


def _write(value: Any, newline: str, out: list[str]) -> None:
    """Append VALUE's text to OUT; NEWLINE is a line break and the indent of the line VALUE's text starts on."""
    text = _scalar(value)
    if text is not None:
        out.append(text)
        return
    inner = newline + "  "
    scalars = _SCALARS
    if isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        opening = "{" + inner
        names = _NAMES
        for key, item in sorted(value.items()):
            name = names.get(key) if type(key) is str else None
            if name is None:
                name = _key(key) + ": "
                if type(key) is str and len(names) < 10_000:   # a report repeats a few hundred keys
                    names[key] = name
            write = scalars.get(type(item))
            if write is not None:   # (the exact types: a subclass, or a container, goes the long way)
                out.append(opening + name + write(item))
            else:
                out.append(opening + name)
                _write(item, inner, out)
            opening = "," + inner
        out.append(newline + "}")
        return
    if not value:
        out.append("[]")
        return
    opening = "[" + inner
    for item in value:
        write = scalars.get(type(item))
        if write is not None:
            out.append(opening + write(item))
        else:
            out.append(opening)
            _write(item, inner, out)
        opening = "," + inner
    out.append(newline + "]")
