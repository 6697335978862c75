"""RA301: a builder call with a code the canonical registry does not define."""

from ._snippets import tree
from .base import Example, Rule


class UnknownCode(Rule):
    id = "RA301"
    name = "unknown-code"
    severity = "high"
    category = "call"
    spec = "spec 000 §6, §12"
    doc = ("Replies are registry-backed: every code a tool emits is defined in the canonical registry. An "
           "unregistered code has no message, no owner check and no stable meaning. (Legacy codes are RA108.) "
           "Fix: register the code, or use the registered one meant.")
    valid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.success("WA-READ-S-001", {})\n'))]
    invalid = [Example(tree(server='def f(rb: ReplyBuilder):\n    return rb.success("WA-READ-S-099", {})\n'))]

    def check(self, ctx):
        inv = ctx.inventory
        if not inv.canonical_codes:
            return
        for c in ctx.non_test_calls():
            code = c["code"]
            if code and ctx.profile.is_code(code) and code not in inv.canonical_codes \
                    and code not in inv.legacy_code_set:
                yield self.finding(c["path"], c["line"], f"{code} is not defined in the canonical registry",
                                   col=c["col"], function=c["function"], key=f"{c['method']}:{code}", subject=c)
