"""RA109: a legacy code with no mapping and no retirement (a migration gap, F8)."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class MappingGap(Rule):
    id = "RA109"
    name = "mapping-gap"
    severity = "low"
    category = "registry"
    requirement = "legacy-mapped"
    chunk = "registry"
    spec = "spec 000 §12"
    doc = ("Every legacy code must be mapped to a canonical code or retired. A legacy code whose layer and type "
           "are legal but that has no mapping entry and no canonical twin is a gap: nobody decided its fate.")
    fix = ("Add it to LEGACY_TO_CANONICAL (or a mapping file) with its canonical code, or map it to RETIRED.")
    valid = [Example({
        "legacy.py": 'OLD = {"WA-RES-E-009": "x", "FILE-OP-E-001": "y"}\n',
        "codes.py": ('class Codes:\n    A = ReplyCode("WA-RES-E-001")\n    B = ReplyCode("MCP-SYS-E-001")\n'
                     'LEGACY_TO_CANONICAL = {"WA-RES-E-009": "WA-RES-E-001", "FILE-OP-E-001": "MCP-SYS-E-001"}\n'),
    })]
    invalid = [Example({
        "legacy.py": 'OLD = {"WA-RES-E-009": "x", "FILE-OP-E-001": "y"}\n',
        "codes.py": ('class Codes:\n    A = ReplyCode("WA-RES-E-001")\n    B = ReplyCode("MCP-SYS-E-001")\n'
                     'LEGACY_TO_CANONICAL = {"FILE-OP-E-001": "MCP-SYS-E-001"}\n'),
    },
        findings=[
            ("legacy.py", 1, 1, "legacy code WA-RES-E-009 has no mapping and is not retired"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        where: dict[str, tuple[str, int]] = {}
        for reg in ctx.active_registries():
            if reg.role == "legacy":
                for c in reg.codes:
                    where.setdefault(c.code, (reg.path, c.line))
        for legacy in ctx.inventory.legacy_codes:
            if legacy.cls == "unmapped" and legacy.code in where:
                path, line = where[legacy.code]
                yield self.finding(path, line, f"legacy code {legacy.code} has no mapping and is not retired",
                                   key=legacy.code)
