"""RA309: product code emits a code whose TYPE its LAYER may not emit."""

from collections.abc import Iterator

from ._snippets import tree
from .base import Example, Finding, Rule, RuleContext


class ForbiddenLayerCodeUsed(Rule):
    id = "RA309"
    name = "forbidden-layer-code-used"
    severity = "high"
    category = "call"
    requirement = "layer-emits"
    chunk = "call-sites"
    spec = "spec 000 §4"
    doc = ("Denied originates only from EN, and EN never answers Invalid. A code such as WA-VIS-D-001 in a builder "
           "call (or anywhere in product code) says the world adapter denied a request, whatever the registry "
           "says. (RA103 reports such codes where a registry defines them.)")
    fix = ("Emit the owning layer's code; `reply-audit migrate --select forbidden-layers` rewrites it where "
           "[migrate.remap] and the registry give exactly one target.")
    valid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.denied("EN-WRITE-D-001", {})\n'))]
    invalid = [Example(tree(server='''
def f(rb: ReplyBuilder, path):
    if path.startswith("/sys"):
        return rb.denied("WA-WRITE-D-001", {})
    if not path:
        return rb.invalid("EN-WRITE-I-001", {})
    return rb.success("WA-RES-S-001", {})
'''),
        findings=[
            ("server.py", 4, 26, "WA-WRITE-D-001: layer WA may not emit Denied (D)"),
            ("server.py", 6, 27, "EN-WRITE-I-001: layer EN may not emit Invalid (I)"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        profile = ctx.profile
        for lit in ctx.inventory.code_literals:
            parts = profile.parse_code(lit.code)
            if parts is None or ctx.is_test(lit.path) or not profile.layer_known(parts) \
                    or profile.type_allowed(parts):
                continue
            yield self.finding(lit.path, lit.line, f"{lit.code}: layer {parts.layer} may not emit "
                               f"{profile.section('types').get('names', {}).get(parts.type, parts.type)} "
                               f"({parts.type})", col=lit.col, function=lit.function, key=lit.code,
                               subject=lit)
