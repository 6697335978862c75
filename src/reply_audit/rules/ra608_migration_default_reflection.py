"""RA608: a reflection written by `reply-audit migrate`, waiting for a human review."""

from collections.abc import Iterator

from ..directives import DEFAULT_REFLECTION
from .base import Example, Finding, Rule, RuleContext
from .ra601_result_envelope_missing import IAR

MARKER = DEFAULT_REFLECTION


class MigrationDefaultReflection(Rule):
    id = "RA608"
    name = "migration-default-reflection"
    severity = "low"
    requirement = "reflections-reviewed"
    chunk = "envelope-results"
    category = "envelope"
    spec = "seed 004 §1; plan 001 phase 2"
    profile = "iar"
    doc = ("When `reply-audit migrate` (result-envelope) wraps a dict that has no reflection, it writes the "
           "profile's `[migrate.result] default-reflection` (confidence None, alignment concern) and marks the "
           "line `# reply-audit: default-reflection`. Only the action's author knows its confidence and alignment.")
    fix = ("Fill them in and delete the marker.")
    valid = [Example(IAR)]
    invalid = [Example('''
def search(query):
    return {"error": None, "data": {}, "reflection": {}}  # reply-audit: default-reflection

registry.register_action("search", search)
''',
        findings=[
            ("mod.py", 3, 1,
             "this reflection was written by migrate: set its confidence and alignment, then delete the marker"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for m in ctx.inventory.markers:
            if m.marker == MARKER and not ctx.is_test(m.path):
                yield self.finding(m.path, m.line, "this reflection was written by migrate: set its "
                                   "confidence and alignment, then delete the marker", key=MARKER, subject=m)
