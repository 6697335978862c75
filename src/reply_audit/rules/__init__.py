"""The rules: one small class per module (`raNNN_name.py`), found here by import.

`all_rules()` returns one instance of each, sorted by id; `get_rule(id)` one.
"""

from __future__ import annotations

import importlib
import pkgutil
from functools import lru_cache

from .base import Rule


@lru_cache(maxsize=1)
def all_rules() -> tuple[Rule, ...]:
    found: dict[str, Rule] = {}
    for module in pkgutil.iter_modules(__path__):
        if not module.name.startswith("ra"):
            continue
        mod = importlib.import_module(f"{__name__}.{module.name}")
        for value in vars(mod).values():
            if isinstance(value, type) and issubclass(value, Rule) and value is not Rule \
                    and value.__module__ == mod.__name__:
                found[value.id] = value()
    return tuple(found[k] for k in sorted(found))


def get_rule(rule_id: str) -> Rule | None:
    return next((r for r in all_rules() if r.id == rule_id.upper()), None)
