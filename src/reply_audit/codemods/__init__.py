"""The codemods of `reply-audit migrate`: one small class per module, found here by import.

`all_codemods()` returns one instance of each in the order a pass applies them
(phase, then position); `select_codemods(names, phase)` the chosen ones, with a
clear error for an unknown name.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from ..errors import UserError
from .base import Codemod

_NOT_CODEMODS = frozenset({"base", "context", "imports", "apply", "edits", "planner"})
PHASES = {1: "safety net", 2: "domain adoption", 3: "strict mode"}


@lru_cache(maxsize=1)
def all_codemods() -> tuple[Codemod, ...]:
    found: dict[str, Codemod] = {}
    for module in pkgutil.iter_modules(__path__):
        if module.name in _NOT_CODEMODS:
            continue
        mod = importlib.import_module(f"{__name__}.{module.name}")
        for value in vars(mod).values():
            if isinstance(value, type) and issubclass(value, Codemod) and value is not Codemod \
                    and value.__module__ == mod.__name__:
                found[value.name] = value()
    return tuple(sorted(found.values(), key=lambda c: (c.phase, c.order)))


def get_codemod(name: str) -> Codemod | None:
    return next((c for c in all_codemods() if c.name == name), None)


def select_codemods(names: list[str] | None = None, phase: int | None = None) -> list[Codemod]:
    """The codemods named (all when none), limited to one phase when given."""
    known = {c.name: c for c in all_codemods()}
    if names:
        unknown = [n for n in names if n not in known]
        if unknown:
            raise UserError(f"--select: unknown codemod {unknown[0]!r}; `reply-audit codemods` lists them "
                            f"({', '.join(known)})")
    if phase is not None and phase not in PHASES:
        raise UserError(f"--phase {phase}: use 1 (safety net), 2 (domain adoption) or 3 (strict mode)")
    return [c for c in all_codemods() if (not names or c.name in names) and (phase is None or c.phase == phase)]
