"""The codemods of `reply-audit migrate`: one small class per module, found here by import.

`all_codemods()` returns one instance of each in the order a pass applies them
(phase, then position); `select_codemods(names, phase)` the chosen ones, with a
clear error for an unknown name.
"""

from __future__ import annotations

from functools import lru_cache

from ..errors import UserError
from ..plugins import classes_in
from .base import Codemod

_NOT_CODEMODS = frozenset({"base", "context", "imports", "apply", "edits", "planner", "rewrite_context", "hollow",
                           "rewriter"})
PHASES = {1: "safety net", 2: "domain adoption", 3: "strict mode"}


@lru_cache(maxsize=1)
def all_codemods() -> tuple[Codemod, ...]:
    found = [cls() for cls in classes_in(__name__, __path__, Codemod, lambda name: name not in _NOT_CODEMODS)]
    return tuple(sorted(found, key=lambda c: (c.phase, c.order)))


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
