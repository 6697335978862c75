"""Finding the one-class-per-module plugins of a package (the rules, the codemods) by import."""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable, Iterable


def classes_in(package: str, path: Iterable[str] | None, base: type, accept: Callable[[str], bool]) -> list[type]:
    """The subclasses of BASE defined in the modules of PACKAGE whose names ACCEPT takes, module by module."""
    found = []
    for module in pkgutil.iter_modules(path):
        if not accept(module.name):
            continue
        mod = importlib.import_module(f"{package}.{module.name}")
        found += [value for value in vars(mod).values()
                  if isinstance(value, type) and issubclass(value, base) and value is not base
                  and value.__module__ == mod.__name__]
    return found
