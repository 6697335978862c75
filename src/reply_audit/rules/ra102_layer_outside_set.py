"""RA102: a canonical registry code whose LAYER is outside the closed set."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class LayerOutsideSet(Rule):
    id = "RA102"
    name = "layer-outside-set"
    severity = "high"
    category = "registry"
    requirement = "registry-well-formed"
    chunk = "registry"
    spec = "spec 000 §4"
    doc = ("The LAYER set is closed (WA, EN, CT, MCP in the canonical profile); a new layer needs an architecture "
           "revision. A code with another layer in the canonical registry names an owner that does not exist.")
    fix = ("Choose the layer that decided the outcome; tool or subsystem names belong in data.")
    valid = [Example('''
class Codes:
    A = ReplyCode("WA-RES-I-001")
    B = ReplyCode("MCP-SYS-E-001")
''')]
    invalid = [Example({
        "codes.py": 'class Codes:\n    A = ReplyCode("WA-RES-I-001")\n    B = ReplyCode("DB-CONN-S-001")\n',
        "pyproject.toml": '[tool.reply-audit.registries]\ncanonical = ["codes.py::Codes"]\n',
    }, note="the role is set explicitly: most codes of this small registry break the rules",
        findings=[
            ("codes.py", 3, 1, "DB-CONN-S-001: layer DB is not one of WA, EN, CT, MCP"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for reg in ctx.canonical_registries():
            for c in reg.codes:
                if c.layer and c.layer not in ctx.profile.layers:
                    yield self.finding(reg.path, c.line, f"{c.code}: layer {c.layer} is not one of "
                                       f"{', '.join(ctx.profile.layers)}", key=c.code)
