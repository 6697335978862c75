"""The JSON report: schema `reply-audit/1`, a public interface.

Documented in docs/json-schema.md. Deterministic: every list is sorted, keys are
sorted, and nothing depends on the machine, the clock or the absolute path.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import is_dataclass
from typing import Any

from .. import __version__
from ..errors import SEVERITIES
from ..records import Registry, RegistryCode
from ..rules.base import Evaluation, RuleContext
from ..scan import ScanResult
from .json_text import as_dict, dumps
from .summary import coverage, summarize

SCHEMA = "reply-audit/1"


def _plain(item: Any) -> Any:
    """An inventory record as its JSON object (its own `to_json`, else every field by name); a dict as it is."""
    if hasattr(item, "to_json"):
        return item.to_json()
    return as_dict(item) if is_dataclass(item) and not isinstance(item, type) else item


def _order_key(plain: dict[str, Any], keys: tuple[str, ...]) -> tuple[Any, ...]:
    return tuple((plain.get(k) is None, plain.get(k) or 0) if k in ("line", "col")
                 else (plain.get(k) is None, str(plain.get(k) or "")) for k in keys)


def ordered(records: list[Any], *keys: str) -> list[Any]:
    """RECORDS in the report order of KEYS (their JSON names: `class` for `cls`), as records; every format
    lists an inventory kind in this one order."""
    return sorted(records, key=lambda r: _order_key(_plain(r), keys))


def _sorted(items: list[Any], *keys: str) -> list[dict[str, Any]]:
    """ITEMS (dicts, or inventory records serialized whole) in the order of KEYS."""
    return sorted((_plain(i) for i in items), key=lambda d: _order_key(d, keys))


def build_document(result: ScanResult, evaluation: Evaluation | None = None) -> dict[str, Any]:
    """The report; with an `engine.Evaluation`, its findings too (else `findings` is empty)."""
    inv = result.inventory
    profile = result.profile
    layers = list(profile.layers)
    letters = list(profile.type_letters)
    registries = []
    for record in ordered(inv.registries, "path", "line", "name"):
        reg = _plain(record)
        reg["codes"] = [_plain(c) for c in registry_codes(record)]
        reg["coverage"] = coverage(record, layers, letters)
        registries.append(reg)
    findings = [f.to_dict() for f in evaluation.findings] if evaluation else []
    suppressed = [f.to_dict() for f in evaluation.suppressed] if evaluation else []
    summary = summarize(inv)
    summary["findings"] = finding_counts(evaluation)
    return {
        "schema": SCHEMA,
        "tool": {"name": "reply-audit", "version": __version__},
        "root": result.display_root,
        "profile": {"name": profile.name, "digest": profile.digest, "sources": list(profile.sources)},
        "files": {
            "scanned": inv.files_scanned,
            "unparseable": _sorted(inv.unparseable, "path", "line"),
            "fallback": _sorted(inv.fallback, "path"),
        },
        "summary": summary,
        "registries": registries,
        "duplicates": _sorted(inv.duplicates, "registry", "code"),
        "shared_codes": _sorted(inv.shared_codes, "code"),
        "mappings": [
            {**m, "entries": sorted(m["entries"], key=lambda e: (e["line"], e["legacy"]))}   # (serialized whole)
            for m in _sorted(inv.mappings, "path", "line", "name")
        ],
        "mapping_files": sorted(result.mapping_files),
        "legacy_codes": _sorted(inv.legacy_codes, "code"),
        "mapping_keys_not_legacy": _sorted(inv.mapping_keys_not_legacy, "path", "line", "legacy"),
        "builders": _sorted(inv.builders, "path", "line", "qualname"),
        "calls": _sorted(inv.calls, "path", "line", "col"),
        "handlers": _sorted(inv.handlers, "path", "line", "qualname"),
        "code_literals": _sorted(inv.code_literals, "path", "line", "col"),
        "registry_imports": _sorted(inv.registry_imports, "path", "line", "registry_path"),
        "message_branches": _sorted(inv.message_branches, "path", "line", "col"),
        "envelopes": _sorted(inv.envelopes, "path", "line", "class"),
        "markers": _sorted(inv.markers, "path", "line"),
        "registrations": _sorted(inv.registrations, "path", "line"),
        "results": _results(result),
        "tooling": result.tooling,
        "rules": [r.id for r in evaluation.rules] if evaluation else [],
        "scorecard": _scorecard(result, evaluation) if evaluation else [],
        "findings": findings,
        "suppressed": suppressed,
    }


def registry_codes(registry: Registry) -> list[RegistryCode]:
    """REGISTRY's codes in report order: by line, then code."""
    return sorted(registry.codes, key=lambda c: (c.line, c.code))


def finding_counts(evaluation: Evaluation | None) -> dict[str, Any]:
    """The `summary.findings` counts: by severity, rule and codemod; suppressed, baselined and fixable."""
    findings = evaluation.findings if evaluation else []
    return {
        "total": len(findings),
        "by_severity": {s: sum(1 for f in findings if f.severity == s) for s in SEVERITIES},
        "by_rule": dict(sorted(Counter(f.rule for f in findings).items())),
        "suppressed": len(evaluation.suppressed) if evaluation else 0,
        "baselined": evaluation.baselined if evaluation else 0,
        "fixable": sum(1 for f in findings if f.fixable),
        "fixable_by": dict(sorted(Counter(f.fix for f in findings if f.fix).items())),
    }


def _results(result: ScanResult) -> dict[str, Any]:
    from ..results import summary

    return summary(RuleContext(result.inventory, result.profile, result.tooling))


def _scorecard(result: ScanResult, evaluation: Evaluation) -> list[dict[str, Any]]:
    from ..compliance import requirements
    from ..rules.base import RuleContext

    ctx = RuleContext(result.inventory, result.profile, result.tooling)
    return [r.to_dict() for r in requirements(ctx, evaluation)]


def render_json(result: ScanResult, evaluation: Evaluation | None = None) -> str:
    return dumps(one_based(build_document(result, evaluation))) + "\n"


COLUMN_KEYS = frozenset({"col", "end_col"})


def one_based(value: Any) -> Any:
    """A copy of VALUE with every column counted from 1, as in the terminal, SARIF and annotations (the facts
    count from 0, as Python's ast does): `col`, `end_col`, and the columns of a `value_span`
    [line, col, end_line, end_col]. A finding's `column` is 1-based already."""
    if isinstance(value, dict):
        out: dict[str, Any] = {}
        for key, item in value.items():
            if key in COLUMN_KEYS and isinstance(item, int) and not isinstance(item, bool):
                out[key] = item + 1
            elif key == "value_span" and isinstance(item, (list, tuple)) and len(item) == 4:
                out[key] = [item[0], item[1] + 1, item[2], item[3] + 1]
            elif isinstance(item, _CONTAINERS):
                out[key] = one_based(item)
            else:   # (a value that holds nothing is itself: no call for each of a report's 200,000)
                out[key] = item
        return out
    if isinstance(value, (list, tuple)):
        return [one_based(item) if isinstance(item, _CONTAINERS) else item for item in value]
    return value


_CONTAINERS = (dict, list, tuple)
