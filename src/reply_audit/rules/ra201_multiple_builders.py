"""RA201: more than one ReplyBuilder (F3)."""

from collections.abc import Iterator

from ._snippets import BUILDER
from .base import Example, Finding, Rule, RuleContext


class MultipleBuilders(Rule):
    id = "RA201"
    name = "multiple-builders"
    severity = "high"
    category = "builder"
    requirement = "one-builder"
    chunk = "one-builder"
    spec = "spec 000 §9"
    doc = ("There must be exactly one ReplyBuilder in the runtime. A second (shadow) builder bypasses the primary "
           "one's validation and drifts in its API. The builder with the most calls is taken as the primary; every "
           "other is reported.")
    fix = ("Make the shadow's factory return the primary builder and delete the shadow class.")
    valid = [Example(BUILDER + "\nclass Reply:\n    @classmethod\n    def success(cls, code): ...\n"
                     "    @classmethod\n    def error(cls, code): ...\n",
                     note="a Reply class with classmethod factories is not a second builder")]
    invalid = [Example({"builder.py": BUILDER, "tools.py": '''
def _make(tool):
    class _Shadow:
        def success(self, code, data): return (code, data)
        def error(self, code, data): return (code, data)
    return _Shadow()
'''},
        findings=[
            ("tools.py", 3, 1, "_make._Shadow is a second builder beside ReplyBuilder (builder.py:2)"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        builders = ctx.instance_builders()
        if len(builders) < 2:
            return
        primary = max(builders, key=lambda b: (b.calls, -len(b.missing_methods), b.path))
        for b in builders:
            if b is not primary:
                yield self.finding(b.path, b.line, f"{b.qualname} is a second builder beside "
                                   f"{primary.qualname} ({primary.path}:{primary.line})", key=b.qualname)
