"""RA206: a builder that does not validate layer ownership."""

from collections.abc import Iterator

from ._snippets import BUILDER
from .base import Example, Finding, Rule, RuleContext


class BuilderNoLayerValidation(Rule):
    id = "RA206"
    name = "builder-no-layer-validation"
    severity = "medium"
    category = "builder"
    requirement = "layer-ownership"
    chunk = "one-builder"
    spec = "spec 000 §4, §9"
    doc = ("The builder is where layer ownership is enforced at runtime: a WA code may not be Denied, an EN code "
           "may not be Invalid. A builder that passes codes through unchecked lets a forbidden reply onto the "
           "wire. Detected by a reference to a validator named in the profile ([builder] layer-validators) or an "
           "explicit layer-and-type test; not when the validator is passed the reply type and never reads it (it "
           "can then only check the code against itself: `rb.denied(\"WA-RES-I-001\")` passes).")
    fix = ("Validate every code (format and ownership) against the reply being built.")
    valid = [Example(BUILDER)]
    invalid = [Example("class B:\n    def success(self, c): return c\n    def denied(self, c): return c\n",
        findings=[
            ("mod.py", 1, 1, "B does not validate layer ownership"),
        ]),
               Example("def validate_layer(code):\n    return code\n\n\nclass B:\n"
                       "    def _check(self, code, expected_type):\n        return validate_layer(code)\n"
                       "    def success(self, c): return self._check(c, 'S')\n"
                       "    def denied(self, c): return self._check(c, 'D')\n",
                       note="the validator is passed the type and never reads it",
        findings=[
            ("mod.py", 5, 1,
             "B does not validate layer ownership: _check(expected_type) is passed the reply type and never "
             "reads it"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for b in ctx.instance_builders():
            if not b.validates_layer:
                why = f": {b.type_ignored_by} is passed the reply type and never reads it" \
                    if b.type_ignored_by else ""
                yield self.finding(b.path, b.line, f"{b.qualname} does not validate layer ownership{why}",
                                   key=b.qualname)
