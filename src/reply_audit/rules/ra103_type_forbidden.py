"""RA103: a canonical registry code whose TYPE is forbidden for its LAYER."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class TypeForbiddenForLayer(Rule):
    id = "RA103"
    name = "type-forbidden-for-layer"
    severity = "high"
    category = "registry"
    requirement = "layer-ownership"
    chunk = "registry"
    spec = "spec 000 §4"
    doc = ("Each layer owns some outcomes only: Denied comes only from EN, EN never answers Invalid. A code such "
           "as WA-RES-D-001 says the world adapter denied something, which it never does.")
    fix = ("Move the decision to the owning layer (EN-...-D-...), or change the type.")
    valid = [Example('''
class Codes:
    A = ReplyCode("EN-WRITE-D-001")
    B = ReplyCode("WA-RES-I-001")
''')]
    invalid = [Example({
        "codes.py": ('class Codes:\n    A = ReplyCode("EN-WRITE-D-001")\n    B = ReplyCode("WA-RES-D-001")\n'
                     '    C = ReplyCode("EN-WRITE-I-001")\n'),
        "pyproject.toml": '[tool.reply-audit.registries]\ncanonical = ["codes.py::Codes"]\n',
    }, note="the role is set explicitly: most codes of this small registry break the rules",
        findings=[
            ("codes.py", 3, 1, "WA-RES-D-001: layer WA may emit only S, I, E, not D"),
            ("codes.py", 4, 1, "EN-WRITE-I-001: layer EN may emit only S, D, E, not I"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for reg in ctx.canonical_registries():
            for c in reg.codes:
                parts = ctx.profile.parse_code(c.code)
                if parts and parts.layer and ctx.profile.layer_known(parts) and not ctx.profile.type_allowed(parts):
                    allowed = ", ".join(t for t in ctx.profile.type_letters
                                        if t in ctx.profile.layers[parts.layer].allowed)
                    yield self.finding(reg.path, c.line, f"{c.code}: layer {parts.layer} may emit only "
                                       f"{allowed}, not {parts.type}", key=c.code)
