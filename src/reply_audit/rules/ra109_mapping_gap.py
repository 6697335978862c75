"""RA109: a legacy code with no mapping and no retirement (a migration gap, F8)."""

from .base import Example, Rule


class MappingGap(Rule):
    id = "RA109"
    name = "mapping-gap"
    severity = "low"
    category = "registry"
    requirement = "legacy-mapped"
    chunk = "registry"
    spec = "spec 000 §12"
    doc = ("Every legacy code must be mapped to a canonical code or retired. A legacy code whose layer and type "
           "are legal but that has no mapping entry and no canonical twin is a gap: nobody decided its fate. "
           "Fix: add it to LEGACY_TO_CANONICAL (or a mapping file) with its canonical code, or map it to "
           "RETIRED.")
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

    def check(self, ctx):
        where = {}
        for reg in ctx.active_registries():
            if reg["role"] == "legacy":
                for c in reg["codes"]:
                    where.setdefault(c["code"], (reg["path"], c["line"]))
        for c in ctx.inventory.legacy_codes:
            if c["class"] == "unmapped" and c["code"] in where:
                path, line = where[c["code"]]
                yield self.finding(path, line, f"legacy code {c['code']} has no mapping and is not retired",
                                   key=c["code"])
