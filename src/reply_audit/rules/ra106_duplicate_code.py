"""RA106: a code defined more than once in one registry."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class DuplicateCode(Rule):
    id = "RA106"
    name = "duplicate-code"
    severity = "high"
    category = "registry"
    requirement = "registry-well-formed"
    chunk = "registry"
    spec = "spec 000 §6"
    doc = ("Codes are stable and never reused. A code defined twice in one registry has two meanings or two "
           "messages, and which one wins depends on order.")
    fix = ("Delete the second definition, or give it a new number.")
    valid = [Example('REG = {"WA-RES-I-001": "a", "WA-RES-I-002": "b"}\n')]
    invalid = [Example('REG = [Code(code="WA-RES-I-001"), Code(code="WA-RES-I-002"), Code(code="WA-RES-I-001")]\n',
        findings=[
            ("mod.py", 1, 1, "WA-RES-I-001 is defined 2 times in REG (first at line 1)"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for dup in ctx.inventory.duplicates:
            path, _, name = dup.registry.partition("::")
            for line in dup.lines[1:]:
                yield self.finding(path, line, f"{dup.code} is defined {dup.count} times in {name} "
                                   f"(first at line {dup.lines[0]})", key=dup.code)
