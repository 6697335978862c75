"""Headline counts of an inventory, shared by every output format."""

from __future__ import annotations

from collections import Counter
from typing import Any

from ..classify import CLASSES
from ..index import Inventory
from ..records import Registry


def summarize(inv: Inventory) -> dict[str, Any]:
    by_role = Counter(r.role for r in inv.registries)
    defs_by_role: Counter[str] = Counter()
    for r in inv.registries:
        defs_by_role[r.role] += r.definitions
    classes = Counter(c.cls for c in inv.legacy_codes)
    methods = Counter(c.method for c in inv.calls if not c.in_builder)
    returns: Counter[str] = Counter()
    for h in inv.handlers:
        returns.update(h.returns_by_kind)
    return {
        "files": {"scanned": inv.files_scanned, "unparseable": len(inv.unparseable), "fallback": len(inv.fallback)},
        "registries": {
            "total": len(inv.registries),
            "by_role": dict(sorted(by_role.items())),
            "definitions_by_role": dict(sorted(defs_by_role.items())),
            "canonical_codes": len(inv.canonical_codes),
            "legacy_codes": len(inv.legacy_code_set),
            "duplicates": len(inv.duplicates),
            "shared_codes": len(inv.shared_codes),
        },
        "mappings": {
            "tables": len(inv.mappings),
            "entries": sum(len(m.entries) for m in inv.mappings),
            "keys_not_legacy": len(inv.mapping_keys_not_legacy),
        },
        "legacy_classes": {c: classes.get(c, 0) for c in CLASSES},
        "builders": {
            "total": len(inv.builders),
            "with_forbidden_methods": sum(1 for b in inv.builders if b.forbidden_methods),
            "missing_canonical_methods": sum(1 for b in inv.builders if b.missing_methods),
        },
        "calls": {
            "total": sum(methods.values()),
            "inside_builders": sum(1 for c in inv.calls if c.in_builder),
            "unresolved": sum(1 for c in inv.calls if c.builder is None),
            "by_method": dict(sorted(methods.items())),
        },
        "handlers": {"total": len(inv.handlers), "returns_by_kind": dict(sorted(returns.items()))},
        "code_literals": len(inv.code_literals),
        "registry_imports": {
            "total": len(inv.registry_imports),
            "runtime": sum(1 for i in inv.registry_imports if i.runtime),
        },
        "message_branches": len(inv.message_branches),
    }


def coverage(registry: Registry, layers: list[str], letters: list[str]) -> dict[str, dict[str, int]]:
    """Definitions per layer × type of one registry (layers of the profile first, then any others)."""
    codes = registry.codes
    extra = sorted({c.layer for c in codes if c.layer and c.layer not in layers})
    table: dict[str, dict[str, int]] = {}
    for layer in [*layers, *extra]:
        row = {t: 0 for t in letters}
        for c in codes:
            if c.layer == layer and c.type is not None:
                row[c.type] = row.get(c.type, 0) + 1
        if layer in layers or any(row.values()):
            table[layer] = row
    return table
