"""RA205: a builder without a frozen terminal state (F4)."""

from collections.abc import Iterator

from ._snippets import BUILDER
from .base import Example, Finding, Rule, RuleContext


class BuilderNotFrozen(Rule):
    id = "RA205"
    name = "builder-not-frozen"
    severity = "medium"
    category = "builder"
    requirement = "builder-frozen"
    chunk = "frozen-builder"
    spec = "spec 000 §10"
    doc = ("After a terminal reply (Invalid, Denied, Error) the builder enters a frozen state and any further call "
           "raises, which stops silent overwrites. Detected when a terminal method sets a flag on self and some "
           "method raises under a test of that flag.")
    fix = ("Set self._frozen = True in invalid/denied/error and raise RuntimeError at the top of every method when "
           "it is set.")
    valid = [Example(BUILDER)]
    invalid = [Example("class B:\n    def success(self, c): return c\n    def error(self, c): return c\n",
        findings=[
            ("mod.py", 1, 1, "B does not freeze after a terminal reply"),
        ])]

    def check(self, ctx: RuleContext) -> Iterator[Finding]:
        for b in ctx.instance_builders():
            if not b.frozen_after_terminal:
                yield self.finding(b.path, b.line, f"{b.qualname} does not freeze after a terminal reply",
                                   key=b.qualname)
