"""RA101: a canonical registry code that is not LAYER-AREA-TYPE-NNN."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class CodeFormat(Rule):
    id = "RA101"
    name = "code-format"
    severity = "medium"
    category = "registry"
    requirement = "registry-well-formed"
    chunk = "registry"
    spec = "spec 000 §6"
    doc = ("Every code of the canonical registry must have the form LAYER-AREA-TYPE-NNN with NNN in the profile's "
           "range. Agents branch on the code, so a code that does not parse cannot be branched on.")
    fix = ("Rename the code (codes are never reused, so give it a new number in its cluster).")
    valid = [Example('''
class Codes:
    A = ReplyCode("WA-RES-I-001")
    B = ReplyCode("MCP-SYS-E-001")
''')]
    invalid = [Example('''
class Codes:
    A = ReplyCode("WA-RES-I-001")
    B = ReplyCode("MCP-SYS-E-000")
''', note="NNN 000 is outside 001-999",
        findings=[
            ("mod.py", 4, 1, "MCP-SYS-E-000 is not LAYER-AREA-TYPE-NNN with NNN in range"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for reg in ctx.canonical_registries():
            if reg.name in ctx.profile.member_registries and reg.codes and not any(
                    ctx.profile.parse_code(c.code) for c in reg.codes):
                # an Enum listed in [codes] enums whose members the pattern never matches: the pattern is not
                # their spelling (one finding, not one per member)
                yield self.finding(reg.path, reg.line, f"{reg.name}: none of its {len(reg.codes)} members "
                                   f"is {ctx.profile.section('codes').get('format')} ([codes] pattern): set the "
                                   "pattern to their spelling", key=reg.name)
                continue
            for c in reg.codes:
                parts = ctx.profile.parse_code(c.code)
                if parts is None or not ctx.profile.number_valid(parts):
                    ranged = " with NNN in range" if "number" in ctx.profile.code_re.groupindex else ""
                    yield self.finding(reg.path, c.line, f"{c.code} is not "
                                       f"{ctx.profile.section('codes').get('format')}{ranged}",
                                       key=c.code)
