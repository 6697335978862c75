"""RA302: the builder method disagrees with the code's TYPE letter."""

from collections.abc import Iterator

from ._snippets import tree
from .base import Example, Finding, Rule, RuleContext


class MethodTypeMismatch(Rule):
    id = "RA302"
    name = "method-type-mismatch"
    severity = "high"
    category = "call"
    requirement = "method-matches-type"
    chunk = "call-sites"
    spec = "spec 000 §3, §6"
    doc = ("The TYPE letter of a code and the builder method must say the same thing: rb.success() with "
           "WA-RES-I-001 sends a Success whose code says Invalid, and agents that branch on either get it wrong.")
    fix = ("Call the method of the code's type, or pick the code of the intended type.")
    valid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.invalid("WA-RES-I-001", {})\n'))]
    invalid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.success("WA-RES-I-001", {})\n'),
        findings=[
            ("server.py", 2, 12, "rb.success() builds S but WA-RES-I-001 is a I code"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for c in ctx.non_test_calls():
            parts = ctx.profile.parse_code(c.code) if c.code else None
            expected = ctx.profile.call_type(c)
            if parts and parts.type is not None and expected and parts.type != expected:
                what = f"{c.receiver}.{c.method}()" if c.receiver else f"{c.method}()"
                yield self.finding(c.path, c.line, f"{what} builds "
                                   f"{expected} but {c.code} is a {parts.type} code", col=c.col,
                                   function=c.function, key=f"{c.method}:{c.code}")
