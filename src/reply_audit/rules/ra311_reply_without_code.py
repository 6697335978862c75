"""RA311: a reply built without a code."""

from collections.abc import Iterator

from ._snippets import tree
from .base import Example, Finding, Rule, RuleContext


class ReplyWithoutCode(Rule):
    id = "RA311"
    name = "reply-without-code"
    severity = "high"
    category = "call"
    requirement = "registered-codes"
    chunk = "call-sites"
    spec = "spec 000 §6 (every reply carries a registry code)"
    doc = ("Every reply of a type listed in `[builder] code-required` carries a stable code: callers branch on "
           "codes, never on text. A builder method or builder function ([builder.functions]) called without its "
           "code argument (by keyword or at its position), or with None, yields a reply nothing can branch on.")
    fix = ("Pass the registered code (an Enum member, a registry constant or its literal).")
    valid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.error("MCP-SYS-E-001", data={})\n'))]
    invalid = [Example(tree(server='''
def f(rb: ReplyBuilder):
    if not rb:
        return rb.error(data={"why": "no input"})
    return rb.success(None)
'''),
        findings=[
            ("server.py", 4, 16, "rb.error() builds a reply without a code"),
            ("server.py", 5, 12, "rb.success() builds a reply without a code"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        required = ctx.profile.code_required_types
        for c in ctx.non_test_calls():
            letter = ctx.profile.call_type(c)
            if c.has_code or letter not in required:
                continue
            what = f"{c.receiver}.{c.method}()" if c.receiver else f"{c.method}()"
            yield self.finding(c.path, c.line, f"{what} builds a reply without a code", col=c.col,
                               function=c.function, key=c.method, subject=c)
