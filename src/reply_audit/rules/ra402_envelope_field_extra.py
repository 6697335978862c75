"""RA402: the reply's wire shape has fields the envelope spec does not name (F10)."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext
from .ra401_envelope_field_missing import SPEC_SHAPE, envelope_diff


class EnvelopeFieldExtra(Rule):
    id = "RA402"
    name = "envelope-field-extra"
    severity = "low"
    category = "envelope"
    requirement = "envelope-shape"
    chunk = "envelope-spec"
    spec = "spec 000 §8"
    doc = ("Fields on the wire that the envelope spec does not name (code, message, trace ...) are either drift in "
           "the code or a gap in the spec that agents already rely on. Either way code and spec disagree, and one "
           "of them must change.")
    fix = ("Remove the field, or add it to the spec and to the profile's [envelope] fields.")
    valid = [Example(SPEC_SHAPE)]
    invalid = [Example(SPEC_SHAPE.replace('"error": None', '"error": None, "code": "x", "message": "y"'),
        findings=[
            ("mod.py", 10, 1, "Reply.to_dict() emits `code`, which the envelope spec does not name"),
            ("mod.py", 10, 1, "Reply.to_dict() emits `message`, which the envelope spec does not name"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for env in ctx.inventory.envelopes:
            for field in envelope_diff(ctx, env)[2]:
                yield self.finding(env.path, env.line, f"{env.cls}.{env.method}() emits `{field}`, "
                                   "which the envelope spec does not name", key=field)
