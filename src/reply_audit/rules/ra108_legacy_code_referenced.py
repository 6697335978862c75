"""RA108: product code still uses a legacy code."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class LegacyCodeReferenced(Rule):
    id = "RA108"
    name = "legacy-code-referenced"
    severity = "medium"
    category = "registry"
    requirement = "registered-codes"
    chunk = "registry"
    spec = "spec 000 §12"
    doc = ("Legacy codes are retired or mapped, never emitted. A legacy code literal in product code (a builder "
           "call, a comparison, a constant) keeps the old vocabulary on the wire.")
    fix = ("Use the mapped canonical code (`reply-audit migrate --select legacy-codes` rewrites mapped ones); a "
           "retired code needs a new decision.")
    valid = [Example({
        "legacy.py": 'OLD = {"FILE-OP-S-001": "x", "FILE-OP-E-001": "y"}\n',
        "codes.py": 'class Codes:\n    A = ReplyCode("WA-RES-S-001")\n    B = ReplyCode("MCP-SYS-E-001")\n',
        "server.py": 'def f(rb):\n    return rb.success("WA-RES-S-001", {})\n',
    })]
    invalid = [Example({
        "legacy.py": 'OLD = {"FILE-OP-S-001": "x", "FILE-OP-E-001": "y"}\n',
        "codes.py": 'class Codes:\n    A = ReplyCode("WA-RES-S-001")\n    B = ReplyCode("MCP-SYS-E-001")\n',
        "server.py": 'def f(rb):\n    return rb.error("FILE-OP-E-001", {})\n',
    },
        findings=[
            ("server.py", 2, 21, "legacy code FILE-OP-E-001 is still used"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        inv = ctx.inventory
        targets = {c.code: c.target for c in inv.legacy_codes}
        for lit in inv.code_literals:
            code = lit.code
            if code in inv.legacy_code_set and code not in inv.canonical_codes and not ctx.is_test(lit.path):
                hint = f"; mapped to {targets[code]}" if targets.get(code) else ""
                yield self.finding(lit.path, lit.line, f"legacy code {code} is still used{hint}",
                                   col=lit.col, function=lit.function, key=code, subject=lit)
