"""RA104: a canonical registry code whose AREA is not in the spec's list."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext
from .ra105_area_is_tool_name import tool_words


class AreaNotListed(Rule):
    id = "RA104"
    name = "area-not-listed"
    severity = "medium"
    category = "registry"
    requirement = "registry-well-formed"
    chunk = "registry"
    spec = "spec 000 §5"
    doc = ("New AREA values need a registry and documentation update; AREA sprawl is forbidden. OPEN and CLOSE are "
           "not AREAs (contract gates are GATE). An unlisted AREA that is a tool name is reported by RA105.")
    fix = ("Use a listed AREA, or add the AREA to the profile's [areas] table together with the spec.")
    valid = [Example('''
class Codes:
    A = ReplyCode("CT-GATE-S-001")
    B = ReplyCode("CT-GATE-I-001")
''')]
    invalid = [Example('''
class Codes:
    A = ReplyCode("CT-GATE-S-001")
    B = ReplyCode("CT-CLOSE-I-001")
''',
        findings=[
            ("mod.py", 4, 1, "CT-CLOSE-I-001: AREA CLOSE is not in the AREA list"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        words = tool_words(ctx)
        for reg in ctx.canonical_registries():
            for c in reg.codes:
                area = c.area
                if area and area not in ctx.profile.areas and area not in words:
                    yield self.finding(reg.path, c.line, f"{c.code}: AREA {area} is not in the AREA list",
                                       key=c.code)
