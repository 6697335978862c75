"""RA303: a terminal reply that is not returned immediately."""

from collections.abc import Iterator

from ..records import Call
from ._snippets import tree
from .base import Example, Finding, Rule, RuleContext


class TerminalNotReturned(Rule):
    id = "RA303"
    name = "terminal-not-returned"
    severity = "high"
    category = "call"
    requirement = "terminal-returned"
    chunk = "call-sites"
    spec = "spec 000 §10"
    doc = ("Invalid, Denied and Error are terminal: the reply must be returned at once. A terminal call used as a "
           "statement (or stored and ignored) is lost, and the code goes on to build another reply. Calls of a "
           "Reply class's classmethod factories are not builder calls and are left alone, and so is a reply "
           "function ([builder.functions]) whose value is kept or passed on: only one called as a bare statement, "
           "or bound to a name the function never reads, is lost.")
    fix = ("`return rb.denied(...)` (`reply-audit migrate --select terminal-return`).")
    valid = [Example(tree(server='''
def f(rb: ReplyBuilder, path):
    if path.startswith("/sys"):
        return rb.denied("EN-WRITE-D-001", {})
    return rb.success("WA-RES-S-001", {})
'''))]
    invalid = [Example(tree(server='''
def f(rb: ReplyBuilder, path):
    if path.startswith("/sys"):
        rb.denied("EN-WRITE-D-001", {})
    return rb.success("WA-RES-S-001", {})
'''),
        findings=[
            ("server.py", 4, 9, "terminal rb.denied() is not returned"),
        ])]

    @staticmethod
    def judged(ctx: RuleContext) -> list[Call]:
        """The calls the rule judges, and the audit and the scorecard count: terminal replies built by a builder
        (a Reply classmethod builds a value; the builder's terminal state is not involved)."""
        terminal, factories = ctx.profile.terminal_types, ctx.factory_builders()
        return [c for c in ctx.non_test_calls()
                if ctx.profile.call_type(c) in terminal and c.builder not in factories]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for c in self.judged(ctx):
            if c.binding_kind == "function" and not c.bare and not c.unused:
                continue  # a reply function's value kept or passed on (`err = error_response(...)`) is not lost
            if not c.returned:
                callee = f"{c.receiver}.{c.method}" if c.receiver else c.method
                yield self.finding(c.path, c.line, f"terminal {callee}() is not returned", col=c.col,
                                   function=c.function, key=f"{c.method}:{c.code}", subject=c)
