"""RA401: the reply's wire shape lacks or misplaces a field of the envelope (F1)."""

from collections.abc import Iterator

from ..records import Envelope
from .base import Example, Finding, Rule, RuleContext

SPEC_SHAPE = '''
class Meta:
    trace_id: str
    duration_ms: int
    def to_dict(self):
        return {"trace_id": self.trace_id, "duration_ms": self.duration_ms}

class Reply:
    meta: Meta
    def to_dict(self):
        return {"status": "success", "reply_type": "S", "data": {}, "meta": self.meta.to_dict(), "error": None}
'''


def envelope_diff(ctx: RuleContext, env: Envelope) -> tuple[list[str], dict[str, str], list[str]]:
    """(missing, misplaced: {spec field: found at}, extra) for one serialized Reply class."""
    spec = ctx.profile.envelope_fields
    have = env.fields
    by_leaf: dict[str, str] = {}
    for f in have:
        by_leaf.setdefault(f.rsplit(".", 1)[-1], f)
    missing: list[str] = []
    misplaced: dict[str, str] = {}
    for field in spec:
        if field in have:
            continue
        leaf = field.rsplit(".", 1)[-1]
        if "." in field and leaf in by_leaf:
            misplaced[field] = by_leaf[leaf]
        elif "." not in field or field.rsplit(".", 1)[0] in have:
            missing.append(field)  # a child of a missing parent is reported with its parent
        elif field.rsplit(".", 1)[0] not in missing:
            missing.append(field)
    parents = {f.rsplit(".", 1)[0] for f in spec if "." in f}
    extra = [f for f in have if f not in spec and f not in parents and f not in misplaced.values()]
    return missing, misplaced, extra


class EnvelopeFieldMissing(Rule):
    id = "RA401"
    name = "envelope-field-missing"
    severity = "high"
    category = "envelope"
    requirement = "envelope-shape"
    chunk = "envelope-spec"
    spec = "spec 000 §8"
    doc = ("The transport envelope has status, reply_type, data, meta.trace_id, meta.duration_ms and error (the "
           "profile's [envelope] fields). The Reply classes' serializer (to_dict() ...) is read, nested "
           "serializers included, and each spec field it lacks is reported, or reported as misplaced when the same "
           "name sits elsewhere (trace.trace_id instead of meta.trace_id).")
    fix = ("Produce the envelope fields in the serializer, or decide (and write down in the profile) that the spec "
           "changes.")
    valid = [Example(SPEC_SHAPE)]
    invalid = [Example(SPEC_SHAPE.replace('"error": None', '"code": "x"').replace(
        'return {"trace_id": self.trace_id, "duration_ms": self.duration_ms}', 'return {"trace_id": self.trace_id}'),
        note="error and meta.duration_ms missing",
        findings=[
            ("mod.py", 10, 1, "Reply.to_dict() has no `error` field of the envelope"),
            ("mod.py", 10, 1, "Reply.to_dict() has no `meta.duration_ms` field of the envelope"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for env in ctx.inventory.envelopes:
            missing, misplaced, _ = envelope_diff(ctx, env)
            spec = ctx.profile.envelope_fields
            for field in missing:
                children = [f for f in spec if f.startswith(field + ".") and f not in misplaced]
                also = f" (nor {', '.join(f'`{c}`' for c in children)})" if children else ""
                yield self.finding(env.path, env.line, f"{env.cls}.{env.method}() has no `{field}` "
                                   f"field of the envelope{also}", key=field)
            for field, found in misplaced.items():
                yield self.finding(env.path, env.line, f"{env.cls}.{env.method}() puts `{found}` "
                                   f"where the envelope has `{field}`", key=field)
