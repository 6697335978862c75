"""RA111: a mapping entry whose target breaks the layer rules."""

from collections.abc import Iterator

from ..records import ForbiddenTarget
from .base import Example, Finding, Rule, RuleContext


class MappingTargetForbidden(Rule):
    id = "RA111"
    name = "mapping-target-forbidden"
    severity = "high"
    category = "registry"
    requirement = "legacy-mapped"
    chunk = "registry"
    spec = "spec 000 §4, §12"
    doc = ("Legacy codes with forbidden layers are retired, not migrated; a mapping must not carry the fault over. "
           "A target whose layer is outside the closed set, or whose type its layer may not emit (WA-...-D-...), "
           "is illegal.")
    fix = ("Map the denial to EN, or retire the code.")
    valid = [Example('LEGACY_TO_CANONICAL = {"FILE-OP-D-001": "EN-WRITE-D-001", "FILE-OP-E-001": "MCP-SYS-E-001"}\n')]
    invalid = [Example('LEGACY_TO_CANONICAL = {"FILE-OP-D-001": "WA-WRITE-D-001", "FILE-OP-E-001": "MCP-SYS-E-001"}\n',
        findings=[
            ("mod.py", 1, 1, "FILE-OP-D-001 maps to WA-WRITE-D-001, which breaks the layer rules"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for m in ctx.inventory.mappings:
            for e in m.entries:
                if e.cls == "mapped_to_forbidden":
                    yield self.finding(m.path, e.line, f"{e.legacy} maps to {e.canonical}, which breaks the layer "
                                       "rules", key=e.legacy, subject=ForbiddenTarget(mapping=m, entry=e))
