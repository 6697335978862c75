"""RA203: a forbidden builder method is called."""

from collections.abc import Iterator

from ._snippets import tree
from .base import Example, Finding, Rule, RuleContext


class ForbiddenMethodCalled(Rule):
    id = "RA203"
    name = "forbidden-method-called"
    severity = "high"
    category = "builder"
    requirement = "reply-types"
    chunk = "one-builder"
    spec = "spec 000 §9"
    doc = ("rb.info(), rb.warn() and rb.fail() are explicitly forbidden: a reply has one of four meanings, and an "
           "informational outcome or a warning is a Success carrying structured data. A builder that defines no such "
           "method raises AttributeError at run time (RA204 reports that too).")
    fix = ("rb.success() with the information in data for info/warn, rb.error() for fail (`reply-audit migrate "
           "--select forbidden-methods`).")
    valid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.success("WA-READ-S-001", {"note": 1})\n'))]
    invalid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.info("WA-READ-S-001", {})\n'),
        findings=[
            ("server.py", 2, 12, "rb.info() is forbidden; use rb.success()"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        forbidden = ctx.profile.forbidden_methods
        for c in ctx.non_test_calls():
            if c.method in forbidden:
                yield self.finding(c.path, c.line, f"{c.receiver}.{c.method}() is forbidden; use "
                                   f"{c.receiver}.{forbidden[c.method]}()", col=c.col,
                                   function=c.function, key=f"{c.method}:{c.code}", subject=c)
