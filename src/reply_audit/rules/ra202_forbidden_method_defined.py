"""RA202: a builder defines a forbidden method (rb.info / warn / fail)."""

from collections.abc import Iterator

from .base import Example, Finding, Rule, RuleContext


class ForbiddenMethodDefined(Rule):
    id = "RA202"
    name = "forbidden-method-defined"
    severity = "medium"
    category = "builder"
    requirement = "one-builder"
    chunk = "one-builder"
    spec = "spec 000 §2, §9"
    doc = ("There are no auxiliary outcomes (info, warning, soft error): informational outcomes are Success with "
           "structured data. A builder that offers info()/warn()/fail() invites them.")
    fix = ("Delete the method; callers use success() (info, warn) or error() (fail).")
    valid = [Example("class B:\n    def success(self, c): ...\n    def error(self, c): ...\n")]
    invalid = [Example("class B:\n    def success(self, c): ...\n    def error(self, c): ...\n"
                       "    def info(self, c): ...\n    def warn(self, c): ...\n",
        findings=[
            ("mod.py", 1, 1, "B defines forbidden method info() (use success())"),
            ("mod.py", 1, 1, "B defines forbidden method warn() (use success())"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for b in ctx.inventory.builders:
            for method in b.forbidden_methods:
                yield self.finding(b.path, b.line, f"{b.qualname} defines forbidden method {method}() "
                                   f"(use {ctx.profile.forbidden_methods[method]}())", key=f"{b.qualname}.{method}")
