"""Modules imported on first use, so that a command that never needs them never pays for their import.

libcst costs about a third of a second to import; `scan` plans fixes from the facts and
never builds a syntax tree with it, so the codemods name libcst through `lazy_module` and only `migrate`, when
it rewrites a file, imports it. For type checkers the name stays the real module (`if TYPE_CHECKING:`).
"""

from __future__ import annotations

import importlib
from typing import Any


class LazyModule:
    """Stands for the module NAME until an attribute is read, then imports it and keeps what it read."""

    def __init__(self, name: str) -> None:
        self.__dict__["_lazy_name"] = name

    def __getattr__(self, attr: str) -> Any:
        value = getattr(importlib.import_module(self.__dict__["_lazy_name"]), attr)
        self.__dict__[attr] = value   # the next read finds it without this method
        return value

    def __repr__(self) -> str:
        return f"<module {self.__dict__['_lazy_name']!r}, not imported until used>"


def lazy_module(name: str) -> Any:
    """The module NAME, imported when one of its attributes is first read."""
    return LazyModule(name)
