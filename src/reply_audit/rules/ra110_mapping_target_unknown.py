"""RA110: a mapping entry whose target the canonical registry does not define."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class MappingTargetUnknown(Rule):
    id = "RA110"
    name = "mapping-target-unknown"
    severity = "medium"
    category = "registry"
    requirement = "legacy-mapped"
    chunk = "registry"
    spec = "spec 000 §12"
    doc = ("A mapping must lead to a code that exists. A target missing from the canonical registry would be "
           "rejected (or worse, emitted unregistered) once code is migrated.")
    fix = ("Register the target code, or map to an existing one.")
    valid = [Example('class Codes:\n    A = ReplyCode("WA-RES-E-001")\n    B = ReplyCode("MCP-SYS-E-001")\n'
                     'LEGACY_TO_CANONICAL = {"FILE-OP-E-001": "MCP-SYS-E-001"}\n')]
    invalid = [Example('class Codes:\n    A = ReplyCode("WA-RES-E-001")\n    B = ReplyCode("MCP-SYS-E-001")\n'
                       'LEGACY_TO_CANONICAL = {"FILE-OP-E-001": "MCP-SYS-E-042"}\n',
        findings=[
            ("mod.py", 4, 1, "FILE-OP-E-001 maps to MCP-SYS-E-042, which the canonical registry does not define"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        if not ctx.canonical_registries():
            return
        for m in ctx.inventory.mappings:
            for e in m.entries:
                if e.cls == "mapped_to_unknown":
                    yield self.finding(m.path, e.line, f"{e.legacy} maps to {e.canonical}, which the canonical "
                                       "registry does not define", key=e.legacy)
