"""The rules: one small class per module (`raNNN_name.py`), found here by import.

`all_rules()` returns one instance of each, sorted by id; `get_rule(id)` one.
"""

from __future__ import annotations

from functools import lru_cache

from ..plugins import classes_in
from .base import Rule


@lru_cache(maxsize=1)
def all_rules() -> tuple[Rule, ...]:
    found = {rule.id: rule for rule in (cls() for cls in classes_in(__name__, __path__, Rule,
                                                                    lambda name: name.startswith("ra")))}
    return tuple(found[k] for k in sorted(found))


def get_rule(rule_id: str) -> Rule | None:
    return next((r for r in all_rules() if r.id == rule_id.upper()), None)
